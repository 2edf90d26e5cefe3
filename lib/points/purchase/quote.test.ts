import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import type { PriceTable } from "@/lib/billing/provider";
import { topUps } from "@/lib/db/schema";
import { backendsAndProviders, type ProviderTestContext, patchProvider, withProvider } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import {
  type CreateOrganizationInput,
  createOrganization,
  type OrganizationSettings,
  requireOrganization,
} from "../accounts/organizations";
import { toQuoteJson } from "../api/json";
import { parseQuoteRequest, type QuoteRequest, type TopUpRequest } from "../api/top-up-request";
import { getBalance } from "../balance/balance";
import { PointsError } from "../errors";
import type { Services } from "../services";
import { type PurchaseResult, purchasePoints, quotePurchase } from "./";

async function pointsError(run: () => Promise<unknown>): Promise<PointsError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof PointsError) return error;
    throw error;
  }
  throw new Error("Expected a PointsError, but it succeeded.");
}

describe("parseQuoteRequest", () => {
  it("takes a purchase's fields but its reference", () => {
    expect(parseQuoteRequest({ points: 250, currency: "EUR", payment_source_id: "pm_1" })).toEqual({
      points: 250,
      currency: "EUR",
      paymentSourceId: "pm_1",
    });
    expect(parseQuoteRequest({ points: 100, currency: null, payment_source_id: null })).toEqual({ points: 100 });
  });

  it("refuses a reference like any unknown field, naming every offending field at once", async () => {
    const error = await pointsError(async () =>
      parseQuoteRequest({ points: 99, currency: "usd", reference: "order-1", price: 1 }),
    );
    expect([error.code, error.status]).toEqual(["invalid_request", 422]);
    expect(Object.keys(error.details.fields as object).sort()).toEqual(["currency", "points", "price", "reference"]);
    expect((error.details.fields as Record<string, string>).reference).toMatch(/quote buys nothing/);
    expect((await pointsError(async () => parseQuoteRequest([]))).details.fields).toEqual({
      body: "must be a JSON object",
    });
  });
});

describe.each(backendsAndProviders())("a quote on %s with the %s provider", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function newOrg(
    settings: OrganizationSettings = {},
    input: Omit<CreateOrganizationInput, "name" | "settings"> = {},
  ) {
    const created = await createOrganization(ctx, {
      name: "Quote Ltd",
      cards: ["visa", "mastercard", "declined"],
      defaultCardIndex: 0,
      ...input,
      settings: { apiPurchasesEnabled: true, currency: "USD", ...settings },
    });
    track(created.organization.id);
    return created;
  }

  const organization = (id: string) => requireOrganization(ctx.db, id);

  async function quote(id: string, request: QuoteRequest, services: Services = ctx) {
    return toQuoteJson(await quotePurchase(services, await organization(id), request));
  }

  async function buy(id: string, request: TopUpRequest, services: Services = ctx): Promise<PurchaseResult> {
    return purchasePoints(services, { organization: await organization(id), request, source: "api" });
  }

  /** Both the quote and the purchase refuse, with the same code, status, Retry-After and details. */
  async function expectSameRefusal(id: string, request: QuoteRequest, services: Services = ctx): Promise<PointsError> {
    const quoted = await pointsError(() => quote(id, request, services));
    const bought = await pointsError(() => buy(id, { ...request, reference: `ref-${Math.random()}` }, services));
    expect({
      code: quoted.code,
      status: quoted.status,
      retryAfter: quoted.retryAfterSeconds,
      details: quoted.details,
    }).toEqual({
      code: bought.code,
      status: bought.status,
      retryAfter: bought.retryAfterSeconds,
      details: bought.details,
    });
    return quoted;
  }

  async function recorded(id: string) {
    return (await ctx.db.select({ id: topUps.id }).from(topUps).where(eq(topUps.organizationId, id))).length;
  }

  it("answers what the purchase would charge, with which method, and the balance it would leave", async () => {
    const created = await newOrg();
    const id = created.organization.id;
    const [visa, mastercard] = created.paymentMethods;
    expect((await buy(id, { points: 100, reference: "first" })).outcome).toBe("paid_now");

    expect(await quote(id, { points: 250 })).toEqual({
      points: 250,
      currency: "USD",
      amount: SIMULATED_PRICES.USD[250],
      payment_source_id: visa?.id,
      payment_method: expect.objectContaining({ id: visa?.id, label: visa?.label, is_default: true }),
      points_balance_after: 350,
      // No expiry set for the organisation: the Points would never expire.
      points_expire_at: null,
    });
    // The request's currency and card, for this quote only.
    expect(await quote(id, { points: 5000, currency: "EUR", paymentSourceId: mastercard?.id })).toMatchObject({
      currency: "EUR",
      amount: SIMULATED_PRICES.EUR[5000],
      payment_source_id: mastercard?.id,
      payment_method: { id: mastercard?.id, label: mastercard?.label, is_default: false },
    });
    // The purchase it describes charges exactly that.
    const bought = await buy(id, {
      points: 5000,
      currency: "EUR",
      paymentSourceId: mastercard?.id,
      reference: "second",
    });
    expect([bought.topUp.amount, bought.topUp.paymentSourceId, bought.pointsBalance]).toEqual([
      SIMULATED_PRICES.EUR[5000],
      mastercard?.id,
      5100,
    ]);
  });

  it("refuses as the purchase does when the currency or the payment method cannot be resolved", async () => {
    const noCurrency = await newOrg({ currency: null });
    // Step 5 before step 6: an unknown card is not looked at while the currency is missing.
    const currency = await expectSameRefusal(noCurrency.organization.id, { points: 100, paymentSourceId: "pm_nope" });
    expect([currency.code, currency.status]).toEqual(["currency_required", 422]);

    const org = await newOrg();
    const unknown = await expectSameRefusal(org.organization.id, { points: 100, paymentSourceId: "pm_not_ours" });
    expect([unknown.code, unknown.status]).toEqual(["invalid_payment_method", 422]);

    const noCards = await newOrg({}, { cards: [], defaultCardIndex: undefined });
    expect((await expectSameRefusal(noCards.organization.id, { points: 100 })).code).toBe("no_payment_method");

    const noDefault = await newOrg({}, { defaultCardIndex: undefined });
    expect((await expectSameRefusal(noDefault.organization.id, { points: 100 })).code).toBe("payment_method_required");

    const down = await newOrg();
    await ctx.probe.setOutage(down.organization.billingCustomerId, true);
    const outage = await expectSameRefusal(down.organization.id, { points: 100 });
    expect([outage.code, outage.status]).toEqual(["payment_methods_unavailable", 502]);
    await ctx.probe.setOutage(down.organization.billingCustomerId, false);
  });

  it("refuses as the purchase does at each limit, in the purchase's order, then at a missing price", async () => {
    const created = await newOrg({
      maxPointsPerTopUp: 1000,
      maxPointsBalance: 1100,
      frequencyLimit: { count: 2, windowSeconds: 600 },
      dailyPointsLimit: 800,
    });
    const id = created.organization.id;
    expect((await buy(id, { points: 500, reference: "a" })).outcome).toBe("paid_now");

    // The method is resolved before any limit; then a bundle over the per-top-up maximum, past the
    // balance cap and the day, is refused by the per-top-up limit, the first of them.
    expect((await expectSameRefusal(id, { points: 2500, paymentSourceId: "pm_unknown" })).code).toBe(
      "invalid_payment_method",
    );
    const big = await expectSameRefusal(id, { points: 2500 });
    expect([big.code, big.details.limit]).toEqual(["limit_exceeded", "max_points_per_top_up"]);
    const cap = await expectSameRefusal(id, { points: 1000 });
    expect([cap.code, cap.details.limit]).toEqual(["limit_exceeded", "max_points_balance"]);

    // The day has 300 Points left: 500 more is a 429, with the purchase's own Retry-After.
    const day = await expectSameRefusal(id, { points: 500 });
    expect([day.code, day.status, day.retryAfterSeconds]).toEqual(["daily_limit_reached", 429, 24 * 3600]);

    // A failed purchase fills the frequency window: frequency answers before the day.
    const declined = created.paymentMethods[2]?.id;
    expect((await buy(id, { points: 100, reference: "b", paymentSourceId: declined })).outcome).toBe("failed");
    ctx.clock.advance(60_000);
    const often = await expectSameRefusal(id, { points: 500 });
    expect([often.code, often.status, often.retryAfterSeconds]).toEqual(["frequency_limit_reached", 429, 540]);
    // And the time it names is the balance's next_purchase_at.
    const balance = await getBalance(ctx.db, await organization(id), ctx.clock.now());
    expect(balance.nextPurchaseAt.getTime()).toBe(ctx.clock.now().getTime() + 540_000);
  });

  it("refuses a bundle with no price in the currency after every limit, as the purchase does", async () => {
    const created = await newOrg({ currency: "GBP", frequencyLimit: { count: 1, windowSeconds: 600 } });
    const id = created.organization.id;
    const prices: PriceTable = { ...SIMULATED_PRICES, GBP: { ...SIMULATED_PRICES.GBP } };
    delete prices.GBP[7500];
    const services = withProvider(ctx, patchProvider(ctx.provider, { getPrices: async () => prices }));
    const missing = await expectSameRefusal(id, { points: 7500 }, services);
    expect([missing.code, missing.status]).toEqual(["currency_not_available", 422]);
    expect(await quote(id, { points: 7500, currency: "USD" }, services)).toMatchObject({
      amount: SIMULATED_PRICES.USD[7500],
    });
  });

  it("charges nothing, records nothing and counts toward no limit: the purchase after it behaves as if it never happened", async () => {
    const created = await newOrg({
      maxPointsBalance: 500,
      frequencyLimit: { count: 1, windowSeconds: 3600 },
      dailyPointsLimit: 500,
    });
    const id = created.organization.id;
    for (let i = 0; i < 5; i++) expect((await quote(id, { points: 500 })).points_balance_after).toBe(500);
    expect(await recorded(id)).toBe(0);
    expect(await ctx.probe.countPayments(created.organization.billingCustomerId)).toBe(0);
    expect(ctx.probe.chargeRequests(created.organization.billingCustomerId)).toEqual([]);
    const balance = await getBalance(ctx.db, await organization(id), ctx.clock.now());
    expect([balance.limits.frequency.used, balance.limits.daily.used, balance.limits.balance.used]).toEqual([0, 0, 0]);

    // The one purchase the frequency limit allows is still free, and the quote after it sees it used.
    expect((await buy(id, { points: 500, reference: "after-quotes" })).outcome).toBe("paid_now");
    expect((await pointsError(() => quote(id, { points: 100 }))).code).toBe("limit_exceeded");
    expect(await recorded(id)).toBe(1);
  });
});
