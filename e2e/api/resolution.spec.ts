import { SIMULATED_PRICES } from "@/lib/billing/prices";
import type { E2eFixtures } from "../fixtures";
import { expect, test } from "../fixtures";
import {
  cardOf,
  expectPaidNow,
  expectPlainError,
  expectRetryAfter,
  getPaymentMethods,
  postTopUp,
  uniqueRef,
} from "../utils";

/** docs/contract.md §4 steps 5 and 6: which currency and which saved method a purchase uses. */
test.describe("currency", () => {
  test("no saved currency and none sent → 422 currency_required naming currency", async ({ request, fx }) => {
    const org = fx.organizations.noCurrency;
    const error = await expectPlainError(
      await postTopUp(request, org, {
        points: 100,
        payment_source_id: cardOf(org, "visa").id,
        reference: uniqueRef("cur"),
      }),
      422,
      "currency_required",
    );
    expect(Object.keys(error.details.fields as object)).toEqual(["currency"]);
  });

  test("no saved currency but one sent → paid in that currency at the provider's price", async ({ request, fx }) => {
    const org = fx.organizations.noCurrency;
    await expectPaidNow(
      await postTopUp(request, org, {
        points: 500,
        currency: "EUR",
        payment_source_id: cardOf(org, "mastercard").id,
        reference: uniqueRef("cur"),
      }),
      {
        points: 500,
        currency: "EUR",
        amount: SIMULATED_PRICES.EUR[500],
        payment_source_id: cardOf(org, "mastercard").id,
      },
    );
  });

  for (const currency of ["USD", "GBP", "EUR"] as const) {
    test(`a ${currency} purchase is priced from the provider's ${currency} table`, async ({ request, fx }) => {
      await expectPaidNow(
        await postTopUp(request, fx.organizations.main, { points: 2500, currency, reference: uniqueRef(currency) }),
        {
          points: 2500,
          currency,
          amount: SIMULATED_PRICES[currency][2500],
        },
      );
    });
  }
});

test.describe("payment method", () => {
  test("omitted → the default method", async ({ request, fx }) => {
    const main = fx.organizations.main;
    await expectPaidNow(await postTopUp(request, main, { points: 100, reference: uniqueRef("default") }), {
      payment_source_id: cardOf(main, "visa").id,
    });
  });

  test("omitted with one saved card that is not the default → that card", async ({ request, fx }) => {
    const org = fx.organizations.singleCard;
    await expectPaidNow(await postTopUp(request, org, { points: 100, reference: uniqueRef("only") }), {
      payment_source_id: cardOf(org, "mastercard").id,
    });
  });

  test("a non-default saved card named by id → that card", async ({ request, fx }) => {
    const main = fx.organizations.main;
    const mastercard = cardOf(main, "mastercard").id;
    await expectPaidNow(
      await postTopUp(request, main, { points: 100, payment_source_id: mastercard, reference: uniqueRef("named") }),
      {
        payment_source_id: mastercard,
      },
    );
  });

  test("omitted with several cards and no default → 422 payment_method_required", async ({ request, fx }) => {
    await expectPlainError(
      await postTopUp(request, fx.organizations.severalNoDefault, { points: 100, reference: uniqueRef("several") }),
      422,
      "payment_method_required",
    );
  });

  test("several cards and no default, one named → that card", async ({ request, fx }) => {
    const org = fx.organizations.severalNoDefault;
    const mastercard = cardOf(org, "mastercard").id;
    await expectPaidNow(
      await postTopUp(request, org, { points: 100, payment_source_id: mastercard, reference: uniqueRef("several") }),
      {
        payment_source_id: mastercard,
      },
    );
  });

  test("no saved card → 422 no_payment_method", async ({ request, fx }) => {
    await expectPlainError(
      await postTopUp(request, fx.organizations.noCards, { points: 100, reference: uniqueRef("none") }),
      422,
      "no_payment_method",
    );
  });

  test("only an expired card, even as the default → 422 no_payment_method", async ({ request, fx }) => {
    await expectPlainError(
      await postTopUp(request, fx.organizations.expiredOnly, { points: 100, reference: uniqueRef("exp") }),
      422,
      "no_payment_method",
    );
  });

  const invalidIds: { name: string; id: (fx: E2eFixtures) => string; org: "main" | "expiredOnly" | "noCards" }[] = [
    { name: "an unknown id", id: () => "pm_sim_doesnotexist0000", org: "main" },
    { name: "an id that is not a payment method", id: (fx) => fx.organizations.main.id, org: "main" },
    {
      name: "the id of a saved but expired card",
      id: (fx) => cardOf(fx.organizations.main, "expired").id,
      org: "main",
    },
    {
      name: "the id of the only (expired) card",
      id: (fx) => cardOf(fx.organizations.expiredOnly, "expired").id,
      org: "expiredOnly",
    },
    { name: "another organisation's card", id: (fx) => cardOf(fx.organizations.other, "visa").id, org: "main" },
    {
      name: "another organisation's card, with no card of its own",
      id: (fx) => cardOf(fx.organizations.other, "visa").id,
      org: "noCards",
    },
    {
      name: "a card id in another case",
      id: (fx) => cardOf(fx.organizations.main, "visa").id.toUpperCase(),
      org: "main",
    },
  ];
  for (const c of invalidIds) {
    test(`${c.name} → 422 invalid_payment_method, never a 403/404 or a hint`, async ({ request, fx }) => {
      const id = c.id(fx);
      const response = await postTopUp(request, fx.organizations[c.org], {
        points: 100,
        payment_source_id: id,
        reference: uniqueRef("pm"),
      });
      const error = await expectPlainError(response, 422, "invalid_payment_method");
      expect(Object.keys(error.details.fields as object)).toEqual(["payment_source_id"]);
      const text = JSON.stringify(error);
      expect(text).not.toContain(fx.organizations.other.id);
      expect(text).not.toContain(id);
    });
  }

  test("another organisation's card and an unknown one are answered alike", async ({ request, fx }) => {
    const main = fx.organizations.main;
    const foreign = await postTopUp(request, main, {
      points: 100,
      payment_source_id: cardOf(fx.organizations.other, "visa").id,
      reference: uniqueRef("a"),
    });
    const unknown = await postTopUp(request, main, {
      points: 100,
      payment_source_id: "pm_sim_doesnotexist0000",
      reference: uniqueRef("b"),
    });
    expect(await expectPlainError(foreign, 422, "invalid_payment_method")).toEqual(
      await expectPlainError(unknown, 422, "invalid_payment_method"),
    );
  });
});

test.describe("the provider cannot list payment methods (simulated outage)", () => {
  test("POST → 502 payment_methods_unavailable with Retry-After", async ({ request, fx }) => {
    const response = await postTopUp(request, fx.organizations.outage, {
      points: 100,
      currency: "USD",
      reference: uniqueRef("outage"),
    });
    await expectPlainError(response, 502, "payment_methods_unavailable");
    expectRetryAfter(response, 3600);
  });

  test("POST naming a card → 502 too, since the card cannot be checked", async ({ request, fx }) => {
    const org = fx.organizations.outage;
    const response = await postTopUp(request, org, {
      points: 100,
      currency: "USD",
      payment_source_id: cardOf(org, "visa").id,
      reference: uniqueRef("outage"),
    });
    await expectPlainError(response, 502, "payment_methods_unavailable");
    expectRetryAfter(response, 3600);
  });

  test("GET → 502 payment_methods_unavailable with Retry-After", async ({ request, fx }) => {
    const response = await getPaymentMethods(request, fx.organizations.outage);
    await expectPlainError(response, 502, "payment_methods_unavailable");
    expectRetryAfter(response, 3600);
  });
});
