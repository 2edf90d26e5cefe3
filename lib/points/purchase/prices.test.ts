import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { BUNDLES } from "@/lib/catalog";
import { backends, createTestContext, patchProvider, type TestContext, withProvider } from "@/lib/testing/harness";
import { PointsError } from "../errors";
import { getBundlePrices } from "./prices";

describe.each(backends())("bundle prices (%s)", (backend) => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it("shows all seven bundles at the provider's price in the chosen currency", async () => {
    for (const currency of ["USD", "GBP", "EUR"] as const) {
      const prices = await getBundlePrices(ctx, currency);
      expect(prices.map((price) => price.points)).toEqual([...BUNDLES]);
      expect(prices.map((price) => price.amount)).toEqual(BUNDLES.map((points) => SIMULATED_PRICES[currency][points]));
    }
  });

  it("marks a bundle the provider has no price for as unavailable rather than inventing one", async () => {
    const provider = patchProvider(ctx.provider, {
      getPrices: async () => ({ ...SIMULATED_PRICES, GBP: { 100: 800 } }),
    });
    const prices = await getBundlePrices(withProvider(ctx, provider), "GBP");
    expect(prices[0]).toEqual({ points: 100, amount: 800 });
    expect(prices.slice(1).every((price) => price.amount === null)).toBe(true);
  });

  it("answers a pricing outage with the retryable payment_methods_unavailable error", async () => {
    const provider = patchProvider(ctx.provider, {
      getPrices: async () => {
        throw new Error("connect ETIMEDOUT (injected)");
      },
    });
    const error = await getBundlePrices(withProvider(ctx, provider), "USD").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PointsError);
    expect((error as PointsError).code).toBe("payment_methods_unavailable");
  });
});
