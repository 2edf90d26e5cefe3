import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { expect, test } from "../fixtures";
import {
  cardOf,
  expectInvalidFields,
  expectPaidNow,
  expectPaidReplay,
  expectPlainError,
  expectPurchaseData,
  expectPurchaseError,
  expectSuccess,
  expectTopUp,
  postTopUp,
  uniqueRef,
} from "../utils";

/** docs/contract.md §4 steps 7 and 10: new purchases, replays and every payment outcome of the test cards. */
test.describe("paid purchases and replays", () => {
  test("201 credits exactly the bundle, priced by the provider in the saved currency; a replay is 200 with no second credit", async ({
    request,
    fx,
  }) => {
    const org = fx.organizations.balance;
    const visa = cardOf(org, "visa").id;
    const first = { points: 100, reference: uniqueRef("bal") };

    const paid = await expectPaidNow(await postTopUp(request, org, first), {
      reference: first.reference,
      points: 100,
      currency: "GBP",
      amount: SIMULATED_PRICES.GBP[100],
      payment_source_id: visa,
      source: "api",
    });
    expect(paid.points_balance).toBe(100);

    const second = await expectPaidNow(await postTopUp(request, org, { points: 250, reference: uniqueRef("bal") }), {
      amount: SIMULATED_PRICES.GBP[250],
    });
    expect(second.points_balance).toBe(350);
    expect(second.top_up.id).not.toBe(paid.top_up.id);

    const replay = await expectPaidReplay(await postTopUp(request, org, first));
    expect(replay.top_up).toEqual(paid.top_up);
    expect(replay.points_balance).toBe(350);

    const explicit = await expectPaidReplay(
      await postTopUp(request, org, { ...first, currency: "GBP", payment_source_id: visa }),
    );
    expect(explicit.top_up).toEqual(paid.top_up);
    expect(explicit.points_balance).toBe(350);

    const third = await expectPaidNow(await postTopUp(request, org, { points: 1000, reference: uniqueRef("bal") }));
    expect(third.points_balance).toBe(1350);
  });

  test("a replay that omits currency and method, which resolve to the originals, is 200 with the stored top-up", async ({
    request,
    fx,
  }) => {
    const main = fx.organizations.main;
    const reference = uniqueRef("omit");
    const paid = await expectPaidNow(
      await postTopUp(request, main, {
        points: 500,
        currency: "USD",
        payment_source_id: cardOf(main, "visa").id,
        reference,
      }),
      { amount: SIMULATED_PRICES.USD[500] },
    );
    const replay = await expectPaidReplay(await postTopUp(request, main, { points: 500, reference }));
    expect(replay.top_up).toEqual(paid.top_up);
  });

  test("a replay that names the currency and method the original resolved is 200 with the stored top-up", async ({
    request,
    fx,
  }) => {
    const main = fx.organizations.main;
    const reference = uniqueRef("name");
    const paid = await expectPaidNow(await postTopUp(request, main, { points: 250, reference }), {
      currency: "USD",
      payment_source_id: cardOf(main, "visa").id,
    });
    const replay = await expectPaidReplay(
      await postTopUp(request, main, {
        points: 250,
        currency: "USD",
        payment_source_id: cardOf(main, "visa").id,
        reference,
      }),
    );
    expect(replay.top_up).toEqual(paid.top_up);
  });

  test("references are case-sensitive: two references differing in case are two purchases", async ({ request, fx }) => {
    const main = fx.organizations.main;
    const reference = uniqueRef("Case");
    const upper = await expectPaidNow(await postTopUp(request, main, { points: 100, reference }));
    const lower = await expectPaidNow(
      await postTopUp(request, main, { points: 100, reference: reference.toLowerCase() }),
    );
    expect(lower.top_up.id).not.toBe(upper.top_up.id);
    expect(lower.top_up.reference).toBe(reference.toLowerCase());
    expect((await expectPaidReplay(await postTopUp(request, main, { points: 100, reference }))).top_up.id).toBe(
      upper.top_up.id,
    );
  });

  test("references are per organisation: two organisations may use the same one", async ({ request, fx }) => {
    const reference = uniqueRef("shared");
    const main = await expectPaidNow(await postTopUp(request, fx.organizations.main, { points: 100, reference }), {
      payment_source_id: cardOf(fx.organizations.main, "visa").id,
    });
    const other = await expectPaidNow(await postTopUp(request, fx.organizations.other, { points: 250, reference }), {
      points: 250,
      payment_source_id: cardOf(fx.organizations.other, "visa").id,
    });
    expect(other.top_up.id).not.toBe(main.top_up.id);
    expect(other.top_up.reference).toBe(main.top_up.reference);
  });

  test("concurrent requests with one reference charge and credit it once", async ({ request, fx }) => {
    const org = fx.organizations.concurrent;
    const body = { points: 100, reference: uniqueRef("race") };
    const responses = await Promise.all(Array.from({ length: 8 }, () => postTopUp(request, org, body)));
    const statuses = responses.map((response) => response.status());
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    const ids = new Set<string>();
    for (const response of responses) {
      // Only the request that made the purchase answers without the header; the rest were answered from it.
      expect(response.headers()["idempotent-replayed"]).toBe(response.status() === 201 ? undefined : "true");
      if (response.status() === 409) {
        const { data } = await expectPurchaseError(response, 409, "purchase_in_progress");
        ids.add(data.top_up.id);
      } else {
        const data = expectPurchaseData(await expectSuccess(response, response.status() === 201 ? 201 : 200));
        ids.add(data.top_up.id);
      }
    }
    expect(ids.size).toBe(1);
    const settled = await expectPaidReplay(await postTopUp(request, org, body));
    expect(settled.points_balance).toBe(100);
  });
});

test.describe("reference conflicts (409 reference_conflict)", () => {
  test("different points, currency or method are refused with the original top-up; the original is untouched", async ({
    request,
    fx,
  }) => {
    const main = fx.organizations.main;
    const visa = cardOf(main, "visa").id;
    const reference = uniqueRef("conflict");
    const original = await expectPaidNow(
      await postTopUp(request, main, { points: 250, currency: "USD", payment_source_id: visa, reference }),
    );

    const variants = [
      { points: 100, currency: "USD", payment_source_id: visa, reference },
      { points: 250, currency: "EUR", payment_source_id: visa, reference },
      { points: 250, currency: "USD", payment_source_id: cardOf(main, "mastercard").id, reference },
      { points: 250, payment_source_id: cardOf(main, "declined").id, reference },
      { points: 7500, reference },
    ];
    for (const variant of variants) {
      const response = await postTopUp(request, main, variant);
      const { error, data } = await expectPurchaseError(response, 409, "reference_conflict");
      expect(data.top_up, JSON.stringify(variant)).toEqual(original.top_up);
      expect(error.details.reference).toBe(reference);
      expect(response.headers()["idempotent-replayed"]).toBe("true");
    }
    const replay = await expectPaidReplay(await postTopUp(request, main, { points: 250, reference }));
    expect(replay.top_up).toEqual(original.top_up);
  });

  test("validation and payment-method checks come before the stored purchase is looked up", async ({ request, fx }) => {
    const main = fx.organizations.main;
    const reference = uniqueRef("before7");
    await expectPaidNow(await postTopUp(request, main, { points: 100, reference }));
    await expectInvalidFields(await postTopUp(request, main, { points: 100, reference, amount: 1 }), ["amount"]);
    await expectPlainError(
      await postTopUp(request, main, { points: 100, reference, payment_source_id: "pm_sim_doesnotexist0000" }),
      422,
      "invalid_payment_method",
    );
    await expectPlainError(
      await postTopUp(request, main, { points: 100, reference, payment_source_id: cardOf(main, "expired").id }),
      422,
      "invalid_payment_method",
    );
  });
});

test.describe("failed payments (402 payment_failed)", () => {
  for (const [kind, code] of [
    ["declined", "card_declined"],
    ["insufficient_funds", "insufficient_funds"],
  ] as const) {
    test(`a ${kind} card fails with failure.code ${code}; a replay answers 402 again with the same purchase`, async ({
      request,
      fx,
    }) => {
      const main = fx.organizations.main;
      const body = { points: 500, payment_source_id: cardOf(main, kind).id, reference: uniqueRef(kind) };
      const first = await postTopUp(request, main, body);
      const { data } = await expectPurchaseError(first, 402, "payment_failed");
      expect(first.headers()["idempotent-replayed"]).toBeUndefined();
      expectTopUp(data.top_up, {
        status: "failed",
        reference: body.reference,
        points: 500,
        currency: "USD",
        amount: SIMULATED_PRICES.USD[500],
        payment_source_id: body.payment_source_id,
        paid_at: null,
      });
      expect(data.top_up.failure?.code).toBe(code);
      expect(data.top_up.failure?.message.length).toBeGreaterThan(0);

      const again = await postTopUp(request, main, body);
      const replay = await expectPurchaseError(again, 402, "payment_failed");
      expect(again.headers()["idempotent-replayed"]).toBe("true");
      expect(replay.data.top_up).toEqual(data.top_up);

      // A new purchase needs a new reference: the same one with a working card is a conflict.
      await expectPurchaseError(
        await postTopUp(request, main, { ...body, payment_source_id: cardOf(main, "visa").id }),
        409,
        "reference_conflict",
      );
    });
  }
});

test.describe("payments awaiting the cardholder (402 payment_action_required)", () => {
  test("an authentication_required card awaits payment; a replay asks again and answers 402 with the same purchase", async ({
    request,
    fx,
  }) => {
    const main = fx.organizations.main;
    const body = {
      points: 250,
      payment_source_id: cardOf(main, "authentication_required").id,
      reference: uniqueRef("3ds"),
    };
    const first = await postTopUp(request, main, body);
    const { data } = await expectPurchaseError(first, 402, "payment_action_required");
    expect(first.headers()["idempotent-replayed"]).toBeUndefined();
    expectTopUp(data.top_up, {
      status: "awaiting_payment",
      points: 250,
      amount: SIMULATED_PRICES.USD[250],
      paid_at: null,
    });
    expect(data.top_up.failure?.code).toBe("authentication_required");

    const again = await postTopUp(request, main, body);
    const replay = await expectPurchaseError(again, 402, "payment_action_required");
    expect(again.headers()["idempotent-replayed"]).toBe("true");
    expectTopUp(replay.data.top_up, {
      id: data.top_up.id,
      status: "awaiting_payment",
      created_at: data.top_up.created_at,
    });
  });
});

test.describe("unresolved payments (409 payment_unresolved)", () => {
  test("a processing card is unresolved at first; the retry resolves it to paid (201), a further retry is 200", async ({
    request,
    fx,
  }) => {
    const main = fx.organizations.main;
    const body = { points: 1000, payment_source_id: cardOf(main, "processing").id, reference: uniqueRef("slow") };
    const first = await postTopUp(request, main, body);
    const unresolved = await expectPurchaseError(first, 409, "payment_unresolved");
    expect(first.headers()["idempotent-replayed"]).toBeUndefined();
    expectTopUp(unresolved.data.top_up, {
      status: "processing",
      failure: null,
      paid_at: null,
      amount: SIMULATED_PRICES.USD[1000],
    });

    // The retry asks the provider about the same payment and credits it now, hence 201, from a stored purchase.
    const retry = await postTopUp(request, main, body);
    const resolved = expectPurchaseData(await expectSuccess(retry, 201));
    expect(retry.headers()["idempotent-replayed"]).toBe("true");
    expectTopUp(resolved.top_up, {
      id: unresolved.data.top_up.id,
      status: "paid",
      created_at: unresolved.data.top_up.created_at,
    });
    expect(resolved.points_balance).toBeGreaterThanOrEqual(unresolved.data.points_balance + 1000);

    const later = await expectPaidReplay(await postTopUp(request, main, body));
    expect(later.top_up).toEqual(resolved.top_up);
  });
});
