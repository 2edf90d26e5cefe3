import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "../fixtures";
import { runBlock, shellBlockAfter } from "../readme";
import {
  bearer,
  expectPaidNow,
  expectPaidReplay,
  expectPlainError,
  expectPurchaseError,
  expectRetryAfter,
  expectSuccess,
  MAX_BODY_BYTES,
  PAYMENT_METHODS,
  postRaw,
  postTopUp,
  TOP_UPS,
  uniqueRef,
} from "../utils";
import { CAPPED_KEY_DAILY_POINTS, scopedKeysOf } from "./scoped-keys.fixtures";

/*
 * Scoped API keys over HTTP (docs/api.md, "API keys: scope and daily cap"): a read key reads and
 * quotes but cannot buy; a key's own daily Points cap holds that key only.
 */

function quote(request: APIRequestContext, key: string, body: unknown) {
  return request.post("/v3/points/quotes", {
    headers: { ...bearer(key), "Content-Type": "application/json" },
    data: Buffer.from(JSON.stringify(body)),
  });
}

async function purchasesWithReference(request: APIRequestContext, key: string, reference: string) {
  const data = await expectSuccess(
    await request.get(`${TOP_UPS}?reference=${reference}`, { headers: bearer(key) }),
    200,
  );
  return data.top_ups as unknown[];
}

test.describe("a read key", () => {
  test("reads every GET endpoint and quotes", async ({ request, fx }) => {
    const keys = scopedKeysOf(fx);
    const bought = await expectPaidNow(
      await postTopUp(request, keys.purchaseKey, { points: 100, reference: uniqueRef("by-purchase-key") }),
    );

    const methods = await expectSuccess(await request.get(PAYMENT_METHODS, { headers: bearer(keys.readKey) }), 200);
    expect((methods.payment_methods as { id: string }[]).map((method) => method.id)).toContain(keys.cards.visa);
    const listed = await expectSuccess(
      await request.get(`${TOP_UPS}?reference=${bought.top_up.reference}`, { headers: bearer(keys.readKey) }),
      200,
    );
    expect((listed.top_ups as { id: string }[]).map((topUp) => topUp.id)).toEqual([bought.top_up.id]);
    const one = await expectSuccess(
      await request.get(`${TOP_UPS}/${bought.top_up.id}`, { headers: bearer(keys.readKey) }),
      200,
    );
    expect((one.top_up as { id: string }).id).toBe(bought.top_up.id);
    const balance = await expectSuccess(
      await request.get("/v3/points/balance", { headers: bearer(keys.readKey) }),
      200,
    );
    expect(balance.points_balance).toBeGreaterThanOrEqual(100);
    let events: { type: string; data: { top_up?: { id: string } } }[] = [];
    for (let after = 0, more = true; more; ) {
      const page = await expectSuccess(
        await request.get(`/v3/points/events?after=${after}&limit=100`, { headers: bearer(keys.readKey) }),
        200,
      );
      events = [...events, ...(page.events as typeof events)];
      after = (page.events as { sequence: number }[]).at(-1)?.sequence ?? after;
      more = page.has_more as boolean;
    }
    expect(events.filter((event) => event.data.top_up?.id === bought.top_up.id).map((event) => event.type)).toEqual([
      "top_up.paid",
    ]);
    const quoted = await expectSuccess(await quote(request, keys.readKey, { points: 250 }), 200);
    expect(quoted.quote).toMatchObject({ points: 250, currency: "USD", payment_source_id: keys.cards.visa });
  });

  test("cannot buy: 403 insufficient_scope before the body is read, and nothing is recorded", async ({
    request,
    fx,
  }) => {
    const keys = scopedKeysOf(fx);
    const reference = uniqueRef("read-key");
    const refused = await expectPlainError(
      await postTopUp(request, keys.readKey, { points: 100, reference }),
      403,
      "insufficient_scope",
    );
    expect(refused.details).toEqual({ scope: "read", required_scope: "purchase" });
    expect(refused.message).toMatch(/read-only/);
    // An invalid body, or one over 64 KiB, gets the same answer: the scope comes first.
    const invalid = JSON.stringify({ points: "lots", currency: "usd", reference: "", price: 1 });
    await expectPlainError(await postRaw(request, bearer(keys.readKey), invalid), 403, "insufficient_scope");
    const huge = JSON.stringify({ points: 100, reference: uniqueRef("huge"), pad: "x".repeat(MAX_BODY_BYTES) });
    await expectPlainError(await postRaw(request, bearer(keys.readKey), huge), 403, "insufficient_scope");
    expect(await purchasesWithReference(request, keys.purchaseKey, reference)).toEqual([]);
  });
});

test("a capped key: failed purchases and replays do not count; past the cap 429 with Retry-After; other keys still buy", async ({
  request,
  fx,
}) => {
  const keys = scopedKeysOf(fx);
  const buy = (key: string, points: number, reference: string, paymentSourceId?: string) =>
    postTopUp(request, key, { points, reference, ...(paymentSourceId ? { payment_source_id: paymentSourceId } : {}) });

  // A declined purchase of the whole cap does not count toward it.
  await expectPurchaseError(
    await buy(keys.cappedKey, 500, uniqueRef("declined"), keys.cards.declined),
    402,
    "payment_failed",
  );
  const paidRef = uniqueRef("capped");
  await expectPaidNow(await buy(keys.cappedKey, CAPPED_KEY_DAILY_POINTS, paidRef), { points: CAPPED_KEY_DAILY_POINTS });
  // The cap is reached, yet the replay is answered from the stored purchase.
  await expectPaidReplay(await buy(keys.cappedKey, CAPPED_KEY_DAILY_POINTS, paidRef));

  const over = await buy(keys.cappedKey, 100, uniqueRef("over"));
  const error = await expectPlainError(over, 429, "key_daily_limit_reached");
  expect(error.details).toEqual({
    limit: "key_daily_points",
    key_daily_points_cap: CAPPED_KEY_DAILY_POINTS,
    key_points_last_24h: CAPPED_KEY_DAILY_POINTS,
    points: 100,
  });
  const retryAfter = expectRetryAfter(over, 24 * 3600);
  expect(retryAfter).toBeGreaterThan(23 * 3600);

  // The balance the capped key reads shows its cap used up, and its next purchase when the 429 said.
  const balance = (key: string) => request.get("/v3/points/balance", { headers: bearer(key) });
  const capped = await expectSuccess(await balance(keys.cappedKey), 200);
  expect(capped.limits).toMatchObject({
    key_daily_points: { limit: CAPPED_KEY_DAILY_POINTS, used: CAPPED_KEY_DAILY_POINTS, remaining: 0 },
  });
  expect(Math.abs((Date.parse(String(capped.next_purchase_at)) - Date.now()) / 1000 - retryAfter)).toBeLessThan(5);
  const other = await expectSuccess(await balance(keys.purchaseKey), 200);
  expect(other.limits).not.toHaveProperty("key_daily_points");

  // The quote with the same key says the same; a quote with the organisation's other key passes.
  const quoted = await quote(request, keys.cappedKey, { points: 100 });
  expect((await expectPlainError(quoted, 429, "key_daily_limit_reached")).details).toEqual(error.details);
  expectRetryAfter(quoted, 24 * 3600);
  await expectSuccess(await quote(request, keys.purchaseKey, { points: 100 }), 200);

  // The organisation's other key still buys.
  await expectPaidNow(await buy(keys.purchaseKey, 100, uniqueRef("other-key")), { points: 100 });
});

test("docs/api.md's scoped keys walkthrough answers as its comments say", async ({ fx, baseURL }) => {
  const keys = scopedKeysOf(fx);
  const block = shellBlockAfter("docs/api.md", "Then, with those keys, in the other terminal");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-readme-scopes-"));
  const write = (name: string, content: unknown) =>
    fs.writeFileSync(path.join(dir, ".data", name), JSON.stringify(content));
  fs.mkdirSync(path.join(dir, ".data"));
  write("demo.json", { api_key: keys.readme.purchaseKey });
  write("read-key.json", { api_key: keys.readme.readKey, scope: "read" });
  write("capped-key.json", { api_key: keys.readme.cappedKey, daily_points_cap: 250 });
  try {
    // Read, quote, the read key's purchase, the capped key's 250 then 100 more, the other key.
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual([200, 200, 403, 201, 429, 201]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
