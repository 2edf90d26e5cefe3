import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { buyCurrency, getBuyOptions } from "./buy-options";
import { createOrganization } from "./organizations";
import { listUsablePaymentMethods, resolvePaymentMethod } from "./payment-methods";

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
