import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Organization, TopUp } from "@/lib/db/schema";
import { backends, createTestContext, expectPointsError, type TestContext } from "@/lib/testing/harness";
import { createOrganization } from "../accounts/organizations";
import { parseTopUpListQuery, type TopUpListQuery } from "../api/top-up-list";
import { purchasePoints } from "../purchase";
import { getTopUpOrThrow, listTopUpsPage } from "./top-up-list";

/** The 422's details.fields for a query string. */
async function badFields(query: string): Promise<Record<string, string>> {
  const error = await expectPointsError(() => parseTopUpListQuery(new URLSearchParams(query)));
  expect(error.code).toBe("invalid_request");
  const fields = error.details.fields as Record<string, string>;
  for (const name of Object.keys(fields)) expect(error.message).toContain(`\`${name}\``);
  return fields;
}

describe("GET /v3/points/top-ups query", () => {
  it("defaults to 20 newest purchases with no filter", () => {
    expect(parseTopUpListQuery(new URLSearchParams(""))).toEqual({ limit: 20 });
  });

  it("reads every parameter", () => {
    const query = parseTopUpListQuery(
      new URLSearchParams(
        "limit=100&starting_after=tu_abc&reference=order-1.a:b_c&status=awaiting_payment&source=dashboard" +
          "&created%5Bgte%5D=2026-11-01T00:00:00Z&created[lt]=2026-11-22T12:30:15.123456Z",
      ),
    );
    expect(query).toEqual({
      limit: 100,
      startingAfter: "tu_abc",
      reference: "order-1.a:b_c",
      status: "awaiting_payment",
      source: "dashboard",
      createdGte: "2026-11-01T00:00:00.000000Z",
      createdLt: "2026-11-22T12:30:15.123456Z",
    });
    expect(parseTopUpListQuery(new URLSearchParams("limit=1&ending_before=tu_x"))).toEqual({
      limit: 1,
      endingBefore: "tu_x",
    });
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=1.5", "limit"],
    ["limit=-1", "limit"],
    ["limit=ten", "limit"],
    ["limit=", "limit"],
    ["starting_after=pm_123", "starting_after"],
    ["ending_before=tu_bad%20id", "ending_before"],
    ["reference=bad%20ref", "reference"],
    [`reference=${"r".repeat(101)}`, "reference"],
    ["reference=", "reference"],
    ["status=refunded", "status"],
    ["status=PAID", "status"],
    ["source=cli", "source"],
    ["created[gte]=2026-11-22", "created[gte]"],
    ["created[gte]=2026-11-22T12:00:00", "created[gte]"],
    ["created[gte]=2026-11-22%2012:00:00Z", "created[gte]"],
    ["created[gte]=2026-11-22T12:00:00%2B0100", "created[gte]"],
    ["created[lt]=2026-02-30T00:00:00Z", "created[lt]"],
    ["created[lt]=2026-11-22T25:00:00Z", "created[lt]"],
    ["created[lt]=2026-11-22T24:00Z", "created[lt]"],
    ["created[lt]=2026-11-22T12:60Z", "created[lt]"],
    ["created[lt]=yesterday", "created[lt]"],
  ])("%s → 422 naming %s", async (query, name) => {
    expect(Object.keys(await badFields(query))).toEqual([name]);
  });

  it("names every bad parameter at once: unknown, repeated and invalid ones", async () => {
    const fields = await badFields(
      "limit=0&status=x&status=paid&page=2&created[gt]=2026-11-22T00:00:00Z&created[lt]=soon&__proto__=1",
    );
    expect(fields).toEqual({
      limit: expect.stringContaining("1 to 100"),
      status: expect.stringContaining("more than once"),
      page: "is not an accepted parameter",
      "created[gt]": "is not an accepted parameter",
      "created[lt]": expect.stringContaining("RFC 3339"),
      ["__proto__"]: "is not an accepted parameter",
    });
  });

  it.each([
    ["2026-11-22T12:00Z", "2026-11-22T12:00:00.000000Z"],
    ["2026-11-22T12:00:00%2B00:00", "2026-11-22T12:00:00.000000Z"],
    ["2026-11-22T13:30:00.25%2B01:30", "2026-11-22T12:00:00.250000Z"],
    ["2026-11-22T07:00-05:00", "2026-11-22T12:00:00.000000Z"],
    ["2026-11-22t12:00:00z", "2026-11-22T12:00:00.000000Z"],
    ["0099-01-01T00:00:00Z", "0099-01-01T00:00:00.000000Z"],
    ["0000-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z BC"],
  ])("reads created[gte]=%s and created[lt] alike as the UTC instant %s", (value, expected) => {
    expect(parseTopUpListQuery(new URLSearchParams(`created[gte]=${value}&created%5Blt%5D=${value}`))).toEqual({
      limit: 20,
      createdGte: expected,
      createdLt: expected,
    });
  });

  it("says why a time is refused, naming each parameter", async () => {
    const fields = await badFields("created[gte]=2026-02-30T00:00Z&created[lt]=2026-11-22T12:00:00+01:00");
    expect(fields).toEqual({
      "created[gte]": expect.stringContaining("not a real date and time"),
      "created[lt]": expect.stringContaining("%2B"),
    });
  });

  it("a repeated parameter is named even when each value is valid", async () => {
    expect(await badFields("source=api&source=api")).toEqual({ source: expect.stringContaining("more than once") });
  });

  it("refuses both cursors together, naming both", async () => {
    const fields = await badFields("starting_after=tu_a&ending_before=tu_b");
    expect(Object.keys(fields).sort()).toEqual(["ending_before", "starting_after"]);
  });
});

describe.each(backends())("listing and reading top-ups over the API (%s)", (backend) => {
  let ctx: TestContext;
  let org: Organization;
  let other: Organization;
  let otherTopUp: TopUp;
  /** Oldest first, as bought. */
  const bought: TopUp[] = [];
  const start = "2026-11-22T12:00:00.000Z";

  const list = (query: Partial<TopUpListQuery>, organizationId = org.id) =>
    listTopUpsPage(ctx.db, organizationId, { limit: 20, ...query });
  const ids = (topUps: TopUp[]) => topUps.map((topUp) => topUp.id);
  /** Newest first. */
  const newest = () => [...bought].reverse();

  beforeAll(async () => {
    ctx = await createTestContext(backend);
    const created = await createOrganization(ctx, {
      name: "Reads",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa", "declined"],
      defaultCardIndex: 0,
    });
    org = created.organization;
    const [visa, declined] = created.paymentMethods.map((method) => method.id);
    const plan = [
      { card: declined, source: "api" },
      { card: visa, source: "dashboard" },
      { card: visa, source: "api" },
      { card: visa, source: "api" },
      { card: declined, source: "dashboard" },
    ] as const;
    for (const [index, { card, source }] of plan.entries()) {
      // Two purchases share each instant, so the id breaks ties.
      if (index % 2 === 0) ctx.clock.advance(60_000);
      const result = await purchasePoints(ctx, {
        organization: org,
        request: { points: 100, currency: "USD", paymentSourceId: card, reference: `read-${index}` },
        source,
      });
      bought.push(result.topUp);
    }
    // Within one instant the listing puts the greater id first.
    bought.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    const second = await createOrganization(ctx, {
      name: "Other",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    other = second.organization;
    otherTopUp = (
      await purchasePoints(ctx, {
        organization: other,
        request: { points: 100, currency: "USD", reference: "read-0" },
        source: "api",
      })
    ).topUp;
  }, 120_000);

  afterAll(async () => {
    await ctx?.close();
  });

  it("lists newest first with has_more, and pages forwards then backwards", async () => {
    const all = newest();
    expect(await list({})).toEqual({ topUps: all, hasMore: false });
    const first = await list({ limit: 2 });
    expect(first).toEqual({ topUps: all.slice(0, 2), hasMore: true });
    const second = await list({ limit: 2, startingAfter: all[1]?.id });
    expect(second).toEqual({ topUps: all.slice(2, 4), hasMore: true });
    const third = await list({ limit: 2, startingAfter: all[3]?.id });
    expect(third).toEqual({ topUps: all.slice(4), hasMore: false });
    // Backwards from the oldest: the page just above it, still newest first.
    const back = await list({ limit: 2, endingBefore: all[4]?.id });
    expect(back).toEqual({ topUps: all.slice(2, 4), hasMore: true });
    expect(await list({ limit: 2, endingBefore: all[2]?.id })).toEqual({ topUps: all.slice(0, 2), hasMore: false });
    expect(await list({ endingBefore: all[0]?.id })).toEqual({ topUps: [], hasMore: false });
  });

  it("filters by reference, status, source and creation time", async () => {
    const all = newest();
    expect(ids((await list({ reference: "read-2" })).topUps)).toEqual(ids(all.filter((t) => t.reference === "read-2")));
    expect(ids((await list({ status: "failed" })).topUps)).toEqual(ids(all.filter((t) => t.status === "failed")));
    expect((await list({ status: "failed" })).topUps).toHaveLength(2);
    expect(ids((await list({ source: "dashboard" })).topUps)).toEqual(ids(all.filter((t) => t.source === "dashboard")));
    expect(ids((await list({ status: "paid", source: "api" })).topUps)).toHaveLength(2);
    const minute = (n: number) => new Date(Date.parse(start) + n * 60_000).toISOString();
    expect(ids((await list({ createdGte: minute(2) })).topUps)).toEqual(
      ids(all.filter((t) => t.createdAt >= new Date(minute(2)))),
    );
    expect((await list({ createdGte: minute(2) })).topUps).toHaveLength(3);
    expect((await list({ createdLt: minute(2) })).topUps).toHaveLength(2);
    expect((await list({ createdGte: minute(2), createdLt: minute(3) })).topUps).toHaveLength(2);
    expect(await list({ reference: "read-9" })).toEqual({ topUps: [], hasMore: false });
  });

  it("filters by times written with any offset, at any precision, in any year RFC 3339 allows", async () => {
    const all = newest();
    const parsedList = (query: string) => list(parseTopUpListQuery(new URLSearchParams(query)));
    // Minute 2 after the start, in UTC, in +01:00, at minute precision and with Python's +00:00.
    const since = ids(all.filter((t) => t.createdAt >= new Date(Date.parse(start) + 120_000)));
    expect(since).toHaveLength(3);
    for (const value of [
      "2026-11-22T12:02:00Z",
      "2026-11-22T13:02:00%2B01:00",
      "2026-11-22T12:02Z",
      "2026-11-22T12:02:00%2B00:00",
      "2026-11-22T07:02-05:00",
    ]) {
      expect(ids((await parsedList(`created[gte]=${value}`)).topUps)).toEqual(since);
    }
    expect((await parsedList("created[lt]=2026-11-22T13:02%2B01:00")).topUps).toHaveLength(2);
    // A microsecond before or after a purchase's own time moves it across the bound.
    const first = bought[0];
    if (!first) throw new Error("nothing bought");
    const firstTime = first.createdAt.toISOString().replace("Z", "");
    expect(ids((await parsedList(`created[lt]=${firstTime}001Z`)).topUps)).toContain(first.id);
    expect(ids((await parsedList(`created[lt]=${firstTime}000Z`)).topUps)).not.toContain(first.id);
    // The earliest and latest instants RFC 3339 can name, beyond years 1 to 9999 once offset.
    expect(ids((await parsedList("created[gte]=0000-01-01T00:00:00%2B23:59")).topUps)).toEqual(ids(all));
    expect(
      ids((await parsedList("created[gte]=0000-01-01T00:00:00Z&created[lt]=0099-12-31T23:59:59Z")).topUps),
    ).toEqual([]);
    expect(ids((await parsedList("created[lt]=9999-12-31T23:59:59.999999-23:59")).topUps)).toEqual(ids(all));
    expect(ids((await parsedList("created[gte]=9999-12-31T23:59:59-23:59")).topUps)).toEqual([]);
  });

  it("never lists another organisation's purchases, even under the same reference", async () => {
    expect(ids((await list({ reference: "read-0" }, other.id)).topUps)).toEqual([otherTopUp.id]);
    expect(ids((await list({}, other.id)).topUps)).toEqual([otherTopUp.id]);
  });

  it("a cursor that is another organisation's, or unknown, is a bad parameter, in the same words", async () => {
    const foreign = await expectPointsError(() => list({ startingAfter: otherTopUp.id }));
    const unknown = await expectPointsError(() => list({ startingAfter: "tu_nothing" }));
    expect(foreign.code).toBe("invalid_request");
    expect(foreign.details).toEqual(unknown.details);
    expect(foreign.details).toEqual({ fields: { starting_after: expect.any(String) } });
    const before = await expectPointsError(() => list({ endingBefore: otherTopUp.id }));
    expect(before.details).toEqual({ fields: { ending_before: expect.any(String) } });
  });

  it("reads one top-up; another organisation's, an unknown and a malformed ID are all not found alike", async () => {
    const mine = bought[0];
    if (!mine) throw new Error("nothing bought");
    expect(await getTopUpOrThrow(ctx.db, org.id, mine.id)).toEqual(mine);
    const answers = await Promise.all(
      [otherTopUp.id, "tu_nothing", "not an id", "tu_\u0000", ""].map((id) =>
        expectPointsError(() => getTopUpOrThrow(ctx.db, org.id, id)),
      ),
    );
    for (const error of answers) {
      expect(error.code).toBe("not_found");
      expect(error.message).toBe(answers[0]?.message);
    }
  });
});
