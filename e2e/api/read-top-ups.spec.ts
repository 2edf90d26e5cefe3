import type { APIRequestContext, APIResponse } from "@playwright/test";
import type { E2eFixtures, FixtureOrganization } from "../fixtures";
import { expect, test } from "../fixtures";
import {
  bearer,
  cardOf,
  expectInvalidFields,
  expectPaidNow,
  expectPlainError,
  expectPurchaseError,
  expectSuccess,
  expectTopUp,
  postTopUp,
  TOP_UPS,
  type TopUpJson,
  uniqueRef,
} from "../utils";

/*
 * GET /v3/points/top-ups and /v3/points/top-ups/{id} (docs/api.md, Reading purchases), on the
 * `reads` organisation, which only this spec buys on.
 */

function getList(
  request: APIRequestContext,
  organization: FixtureOrganization | string,
  query: string,
  headers: Record<string, string> = {},
) {
  return request.get(`${TOP_UPS}${query ? `?${query}` : ""}`, { headers: { ...bearer(organization), ...headers } });
}

function getOne(
  request: APIRequestContext,
  organization: FixtureOrganization | string,
  id: string,
  headers: Record<string, string> = {},
) {
  return request.get(`${TOP_UPS}/${id}`, { headers: { ...bearer(organization), ...headers } });
}

/** A 200 list answer: exactly `top_ups` and `has_more`, each entry a whole TopUp. */
async function expectPage(response: APIResponse): Promise<{ top_ups: TopUpJson[]; has_more: boolean }> {
  const data = await expectSuccess(response, 200);
  expect(Object.keys(data).sort()).toEqual(["has_more", "top_ups"]);
  expect(typeof data.has_more).toBe("boolean");
  const topUps = (data.top_ups as unknown[]).map((topUp) => expectTopUp(topUp));
  return { top_ups: topUps, has_more: data.has_more as boolean };
}

const ids = (topUps: TopUpJson[]) => topUps.map((topUp) => topUp.id);

/** An ISO 8601 UTC time (`…Z`) written as the same instant at an offset of `minutes` east of UTC. */
function withOffset(iso: string, minutes: number): string {
  const local = new Date(Date.parse(iso) + minutes * 60_000).toISOString().replace("Z", "");
  const sign = minutes < 0 ? "-" : "+";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${local}${sign}${two(Math.floor(Math.abs(minutes) / 60))}:${two(Math.abs(minutes) % 60)}`;
}

/** The spec's purchases, oldest first: three paid, one declined, one awaiting the cardholder. */
let bought: TopUpJson[] = [];
/** Only this run's purchases, whatever an earlier run against the same database left. */
let since = "";

test.beforeAll(async ({ playwright, fx }) => {
  const request = await playwright.request.newContext({ baseURL: fx.baseUrl });
  const org = fx.organizations.reads;
  const plan = ["visa", "declined", "visa", "authentication_required", "visa"] as const;
  bought = [];
  for (const kind of plan) {
    const response = await postTopUp(request, org, {
      points: 100,
      payment_source_id: cardOf(org, kind).id,
      reference: uniqueRef(`read-${kind}`),
    });
    if (kind === "visa") bought.push((await expectPaidNow(response)).top_up);
    else
      bought.push(
        (await expectPurchaseError(response, 402, kind === "declined" ? "payment_failed" : "payment_action_required"))
          .data.top_up,
      );
  }
  await request.dispose();
  since = bought[0]?.created_at ?? "";
});

/** Newest first, as the list answers. */
const newest = () => [...bought].reverse();

test.describe("GET /v3/points/top-ups/{id}", () => {
  test("answers the purchase as the POST did, in the envelope, echoing X-Request-Id", async ({ request, fx }) => {
    for (const topUp of bought) {
      const response = await getOne(request, fx.organizations.reads, topUp.id, { "X-Request-Id": "read-one-1" });
      const data = await expectSuccess(response, 200);
      expect(response.headers()["x-request-id"]).toBe("read-one-1");
      expect(Object.keys(data)).toEqual(["top_up"]);
      expect(expectTopUp(data.top_up)).toEqual(topUp);
    }
    expect(bought.map((topUp) => topUp.status)).toEqual(["paid", "failed", "paid", "awaiting_payment", "paid"]);
  });

  test("another organisation's ID, an unknown and a malformed one: the same 404 not_found", async ({ request, fx }) => {
    const theirs = bought[0]?.id ?? "";
    const errors = [
      await expectPlainError(await getOne(request, fx.organizations.main, theirs), 404, "not_found"),
      await expectPlainError(await getOne(request, fx.organizations.reads, "tu_doesnotexist0000000"), 404, "not_found"),
      await expectPlainError(await getOne(request, fx.organizations.reads, "not%20an%20id"), 404, "not_found"),
      await expectPlainError(await getOne(request, fx.organizations.reads, "pm_123"), 404, "not_found"),
    ];
    for (const error of errors) expect(error).toEqual(errors[0]);
    expect(JSON.stringify(errors[0])).not.toContain(fx.organizations.reads.id);
  });

  test("other methods: a JSON 405 with Allow", async ({ request, fx }) => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const response = await request.fetch(`${TOP_UPS}/${bought[0]?.id}`, {
        method,
        headers: bearer(fx.organizations.reads),
      });
      await expectPlainError(response, 405, "method_not_allowed");
      expect(response.headers().allow).toBe("GET, OPTIONS");
    }
  });
});

test.describe("GET /v3/points/top-ups", () => {
  test("lists the organisation's purchases newest first, and no one else's", async ({ request, fx }) => {
    const page = await expectPage(await getList(request, fx.organizations.reads, `created[gte]=${since}`));
    expect(page).toEqual({ top_ups: newest(), has_more: false });
    const mains = await expectPage(await getList(request, fx.organizations.main, "limit=100"));
    for (const topUp of bought) expect(ids(mains.top_ups)).not.toContain(topUp.id);
  });

  test("pages forwards with starting_after and backwards with ending_before, has_more on each side", async ({
    request,
    fx,
  }) => {
    const org = fx.organizations.reads;
    const all = newest();
    const page = async (query: string) =>
      expectPage(await getList(request, org, `limit=2&created[gte]=${since}&${query}`));
    expect(await page("")).toEqual({ top_ups: all.slice(0, 2), has_more: true });
    expect(await page(`starting_after=${all[1]?.id}`)).toEqual({ top_ups: all.slice(2, 4), has_more: true });
    expect(await page(`starting_after=${all[3]?.id}`)).toEqual({ top_ups: all.slice(4), has_more: false });
    expect(await page(`ending_before=${all[4]?.id}`)).toEqual({ top_ups: all.slice(2, 4), has_more: true });
    expect(await page(`ending_before=${all[2]?.id}`)).toEqual({ top_ups: all.slice(0, 2), has_more: false });
    expect(await page(`ending_before=${all[0]?.id}`)).toEqual({ top_ups: [], has_more: false });
  });

  test("filters by reference, status, source and creation time", async ({ request, fx }) => {
    const org = fx.organizations.reads;
    const all = newest();
    const list = async (query: string) =>
      ids((await expectPage(await getList(request, org, `created[gte]=${since}&${query}`))).top_ups);
    for (const topUp of bought) {
      expect(ids((await expectPage(await getList(request, org, `reference=${topUp.reference}`))).top_ups)).toEqual([
        topUp.id,
      ]);
    }
    expect(await list(`reference=${uniqueRef("never")}`)).toEqual([]);
    expect(await list("status=paid")).toEqual(ids(all.filter((topUp) => topUp.status === "paid")));
    expect(await list("status=failed")).toEqual([bought[1]?.id]);
    expect(await list("status=awaiting_payment")).toEqual([bought[3]?.id]);
    expect(await list("status=pending")).toEqual([]);
    expect(await list("source=api")).toEqual(ids(all));
    expect(await list("source=dashboard")).toEqual([]);
    expect(await list("status=paid&source=api&limit=1")).toEqual([bought[4]?.id]);
    // created[lt] is strict: the third purchase's own time leaves it out.
    const third = bought[2]?.created_at ?? "";
    expect(await list(`created[lt]=${third}`)).toEqual(ids(bought.slice(0, 2).reverse()));
    expect(ids((await expectPage(await getList(request, org, `created[gte]=${third}`))).top_ups)).toEqual(
      ids(bought.slice(2).reverse()),
    );
    // Brackets percent-encoded, as most HTTP clients send them, mean the same.
    expect(
      ids((await expectPage(await getList(request, org, `created%5Bgte%5D=${encodeURIComponent(third)}`))).top_ups),
    ).toEqual(ids(bought.slice(2).reverse()));
  });

  test("created[gte] and created[lt] read any RFC 3339 time: an offset, +00:00, minute precision", async ({
    request,
    fx,
  }) => {
    const org = fx.organizations.reads;
    const list = async (query: string) => ids((await expectPage(await getList(request, org, query))).top_ups);
    const third = bought[2]?.created_at ?? "";
    const fromThird = ids(bought.slice(2).reverse());
    // The third purchase's own instant, as Python's isoformat() writes UTC, and in +05:30 and -08:00.
    const plusZero = third.replace("Z", "+00:00");
    expect(await list(`created[gte]=${encodeURIComponent(plusZero)}`)).toEqual(fromThird);
    expect(await list(`created[gte]=${encodeURIComponent(withOffset(third, 330))}`)).toEqual(fromThird);
    expect(await list(`created[gte]=${encodeURIComponent(withOffset(third, -480))}`)).toEqual(fromThird);
    expect(
      await list(`created[gte]=${since}&created[lt]=${encodeURIComponent(withOffset(third, 60).toLowerCase())}`),
    ).toEqual(ids(bought.slice(0, 2).reverse()));
    // Minute precision: from the minute before the first purchase to the minute after the last.
    const minute = (iso: string, add: number) =>
      new Date(Math.floor(Date.parse(iso) / 60_000) * 60_000 + add * 60_000).toISOString().slice(0, 16);
    const last = bought.at(-1)?.created_at ?? "";
    const window = `created[gte]=${minute(since, 0)}Z&created[lt]=${minute(last, 1)}Z&reference=`;
    for (const topUp of bought) expect(await list(`${window}${topUp.reference}`)).toEqual([topUp.id]);
    expect(await list(`created[gte]=${minute(last, 1)}Z&reference=${bought[4]?.reference}`)).toEqual([]);
  });

  test("a time that is not RFC 3339 is 422 invalid_request naming the parameter and saying why", async ({
    request,
    fx,
  }) => {
    const refused = async (query: string) => {
      const response = await getList(request, fx.organizations.reads, query, { "X-Request-Id": "bad-time-1" });
      expect(response.headers()["x-request-id"]).toBe("bad-time-1");
      return expectInvalidFields(response, [query.slice(0, query.indexOf("="))]);
    };
    expect(await refused("created[gte]=2026-11-22T12:00:00")).toEqual({
      "created[gte]": expect.stringContaining("RFC 3339"),
    });
    expect(await refused("created[lt]=2026-11-22T24:00Z")).toEqual({
      "created[lt]": expect.stringContaining("not a real date and time"),
    });
    expect(await refused("created[lt]=2026-11-22T12:60:00Z")).toEqual({
      "created[lt]": expect.stringContaining("not a real date and time"),
    });
    // An unencoded + arrives as a space: the answer says to send %2B.
    expect(await refused("created[gte]=2026-11-22T12:00:00+01:00")).toEqual({
      "created[gte]": expect.stringContaining("%2B"),
    });
  });

  const badQueries: { query: (fx: { theirs: string; mine: string }) => string; fields: string[] }[] = [
    { query: () => "limit=0", fields: ["limit"] },
    { query: () => "limit=101", fields: ["limit"] },
    { query: () => "limit=abc", fields: ["limit"] },
    { query: () => "status=refunded", fields: ["status"] },
    { query: () => "source=cli", fields: ["source"] },
    { query: () => "reference=bad%20ref", fields: ["reference"] },
    { query: () => "created[gte]=2026-11-22", fields: ["created[gte]"] },
    { query: () => "created[lt]=2026-11-22T12:00:00", fields: ["created[lt]"] },
    { query: () => "created[lt]=2026-02-30T12:00Z", fields: ["created[lt]"] },
    { query: () => "page=2", fields: ["page"] },
    { query: () => "status=paid&status=failed", fields: ["status"] },
    { query: () => "starting_after=pm_1", fields: ["starting_after"] },
    {
      query: ({ mine }) => `starting_after=${mine}&ending_before=${mine}`,
      fields: ["starting_after", "ending_before"],
    },
    { query: ({ theirs }) => `starting_after=${theirs}`, fields: ["starting_after"] },
    { query: ({ theirs }) => `ending_before=${theirs}`, fields: ["ending_before"] },
    { query: () => "ending_before=tu_doesnotexist0000000", fields: ["ending_before"] },
    {
      query: () => "limit=0&status=x&source=x&reference=%20&created[gte]=x&created[lt]=x&expand=all",
      fields: ["limit", "status", "source", "reference", "created[gte]", "created[lt]", "expand"],
    },
  ];
  for (const [index, bad] of badQueries.entries()) {
    test(`422 invalid_request naming the parameter (${index + 1}: ${bad.fields.join(", ")})`, async ({
      request,
      fx,
    }) => {
      // Asked with `main`'s key, `reads`' top-up is another organisation's.
      const query = bad.query({ theirs: bought[0]?.id ?? "", mine: bought[1]?.id ?? "" });
      await expectInvalidFields(await getList(request, fx.organizations.main, query), bad.fields);
    });
  }
});

test.describe("Reading purchases: the same availability checks as GET /v3/points/payment-methods", () => {
  const cases: { name: string; key: (fx: E2eFixtures) => string; status: number; code: string }[] = [
    { name: "no key", key: () => "", status: 403, code: "invalid_api_key" },
    { name: "an unknown key", key: () => `pts_${"Z".repeat(40)}`, status: 403, code: "invalid_api_key" },
    { name: "a revoked key", key: (fx) => fx.revokedKey, status: 403, code: "invalid_api_key" },
    {
      name: "an organisation not eligible for the API",
      key: (fx) => fx.organizations.unavailable.apiKey,
      status: 404,
      code: "not_available",
    },
    {
      name: "an eligible organisation with API purchases disabled",
      key: (fx) => fx.organizations.disabled.apiKey,
      status: 403,
      code: "api_purchases_disabled",
    },
  ];
  for (const c of cases) {
    test(`${c.name} → ${c.status} ${c.code}, before the query or the ID is looked at`, async ({ request, fx }) => {
      const headers: Record<string, string> = c.key(fx) ? { Authorization: `Bearer ${c.key(fx)}` } : {};
      await expectPlainError(await request.get(`${TOP_UPS}?limit=0&nope=1`, { headers }), c.status, c.code);
      await expectPlainError(await request.get(TOP_UPS, { headers }), c.status, c.code);
      await expectPlainError(await request.get(`${TOP_UPS}/${bought[0]?.id}`, { headers }), c.status, c.code);
      await expectPlainError(await request.get(`${TOP_UPS}/tu_unknown`, { headers }), c.status, c.code);
    });
  }
});
