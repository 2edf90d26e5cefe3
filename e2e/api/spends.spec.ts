import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "../fixtures";
import { runBlock, shellBlockAfter } from "../readme";
import {
  bearer,
  expectInvalidFields,
  expectPaidNow,
  expectPlainError,
  expectSuccess,
  postTopUp,
  uniqueRef,
} from "../utils";
import { spendsOf } from "./spends.fixtures";

/*
 * POST and GET /v3/points/spends over HTTP (docs/api.md, "Spending Points"), against `next start`,
 * on both billing providers: idempotent by reference, never past the balance, by purchase and
 * spend keys only.
 */

const SPENDS = "/v3/points/spends";

function postSpend(request: APIRequestContext, key: string, body: unknown) {
  return request.post(SPENDS, {
    headers: { ...bearer(key), "Content-Type": "application/json" },
    data: Buffer.from(JSON.stringify(body)),
  });
}

async function balanceOf(request: APIRequestContext, key: string): Promise<number> {
  const data = await expectSuccess(await request.get("/v3/points/balance", { headers: bearer(key) }), 200);
  return data.points_balance as number;
}

test("a spend key spends: 201 with the spend and the balance left, then the same spend on a replay", async ({
  request,
  fx,
}) => {
  const keys = spendsOf(fx);
  await expectPaidNow(await postTopUp(request, keys.purchaseKey, { points: 250, reference: uniqueRef("fund") }));
  const before = await balanceOf(request, keys.spendKey);
  const reference = uniqueRef("job");
  const body = { points: 40, reference, description: "Report generation" };
  const first = await postSpend(request, keys.spendKey, body);
  const data = await expectSuccess(first, 201);
  expect(first.headers()["idempotent-replayed"]).toBeUndefined();
  expect(Object.keys(data).sort()).toEqual(["points_balance", "spend"]);
  const spend = data.spend as Record<string, unknown>;
  expect(Object.keys(spend).sort()).toEqual(["created_at", "description", "id", "points", "reference"]);
  expect(spend).toMatchObject({ reference, points: 40, description: "Report generation" });
  expect(spend.id).toMatch(/^sp_/);
  expect(spend.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(data.points_balance).toBe(before - 40);

  const again = await postSpend(request, keys.purchaseKey, body);
  expect(await expectSuccess(again, 200)).toEqual({ spend, points_balance: before - 40 });
  expect(again.headers()["idempotent-replayed"]).toBe("true");
  expect(await balanceOf(request, keys.readKey)).toBe(before - 40);

  const conflict = await expectPlainError(
    await postSpend(request, keys.spendKey, { ...body, points: 41 }),
    409,
    "reference_conflict",
  );
  expect(conflict.details).toMatchObject({ spend, fields: ["points"] });

  const listed = await expectSuccess(
    await request.get(`${SPENDS}?reference=${reference}`, { headers: bearer(keys.readKey) }),
    200,
  );
  expect(listed).toEqual({ spends: [spend], has_more: false });
});

test("more than the spendable balance is 409 insufficient_points, and nothing is spent", async ({ request, fx }) => {
  const keys = spendsOf(fx);
  const before = await balanceOf(request, keys.spendKey);
  const reference = uniqueRef("too-much");
  const refused = await expectPlainError(
    await postSpend(request, keys.spendKey, { points: before + 1, reference }),
    409,
    "insufficient_points",
  );
  expect(refused.message).toContain(`has ${before} Points to spend, not ${before + 1}`);
  expect(refused.details).toMatchObject({ points_balance: before, points: before + 1 });
  expect(await balanceOf(request, keys.spendKey)).toBe(before);
  const listed = await expectSuccess(
    await request.get(`${SPENDS}?reference=${reference}`, { headers: bearer(keys.spendKey) }),
    200,
  );
  expect(listed).toEqual({ spends: [], has_more: false });
});

test("spends at once that together pass the balance: only those answered 201 are spent", async ({ request, fx }) => {
  const keys = spendsOf(fx);
  await expectPaidNow(await postTopUp(request, keys.purchaseKey, { points: 100, reference: uniqueRef("fund") }));
  const before = await balanceOf(request, keys.spendKey);
  const each = Math.ceil(before / 7);
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, index) =>
      postSpend(request, keys.spendKey, { points: each, reference: uniqueRef(`burst-${index}`) }),
    ),
  );
  const statuses = answers.map((answer) => answer.status());
  const spent = statuses.filter((status) => status === 201).length;
  expect(spent).toBe(Math.floor(before / each));
  expect(statuses.filter((status) => status === 409)).toHaveLength(10 - spent);
  expect(await balanceOf(request, keys.spendKey)).toBe(before - spent * each);
});

test("the checks run in order: the key, its scope, the body, then the balance", async ({ request, fx }) => {
  const keys = spendsOf(fx);
  await expectPlainError(await postSpend(request, "pts_nope", { points: 1 }), 403, "invalid_api_key");
  await expectPlainError(await postSpend(request, keys.disabledSpendKey, { points: 0 }), 403, "api_purchases_disabled");
  const scope = await expectPlainError(
    await postSpend(request, keys.readKey, { points: 0 }),
    403,
    "insufficient_scope",
  );
  expect(scope.details).toEqual({ scope: "read", required_scope: "spend" });
  expect(
    await expectInvalidFields(await postSpend(request, keys.spendKey, { points: 0, price: 1 }), [
      "points",
      "price",
      "reference",
    ]),
  ).toEqual({
    points: "must be a whole number of Points from 1 to 1,000,000",
    price: "is not an accepted field",
    reference: "is required: must be 1 to 100 letters, digits, '.', '_', ':' or '-', unique per spend",
  });
  const malformed = await request.post(SPENDS, {
    headers: { ...bearer(keys.spendKey), "Content-Type": "application/json" },
    data: Buffer.from("{", "utf8"),
  });
  await expectPlainError(malformed, 422, "invalid_request");
  // A spend key cannot buy.
  const buy = await expectPlainError(
    await postTopUp(request, keys.spendKey, { points: 100, reference: uniqueRef("no") }),
    403,
    "insufficient_scope",
  );
  expect(buy.details).toEqual({ scope: "spend", required_scope: "purchase" });
});

test("GET /v3/points/spends pages newest first and names each bad parameter", async ({ request, fx }) => {
  const keys = spendsOf(fx);
  await expectPaidNow(await postTopUp(request, keys.purchaseKey, { points: 100, reference: uniqueRef("fund") }));
  for (const n of [1, 2, 3]) {
    await expectSuccess(await postSpend(request, keys.spendKey, { points: 1, reference: uniqueRef(`page-${n}`) }), 201);
  }
  const page = async (query: string) =>
    (await expectSuccess(await request.get(`${SPENDS}?${query}`, { headers: bearer(keys.readKey) }), 200)) as {
      spends: Array<{ id: string; created_at: string }>;
      has_more: boolean;
    };
  const first = await page("limit=2");
  expect(first.spends).toHaveLength(2);
  expect(first.has_more).toBe(true);
  const second = await page(`limit=2&starting_after=${first.spends[1]?.id}`);
  expect((second.spends[0]?.created_at ?? "") <= (first.spends[1]?.created_at ?? "")).toBe(true);
  expect(second.spends.map((spend) => spend.id)).not.toContain(first.spends[0]?.id);
  expect(
    await expectInvalidFields(await request.get(`${SPENDS}?limit=0&sort=asc`, { headers: bearer(keys.readKey) }), [
      "limit",
      "sort",
    ]),
  ).toEqual({ limit: "must be a whole number from 1 to 100", sort: "is not an accepted parameter" });
});

test("docs/api.md's spend examples answer as its comments say", async ({ fx, baseURL }) => {
  const keys = spendsOf(fx);
  const block = shellBlockAfter("docs/api.md", "Points leave the balance when what they pay for is done");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-readme-spends-"));
  fs.mkdirSync(path.join(dir, ".data"));
  fs.writeFileSync(path.join(dir, ".data", "demo.json"), JSON.stringify({ api_key: keys.purchaseKey }));
  try {
    expect(runBlock(block, baseURL ?? "", { WORKDIR: dir })).toEqual([201, 200, 409, 409]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a spend that crosses the levels: balance.low, then one auto-recharge bought just after the answer", async ({
  request,
  fx,
}) => {
  const { recharging } = spendsOf(fx);
  const key = recharging.purchaseKey;
  const spent = await expectSuccess(await postSpend(request, key, { points: 700, reference: uniqueRef("cross") }), 201);
  expect(spent.points_balance).toBe(300);
  // The recharge runs after the answer: poll the purchases it makes.
  const recharges = async () =>
    (
      (await expectSuccess(
        await request.get("/v3/points/top-ups?source=auto_recharge", { headers: bearer(key) }),
        200,
      )) as { top_ups: Array<{ points: number; status: string; reference: string }> }
    ).top_ups;
  await expect
    .poll(async () => (await recharges()).map((topUp) => topUp.status), { timeout: 15_000 })
    .toEqual(["paid"]);
  expect((await recharges())[0]).toMatchObject({ points: 250, reference: "auto-recharge:1" });
  expect(await balanceOf(request, key)).toBe(550);
  const events = (
    (await expectSuccess(await request.get("/v3/points/events?limit=100", { headers: bearer(key) }), 200)) as {
      events: Array<{ type: string; data: Record<string, unknown> }>;
    }
  ).events;
  expect(events.filter((event) => event.type === "balance.low").map((event) => event.data)).toEqual([
    { points_balance: 300, threshold: 500 },
  ]);
  // 550 now: a spend that stays at or above the level crosses nothing, and buys nothing.
  await expectSuccess(await postSpend(request, key, { points: 150, reference: uniqueRef("above") }), 201);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(await recharges()).toHaveLength(1);
});

test("a second crossing past the month's cap buys nothing: the recharge's guard refuses it after the answer", async ({
  request,
  fx,
}) => {
  const key = spendsOf(fx).capped.purchaseKey;
  const recharges = async () =>
    (
      (await expectSuccess(
        await request.get("/v3/points/top-ups?source=auto_recharge", { headers: bearer(key) }),
        200,
      )) as { top_ups: Array<{ points: number; status: string }> }
    ).top_ups;
  await expectSuccess(await postSpend(request, key, { points: 700, reference: uniqueRef("cap-1") }), 201);
  await expect
    .poll(async () => (await recharges()).map((topUp) => topUp.status), { timeout: 15_000 })
    .toEqual(["paid"]);
  expect(await balanceOf(request, key)).toBe(550);
  // 550 → 350: below the level again, but the month's 250 are bought.
  await expectSuccess(await postSpend(request, key, { points: 200, reference: uniqueRef("cap-2") }), 201);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(await recharges()).toHaveLength(1);
  expect(await balanceOf(request, key)).toBe(350);
});
