import type { APIRequestContext } from "@playwright/test";
import { TEST_CARDS, type TestCardKind } from "@/lib/billing/test-cards";
import type { FixtureOrganization } from "../fixtures";
import { expect, test } from "../fixtures";
import {
  cardOf,
  expectPaidNow,
  expectPaymentMethod,
  expectSuccess,
  getPaymentMethods,
  type PaymentMethodJson,
  postTopUp,
  uniqueRef,
} from "../utils";

/** docs/contract.md §2 and §5: usable methods only (no expired card), with the exact fields, default first. */
async function listMethods(
  request: APIRequestContext,
  organization: FixtureOrganization,
): Promise<PaymentMethodJson[]> {
  const data = await expectSuccess(await getPaymentMethods(request, organization), 200);
  expect(Object.keys(data)).toEqual(["payment_methods"]);
  expect(Array.isArray(data.payment_methods)).toBe(true);
  return (data.payment_methods as unknown[]).map((method) => expectPaymentMethod(method));
}

function expectedMethod(organization: FixtureOrganization, kind: TestCardKind): PaymentMethodJson {
  const card = cardOf(organization, kind);
  const year = new Date().getUTCFullYear();
  return {
    id: card.id,
    label: card.label,
    type: "card",
    brand: TEST_CARDS[kind].brand,
    // As provisioned: the simulated card's, or the Stripe test card's behind the kind (docs/contract.md §6).
    last4: card.label.slice(-4),
    exp_month: 12,
    exp_year: year + 4,
    is_default: card.isDefault,
  };
}

test.describe("GET /v3/points/payment-methods", () => {
  test("lists every usable card with exactly the PaymentMethod fields, the default first, the expired card left out", async ({
    request,
    fx,
  }) => {
    const main = fx.organizations.main;
    const methods = await listMethods(request, main);
    const usable: TestCardKind[] = [
      "visa",
      "mastercard",
      "declined",
      "insufficient_funds",
      "authentication_required",
      "processing",
    ];
    expect(methods).toHaveLength(usable.length);
    expect(methods[0]).toEqual(expectedMethod(main, "visa"));
    expect(methods[0]?.label).toBe("Visa •••• 4242");
    expect(methods.filter((method) => method.is_default)).toHaveLength(1);
    expect(new Set(methods.map((method) => method.id))).toEqual(new Set(usable.map((kind) => cardOf(main, kind).id)));
    for (const kind of usable) {
      expect(methods.find((method) => method.id === cardOf(main, kind).id)).toEqual(expectedMethod(main, kind));
    }
    expect(methods.map((method) => method.id)).not.toContain(cardOf(main, "expired").id);
  });

  test("several cards and no default: both listed, none marked default", async ({ request, fx }) => {
    const org = fx.organizations.severalNoDefault;
    const methods = await listMethods(request, org);
    expect(new Set(methods)).toEqual(new Set([expectedMethod(org, "visa"), expectedMethod(org, "mastercard")]));
    expect(methods.every((method) => !method.is_default)).toBe(true);
  });

  test("a single card that is not the default is listed as not default", async ({ request, fx }) => {
    const org = fx.organizations.singleCard;
    expect(await listMethods(request, org)).toEqual([expectedMethod(org, "mastercard")]);
  });

  test("no saved card: an empty list", async ({ request, fx }) => {
    expect(await listMethods(request, fx.organizations.noCards)).toEqual([]);
  });

  test("only an expired card, even as the default: an empty list", async ({ request, fx }) => {
    expect(await listMethods(request, fx.organizations.expiredOnly)).toEqual([]);
  });

  test("each organisation sees only its own methods", async ({ request, fx }) => {
    const mainIds = (await listMethods(request, fx.organizations.main)).map((method) => method.id);
    const otherIds = (await listMethods(request, fx.organizations.other)).map((method) => method.id);
    expect(otherIds).toEqual([cardOf(fx.organizations.other, "visa").id]);
    expect(mainIds.filter((id) => otherIds.includes(id))).toEqual([]);
  });

  test("a purchase with another currency and method changes neither the saved currency nor the default", async ({
    request,
    fx,
  }) => {
    const org = fx.organizations.defaults;
    const visa = cardOf(org, "visa").id;
    const mastercard = cardOf(org, "mastercard").id;

    await expectPaidNow(
      await postTopUp(request, org, {
        points: 250,
        currency: "GBP",
        payment_source_id: mastercard,
        reference: uniqueRef("once"),
      }),
      {
        currency: "GBP",
        payment_source_id: mastercard,
      },
    );
    await expectPaidNow(await postTopUp(request, org, { points: 100, currency: "EUR", reference: uniqueRef("once") }), {
      currency: "EUR",
      payment_source_id: visa,
    });

    const methods = await listMethods(request, org);
    expect(methods[0]).toEqual(expectedMethod(org, "visa"));
    expect(methods[0]?.is_default).toBe(true);
    expect(methods[1]).toEqual(expectedMethod(org, "mastercard"));
    await expectPaidNow(await postTopUp(request, org, { points: 100, reference: uniqueRef("after") }), {
      currency: "USD",
      payment_source_id: visa,
    });
  });
});
