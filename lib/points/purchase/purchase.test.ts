import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import type { PriceTable } from "@/lib/billing/provider";
import { BUNDLES, CURRENCIES } from "@/lib/catalog";
import { topUps } from "@/lib/db/schema";
import { backendsAndProviders, type ProviderTestContext, patchProvider, withProvider } from "@/lib/testing/harness";
import { purchaseSuite } from "@/lib/testing/purchase-suite";
import { getOrganization } from "../accounts/organizations";
import { toTopUpJson } from "../api/json";
import type { TopUpRequest } from "../api/top-up-request";

// The Stripe test server is priced as `npm run points -- stripe setup-prices` prices it: SIMULATED_PRICES.
describe.each(backendsAndProviders())("purchasePoints on %s with the %s provider", (backend, provider) => {
  let ctx: ProviderTestContext;
  const { newOrg, cardId, buy, pointsError, ledgerRows, paymentsOf, chargesSent } = purchaseSuite(
    backend,
    provider,
    (made) => {
      ctx = made;
    },
  );

  describe("a new purchase", () => {
    it("is paid now: the Points are credited once and the balance, ledger and organisation agree", async () => {
      const created = await newOrg();
      const result = await buy(created.organization.id, { points: 250, reference: "first" });

      expect(result.outcome).toBe("paid_now");
      expect(result.replayed).toBe(false);
      expect(result.pointsBalance).toBe(250);
      expect(result.topUp).toMatchObject({
        reference: "first",
        points: 250,
        currency: "USD",
        amount: SIMULATED_PRICES.USD[250],
        paymentSourceId: cardId(created, 0),
        status: "paid",
        source: "api",
        failureCode: null,
        paidAt: ctx.clock.now(),
      });
      expect(result.topUp.id).toMatch(/^tu_/);
      expect(result.topUp.providerPaymentId).toMatch(/^pi_/);
      expect(toTopUpJson(result.topUp).failure).toBeNull();

      const ledger = await ledgerRows(created.organization.id);
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ topUpId: result.topUp.id, delta: 250, balanceAfter: 250 });
      expect((await getOrganization(ctx.db, created.organization.id))?.pointsBalance).toBe(250);
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(1);

      // One charge, under the purchase's own key, for the provider's price, and its payment recorded.
      const customerId = created.organization.billingCustomerId;
      expect(ctx.probe.chargeRequests(customerId)).toEqual([
        {
          idempotencyKey: `topup_${result.topUp.id}`,
          customerId,
          paymentMethodId: cardId(created, 0),
          amount: SIMULATED_PRICES.USD[250],
          currency: "USD",
          metadata: { top_up_id: result.topUp.id, organization_id: created.organization.id, reference: "first" },
        },
      ]);
      expect(result.topUp.providerIdempotencyKey).toBe(`topup_${result.topUp.id}`);
      expect(await ctx.probe.payment(result.topUp.providerPaymentId ?? "")).toMatchObject({
        state: "succeeded",
        topUpId: result.topUp.id,
        customerId,
        paymentMethodId: cardId(created, 0),
        amount: SIMULATED_PRICES.USD[250],
        currency: "USD",
      });
    });

    it("adds to an existing balance and records the balance after each credit", async () => {
      const created = await newOrg();
      await buy(created.organization.id, { points: 100, reference: "a" });
      const second = await buy(created.organization.id, { points: 500, reference: "b" });
      expect(second.pointsBalance).toBe(600);
      const ledger = await ledgerRows(created.organization.id);
      expect(ledger.map((row) => row.balanceAfter).sort((x, y) => x - y)).toEqual([100, 600]);
    });

    it("records a dashboard purchase with source 'dashboard'", async () => {
      const created = await newOrg();
      const result = await buy(created.organization.id, { points: 100, reference: "from-ui" }, { source: "dashboard" });
      expect(result.topUp.source).toBe("dashboard");
      expect(toTopUpJson(result.topUp).source).toBe("dashboard");
    });

    it.each(CURRENCIES.map((currency) => [currency]))(
      "charges every bundle in %s at exactly the provider's price",
      async (currency) => {
        const created = await newOrg();
        for (const points of BUNDLES) {
          const result = await buy(created.organization.id, { points, currency, reference: `${currency}-${points}` });
          expect(result.outcome).toBe("paid_now");
          expect({ currency: result.topUp.currency, amount: result.topUp.amount }).toEqual({
            currency,
            amount: SIMULATED_PRICES[currency][points],
          });
          const [sent] = ctx.probe.chargeRequests(created.organization.billingCustomerId).slice(-1);
          expect(sent?.idempotencyKey).toBe(result.topUp.providerIdempotencyKey);
          const payment = await ctx.probe.payment(result.topUp.providerPaymentId ?? "");
          expect({ amount: payment?.amount, currency: payment?.currency }).toEqual({
            amount: SIMULATED_PRICES[currency][points],
            currency,
          });
        }
      },
    );

    it("answers currency_not_available when the provider has no price, with no top-up and no charge", async () => {
      const created = await newOrg({ settings: { currency: "GBP" } });
      const prices: PriceTable = { ...SIMULATED_PRICES, GBP: { ...SIMULATED_PRICES.GBP } };
      delete prices.GBP[7500];
      const services = withProvider(ctx, patchProvider(ctx.provider, { getPrices: async () => prices }));

      const error = await pointsError(() =>
        buy(created.organization.id, { points: 7500, reference: "big" }, { services }),
      );
      expect(error.code).toBe("currency_not_available");
      expect(error.status).toBe(422);
      expect(error.details).toMatchObject({ points: 7500, currency: "GBP" });
      expect(await ctx.db.select().from(topUps).where(eq(topUps.organizationId, created.organization.id))).toEqual([]);
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(0);

      // The same bundle in a priced currency, and another bundle in GBP, still sell through the same provider.
      const usd = await buy(created.organization.id, { points: 7500, currency: "USD", reference: "big" }, { services });
      expect(usd.outcome).toBe("paid_now");
      const gbp = await buy(created.organization.id, { points: 5000, reference: "smaller" }, { services });
      expect(gbp.topUp.amount).toBe(SIMULATED_PRICES.GBP[5000]);
    });
  });

  describe("a replay with the same reference", () => {
    it("never charges again and answers the same paid top-up", async () => {
      const created = await newOrg();
      const first = await buy(created.organization.id, { points: 100, reference: "once" });
      ctx.clock.advance(5_000);
      const again = await buy(created.organization.id, { points: 100, reference: "once" });

      expect(again.outcome).toBe("paid");
      expect(again.replayed).toBe(true);
      expect(again.pointsBalance).toBe(100);
      expect(toTopUpJson(again.topUp)).toEqual(toTopUpJson(first.topUp));
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(1);
      expect(chargesSent(created.organization.billingCustomerId)).toBe(1);
    });

    it("is the same purchase when the omitted currency and method resolve to the values sent now", async () => {
      const created = await newOrg();
      const first = await buy(created.organization.id, { points: 100, reference: "resolved" });
      const again = await buy(created.organization.id, {
        points: 100,
        reference: "resolved",
        currency: "USD",
        paymentSourceId: cardId(created, 0),
      });
      expect(again.outcome).toBe("paid");
      expect(again.topUp.id).toBe(first.topUp.id);
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(1);
    });

    it.each([
      ["points", { points: 250 }],
      ["currency", { currency: "EUR" }],
      ["payment method", { paymentSourceId: "second-card" }],
    ] as const)("with different %s is a reference_conflict and charges nothing", async (_label, change) => {
      const created = await newOrg({ cards: ["visa", "mastercard"], defaultCardIndex: 0 });
      const first = await buy(created.organization.id, { points: 100, reference: "conflict" });
      const request: TopUpRequest = { points: 100, reference: "conflict", ...change };
      if (request.paymentSourceId === "second-card") request.paymentSourceId = cardId(created, 1);

      const conflict = await buy(created.organization.id, request);
      expect(conflict.outcome).toBe("reference_conflict");
      expect(conflict.replayed).toBe(true);
      expect(conflict.topUp.id).toBe(first.topUp.id);
      expect(conflict.topUp).toMatchObject({ points: 100, currency: "USD", paymentSourceId: cardId(created, 0) });
      expect(conflict.pointsBalance).toBe(100);
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(1);
    });

    it("with different points is a reference_conflict even while the first is unresolved, and does not settle it", async () => {
      const created = await newOrg({ cards: ["processing"] });
      const first = await buy(created.organization.id, { points: 100, reference: "pending-conflict" });
      expect(first.outcome).toBe("unresolved");
      const conflict = await buy(created.organization.id, { points: 500, reference: "pending-conflict" });
      expect(conflict.outcome).toBe("reference_conflict");
      expect(conflict.topUp.status).toBe("processing");
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(1);
    });
  });

  describe("references", () => {
    it("are per organisation: the same reference in two organisations is two purchases with distinct provider keys", async () => {
      const a = await newOrg();
      const b = await newOrg();
      const inA = await buy(a.organization.id, { points: 100, reference: "shared-ref" });
      const inB = await buy(b.organization.id, { points: 100, reference: "shared-ref" });
      expect([inA.outcome, inB.outcome]).toEqual(["paid_now", "paid_now"]);
      expect(inA.topUp.id).not.toBe(inB.topUp.id);
      expect(inA.topUp.providerIdempotencyKey).not.toBe(inB.topUp.providerIdempotencyKey);
      expect(await paymentsOf(a.organization.billingCustomerId)).toBe(1);
      expect(await paymentsOf(b.organization.billingCustomerId)).toBe(1);
    });

    it("are case-sensitive: 'Order-1' and 'order-1' are two purchases", async () => {
      const created = await newOrg();
      const upper = await buy(created.organization.id, { points: 100, reference: "Order-1" });
      const lower = await buy(created.organization.id, { points: 250, reference: "order-1" });
      expect([upper.outcome, lower.outcome]).toEqual(["paid_now", "paid_now"]);
      expect(lower.pointsBalance).toBe(350);
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(2);
    });
  });
});
