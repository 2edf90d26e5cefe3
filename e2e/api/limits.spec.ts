import { expect, test } from "../fixtures";
import {
  cardOf,
  expectPaidNow,
  expectPaidReplay,
  expectPlainError,
  expectPurchaseError,
  expectRetryAfter,
  postTopUp,
  uniqueRef,
} from "../utils";

/**
 * docs/contract.md §4 steps 7 to 9: limits (409) before rate limits (429), and replays answered
 * before either without counting toward them. One organisation per limit, one test each.
 */
test("max_points_per_top_up: a larger bundle → 409 limit_exceeded; the maximum itself is bought", async ({
  request,
  fx,
}) => {
  const org = fx.organizations.maxPerTopUp;
  for (const points of [1000, 7500]) {
    const error = await expectPlainError(
      await postTopUp(request, org, { points, reference: uniqueRef("max") }),
      409,
      "limit_exceeded",
    );
    expect(error.details.limit).toBe("max_points_per_top_up");
  }
  const reference = uniqueRef("max");
  await expectPaidNow(await postTopUp(request, org, { points: 500, reference }), { points: 500 });
  await expectPaidReplay(await postTopUp(request, org, { points: 500, reference }), { points: 500 });
});

test("max_points_balance: a purchase that would pass the maximum → 409 limit_exceeded; replays are still answered", async ({
  request,
  fx,
}) => {
  const org = fx.organizations.maxBalance;
  const first = { points: 500, reference: uniqueRef("cap") };
  expect((await expectPaidNow(await postTopUp(request, org, first))).points_balance).toBe(500);

  const over = await expectPlainError(
    await postTopUp(request, org, { points: 250, reference: uniqueRef("cap") }),
    409,
    "limit_exceeded",
  );
  expect(over.details.limit).toBe("max_points_balance");

  const last = { points: 100, reference: uniqueRef("cap") };
  expect((await expectPaidNow(await postTopUp(request, org, last))).points_balance).toBe(600);

  const full = await expectPlainError(
    await postTopUp(request, org, { points: 100, reference: uniqueRef("cap") }),
    409,
    "limit_exceeded",
  );
  expect(full.details.limit).toBe("max_points_balance");

  // The balance is at its maximum, yet both earlier purchases still replay, without a new credit.
  expect((await expectPaidReplay(await postTopUp(request, org, first))).points_balance).toBe(600);
  expect((await expectPaidReplay(await postTopUp(request, org, last))).points_balance).toBe(600);
});

test("frequency limit (2 per hour): failed purchases count, replays do not; 429 with Retry-After; limits answer before it", async ({
  request,
  fx,
}) => {
  const org = fx.organizations.frequency;
  const paid = { points: 100, reference: uniqueRef("freq") };
  await expectPaidNow(await postTopUp(request, org, paid));
  // Replays of the first purchase leave the second place free.
  await expectPaidReplay(await postTopUp(request, org, paid));
  await expectPaidReplay(await postTopUp(request, org, paid));

  const declined = { points: 100, payment_source_id: cardOf(org, "declined").id, reference: uniqueRef("freq") };
  await expectPurchaseError(await postTopUp(request, org, declined), 402, "payment_failed");

  const refused = await postTopUp(request, org, { points: 100, reference: uniqueRef("freq") });
  await expectPlainError(refused, 429, "frequency_limit_reached");
  expectRetryAfter(refused, 3600);

  // Step 8 before step 9: a bundle over the maximum is limit_exceeded even with the rate exhausted.
  const tooBig = await expectPlainError(
    await postTopUp(request, org, { points: 7500, reference: uniqueRef("freq") }),
    409,
    "limit_exceeded",
  );
  expect(tooBig.details.limit).toBe("max_points_per_top_up");

  // Step 9 before step 10: the declined card is not even tried.
  const beforeCharge = await postTopUp(request, org, { ...declined, reference: uniqueRef("freq") });
  await expectPlainError(beforeCharge, 429, "frequency_limit_reached");
  expectRetryAfter(beforeCharge, 3600);

  // Replays are answered with the limit exhausted, and still do not count.
  await expectPaidReplay(await postTopUp(request, org, paid));
  const replayedFailure = await postTopUp(request, org, declined);
  await expectPurchaseError(replayedFailure, 402, "payment_failed");
  expect(replayedFailure.headers()["idempotent-replayed"]).toBe("true");
});

test("daily points limit (1000 per 24 h): failed purchases do not count, replays do not count; 429 with Retry-After", async ({
  request,
  fx,
}) => {
  const org = fx.organizations.daily;
  await expectPurchaseError(
    await postTopUp(request, org, {
      points: 1000,
      payment_source_id: cardOf(org, "declined").id,
      reference: uniqueRef("day"),
    }),
    402,
    "payment_failed",
  );

  const first = { points: 500, reference: uniqueRef("day") };
  await expectPaidNow(await postTopUp(request, org, first));
  await expectPaidReplay(await postTopUp(request, org, first));
  const second = { points: 500, reference: uniqueRef("day") };
  expect((await expectPaidNow(await postTopUp(request, org, second))).points_balance).toBe(1000);

  const refused = await postTopUp(request, org, { points: 100, reference: uniqueRef("day") });
  await expectPlainError(refused, 429, "daily_limit_reached");
  expectRetryAfter(refused, 24 * 3600);

  expect((await expectPaidReplay(await postTopUp(request, org, first))).points_balance).toBe(1000);
  expect((await expectPaidReplay(await postTopUp(request, org, second))).points_balance).toBe(1000);
});
