import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext, APIResponse } from "@playwright/test";
import { expect, type FixtureOrganization, test } from "../fixtures";
import { runBlock, shellBlockAfter } from "../readme";
import {
  bearer,
  cardOf,
  expectError,
  expectInvalidFields,
  expectPaidNow,
  expectPaymentMethod,
  expectPlainError,
  expectPurchaseError,
  expectRetryAfter,
  expectSuccess,
  postTopUp,
  uniqueRef,
} from "../utils";

/*
 * GET /v3/points/balance and POST /v3/points/quotes over HTTP against the production build: the
 * envelope, the availability checks of GET /v3/points/payment-methods, and a balance whose
 * next_purchase_at is the time a refused purchase's Retry-After names. The stateful journey runs
 * on `balanceQuotes`, an organisation of this file's own with every limit set.
 */

const BALANCE = "/v3/points/balance";
const QUOTES = "/v3/points/quotes";
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function getBalance(
  request: APIRequestContext,
  organization: FixtureOrganization | string,
  headers: Record<string, string> = {},
) {
  return request.get(BALANCE, { headers: { ...bearer(organization), ...headers } });
}

function postQuote(request: APIRequestContext, organization: FixtureOrganization | string, body: unknown) {
  return request.post(QUOTES, {
    headers: { ...bearer(organization), "Content-Type": "application/json" },
    data: Buffer.from(JSON.stringify(body)),
  });
}

interface BalanceJson {
  points_balance: number;
  points_held: number;
  limits: Record<string, Record<string, number>>;
  next_purchase_at: string;
}

async function readBalance(response: APIResponse): Promise<BalanceJson> {
  const data = await expectSuccess(response, 200);
  expect(Object.keys(data).sort()).toEqual([
    "expiring",
    "limits",
    "next_purchase_at",
    "points_balance",
    "points_by_category",
    "points_held",
    "points_reserved",
  ]);
  expect(data.next_purchase_at).toMatch(ISO_UTC);
  return data as unknown as BalanceJson;
}

/** Seconds from now until an ISO time, as a client would compute it on receipt. */
const secondsUntil = (iso: string) => (Date.parse(iso) - Date.now()) / 1000;

test("the balance lists each configured limit, nothing used yet, and a purchase may be made now", async ({
  request,
  fx,
}) => {
  const org = fx.organizations.balanceQuotes;
  const response = await getBalance(request, org, { "X-Request-Id": "balance-check-1" });
  expect(response.headers()["x-request-id"]).toBe("balance-check-1");
  const balance = await readBalance(response);
  expect(balance).toMatchObject({
    points_balance: 0,
    points_held: 0,
    points_reserved: 0,
    points_by_category: { paid: 0, promotional: 0 },
    expiring: [],
    limits: {
      max_points_per_top_up: { limit: 1000 },
      max_points_balance: { limit: 5000, used: 0, remaining: 5000 },
      frequency_limit: { limit: 2, window_seconds: 3600, used: 0, remaining: 2 },
      daily_points_limit: { limit: 2000, used: 0, remaining: 2000 },
    },
  });
  expect(Math.abs(secondsUntil(balance.next_purchase_at))).toBeLessThan(30);

  // An organisation with no limits set lists none.
  expect((await readBalance(await getBalance(request, fx.organizations.other))).limits).toEqual({});
});

test("both endpoints answer the availability checks of the payment methods, in their order", async ({
  request,
  fx,
}) => {
  const calls = [
    (key: FixtureOrganization | string) => getBalance(request, key),
    (key: FixtureOrganization | string) => postQuote(request, key, { points: 100 }),
  ];
  for (const call of calls) {
    await expectPlainError(await call("pts_not_a_key"), 403, "invalid_api_key");
    await expectPlainError(await call(fx.revokedKey), 403, "invalid_api_key");
    await expectPlainError(await call(fx.organizations.unavailable), 404, "not_available");
    await expectPlainError(await call(fx.organizations.unavailableEnabled), 404, "not_available");
    await expectPlainError(await call(fx.organizations.disabled), 403, "api_purchases_disabled");
  }
  await expectPlainError(await request.get(BALANCE), 403, "invalid_api_key");
  await expectPlainError(await request.post(QUOTES, { data: { points: 100 } }), 403, "invalid_api_key");
  // Other methods: 405 in the envelope, with Allow.
  const wrong = await request.post(BALANCE, { headers: bearer(fx.organizations.balanceQuotes) });
  await expectPlainError(wrong, 405, "method_not_allowed");
  expect(wrong.headers().allow).toBe("GET, OPTIONS");
  await expectPlainError(
    await request.get(QUOTES, { headers: bearer(fx.organizations.balanceQuotes) }),
    405,
    "method_not_allowed",
  );
});

test("a quote answers the provider's outage as the purchase would: 502 with Retry-After, after the body's checks", async ({
  request,
  fx,
}) => {
  // The outage organisation has no saved currency: without one the quote stops at step 5, before the provider.
  await expectPlainError(await postQuote(request, fx.organizations.outage, { points: 100 }), 422, "currency_required");
  const refused = await postQuote(request, fx.organizations.outage, { points: 100, currency: "EUR" });
  await expectPlainError(refused, 502, "payment_methods_unavailable");
  expect(Number(refused.headers()["retry-after"])).toBeGreaterThan(0);
  // The balance asks no provider: it still answers.
  expect((await getBalance(request, fx.organizations.outage)).status()).toBe(200);
});

test("a quote validates a purchase's body without a reference, naming every bad field", async ({ request, fx }) => {
  const org = fx.organizations.balanceQuotes;
  const fields = await expectInvalidFields(
    await postQuote(request, org, { points: 99, currency: "usd", reference: "order-1", price: 1 }),
    ["currency", "points", "price", "reference"],
  );
  expect(fields.reference).toMatch(/quote/);
  await expectInvalidFields(await postQuote(request, org, [100]), ["body"]);
  await expectPlainError(
    await postQuote(request, fx.organizations.noCurrency, { points: 100 }),
    422,
    "currency_required",
  );
  const bad = await expectPlainError(
    await postQuote(request, org, { points: 100, payment_source_id: cardOf(fx.organizations.other, "visa").id }),
    422,
    "invalid_payment_method",
  );
  expect(Object.keys(bad.details.fields as object)).toEqual(["payment_source_id"]);
  await expectPlainError(
    await postQuote(request, fx.organizations.severalNoDefault, { points: 100 }),
    422,
    "payment_method_required",
  );
  await expectPlainError(await postQuote(request, fx.organizations.noCards, { points: 100 }), 422, "no_payment_method");
});

test("a quote answers what the purchase would do, records nothing, and 429s with the balance's next_purchase_at", async ({
  request,
  fx,
}) => {
  const org = fx.organizations.balanceQuotes;
  const visa = cardOf(org, "visa");
  const mastercard = cardOf(org, "mastercard");

  const quoted = await expectSuccess(await postQuote(request, org, { points: 1000 }), 200);
  expect(Object.keys(quoted)).toEqual(["quote"]);
  const quote = quoted.quote as Record<string, unknown>;
  expect(Object.keys(quote).sort()).toEqual(
    [
      "amount",
      "currency",
      "payment_method",
      "payment_source_id",
      "points",
      "points_balance_after",
      "points_expire_at",
    ].sort(),
  );
  expect(quote).toMatchObject({
    points: 1000,
    currency: "USD",
    payment_source_id: visa.id,
    points_balance_after: 1000,
    points_expire_at: null,
  });
  expectPaymentMethod(quote.payment_method, { id: visa.id, label: visa.label, is_default: true });
  expect(Number.isInteger(quote.amount) && (quote.amount as number) > 0).toBe(true);
  const other = await expectSuccess(
    await postQuote(request, org, { points: 250, currency: "EUR", payment_source_id: mastercard.id }),
    200,
  );
  expect(other.quote).toMatchObject({ points: 250, currency: "EUR", payment_source_id: mastercard.id });

  // The per-top-up limit answers a quote as it answers the purchase.
  const big = await expectPlainError(await postQuote(request, org, { points: 2500 }), 409, "limit_exceeded");
  expect(big.details.limit).toBe("max_points_per_top_up");

  // Three quotes later nothing is used: the frequency limit of 2 still allows both purchases.
  const untouched = await readBalance(await getBalance(request, org));
  expect(untouched.limits.frequency_limit).toMatchObject({ used: 0, remaining: 2 });
  const paid = await expectPaidNow(await postTopUp(request, org, { points: 1000, reference: uniqueRef("bq") }));
  expect(paid.top_up.amount).toBe(quote.amount);
  await expectPurchaseError(
    await postTopUp(request, org, {
      points: 100,
      payment_source_id: cardOf(org, "declined").id,
      reference: uniqueRef("bq"),
    }),
    402,
    "payment_failed",
  );

  const full = await readBalance(await getBalance(request, org));
  expect(full).toMatchObject({
    points_balance: 1000,
    limits: {
      max_points_balance: { limit: 5000, used: 1000, remaining: 4000 },
      frequency_limit: { used: 2, remaining: 0 },
      // The failed purchase counts toward frequency, not toward the daily Points.
      daily_points_limit: { used: 1000, remaining: 1000 },
    },
  });
  const waitSeconds = secondsUntil(full.next_purchase_at);
  expect(waitSeconds).toBeGreaterThan(3600 - 60);
  expect(waitSeconds).toBeLessThanOrEqual(3600);

  // The quote and the purchase are both refused, with the Retry-After the balance's time gives.
  for (const response of [
    await postQuote(request, org, { points: 100 }),
    await postTopUp(request, org, { points: 100, reference: uniqueRef("bq") }),
  ]) {
    await expectError(response, 429, "frequency_limit_reached");
    const retryAfter = expectRetryAfter(response, 3600);
    expect(Math.abs(retryAfter - secondsUntil(full.next_purchase_at))).toBeLessThanOrEqual(2);
  }
  expect((await readBalance(await getBalance(request, org))).next_purchase_at).toBe(full.next_purchase_at);
});

test("/favicon.ico answers the app's icon", async ({ request }) => {
  const response = await request.get("/favicon.ico");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
  const bytes = await response.body();
  expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
});

test("docs/api.md's balance and quote examples answer as its comments say", async ({ fx, baseURL }) => {
  const block = shellBlockAfter("docs/api.md", "Before buying, a client can ask");
  // A `.data/demo.json` as the dev server writes it, for `main`: the block only reads, so other specs' numbers hold.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-readme-quotes-"));
  fs.mkdirSync(path.join(dir, ".data"));
  fs.writeFileSync(path.join(dir, ".data", "demo.json"), JSON.stringify({ api_key: fx.organizations.main.apiKey }));
  try {
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual([200, 200, 200, 422]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
