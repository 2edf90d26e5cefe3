import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { createOrganization, updateOrganization } from "../accounts/organizations";
import { listUsablePaymentMethods, resolvePaymentMethod } from "../cards/payment-methods";
import { purchasePoints } from "../purchase";
import { buyCurrency, getBuyOptions } from "./buy-options";

describe.each(backends())("Buy options on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it("offers a priced bundle only within the per-top-up limit, and a bundle over it is never the one chosen", async () => {
    const { organization } = await createOrganization(ctx, {
      name: "Capped Co",
      settings: { maxPointsPerTopUp: 1000 },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    const options = await getBuyOptions(ctx, organization, { currency: "USD", points: 2500 });
    expect(options.bundles.map(({ points, unavailable }) => [points, unavailable])).toEqual([
      [100, null],
      [250, null],
      [500, null],
      [1000, null],
      [2500, "over_limit"],
      [5000, "over_limit"],
      [7500, "over_limit"],
    ]);
    expect(options.bundle).toBeUndefined();
    const within = await getBuyOptions(ctx, organization, { currency: "USD", points: 1000 });
    expect(within.bundle).toMatchObject({ points: 1000, unavailable: null, amount: expect.any(Number) });
  });

  it("starts the picker on the bundle asked for, else the last one bought if it can be bought, else the smallest", async () => {
    const { organization } = await createOrganization(ctx, {
      name: "Habit Co",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    expect((await getBuyOptions(ctx, organization, { currency: "USD" })).preselected).toBe(100);
    for (const [points, reference] of [
      [500, "habit-1"],
      [2500, "habit-2"],
    ] as const) {
      const bought = await purchasePoints(ctx, { organization, request: { points, reference }, source: "dashboard" });
      expect(bought.outcome).toBe("paid_now");
      ctx.clock.advance(60_000);
    }
    expect((await getBuyOptions(ctx, organization, { currency: "USD" })).preselected).toBe(2500);
    expect((await getBuyOptions(ctx, organization, { currency: "USD", points: 250 })).preselected).toBe(250);
    // A declined purchase was not bought: the last paid one still leads.
    const declined = await createOrganization(ctx, {
      name: "Declined Co",
      settings: { currency: "USD" },
      cards: ["declined"],
      defaultCardIndex: 0,
    });
    await purchasePoints(ctx, {
      organization: declined.organization,
      request: { points: 1000, reference: "no" },
      source: "dashboard",
    });
    expect((await getBuyOptions(ctx, declined.organization, { currency: "USD" })).preselected).toBe(100);
    // Once the last one is above the per-top-up limit, the smallest that can be bought.
    const capped = await updateOrganization(ctx, organization.id, { settings: { maxPointsPerTopUp: 1000 } });
    expect((await getBuyOptions(ctx, capped.organization, { currency: "USD" })).preselected).toBe(100);
  });

  it("chooses the card a purchase would: the one asked for if usable, else the default or the only card", async () => {
    const several = await createOrganization(ctx, {
      name: "Cards Co",
      cards: ["visa", "mastercard", "expired"],
      defaultCardIndex: 1,
    });
    const usable = await listUsablePaymentMethods(ctx, several.organization);
    const chosen = await getBuyOptions(ctx, several.organization, { currency: "EUR" });
    expect(chosen.methods).toEqual(usable);
    expect(chosen.method).toEqual(resolvePaymentMethod(usable, undefined));
    expect(chosen.method?.id).toBe(several.paymentMethods[1]?.id);

    const visa = several.paymentMethods[0]?.id ?? "";
    expect((await getBuyOptions(ctx, several.organization, { currency: "EUR", methodId: visa })).method?.id).toBe(visa);
    // An expired card, or another organisation's, is not offered, and nothing else is chosen in its place.
    const other = await createOrganization(ctx, { name: "Other Co", cards: ["visa"], defaultCardIndex: 0 });
    for (const methodId of [several.paymentMethods[2]?.id, other.paymentMethods[0]?.id]) {
      expect((await getBuyOptions(ctx, several.organization, { currency: "EUR", methodId })).method).toBeUndefined();
    }
  });

  it("prices in the currency asked for, else the organisation's saved one, else USD", () => {
    expect(buyCurrency({ currency: "GBP" }, "EUR")).toBe("EUR");
    expect(buyCurrency({ currency: "GBP" }, "eur")).toBe("GBP");
    expect(buyCurrency({ currency: null }, undefined)).toBe("USD");
  });
});
