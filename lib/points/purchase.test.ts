import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { PriceTable } from "@/lib/billing/provider";
import { SIMULATED_PRICES } from "@/lib/billing/simulated";
import { pointsLedger, topUps } from "@/lib/db/schema";
import {
  backendsAndProviders,
  completeAuthenticationInDashboard,
  expectPointsError,
  patchProvider,
  type ProviderTestContext,
  withProvider,
} from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { BUNDLES, CURRENCIES } from "./catalog";
import { createOrganization, type CreateOrganizationInput, getOrganization } from "./organizations";
import { listUsablePaymentMethods } from "./payment-methods";
import { type PurchaseResult, purchasePoints } from "./purchase";
import type { Services } from "./services";
import { toTopUpJson } from "./top-up-json";
import type { TopUpRequest } from "./top-up-request";

// The Stripe test server is priced as `npm run points -- stripe setup-prices` prices it: SIMULATED_PRICES.
describe.each(backendsAndProviders())("purchasePoints on %s with the %s provider", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function newOrg(input: Omit<CreateOrganizationInput, "name"> = {}) {
    const created = await createOrganization(ctx, {
      name: "Purchase Co",
      cards: ["visa"],
      defaultCardIndex: 0,
      ...input,
      settings: { apiPurchasesEnabled: true, currency: "USD", ...input.settings },
    });
    track(created.organization.id);
    return created;
  }

  function cardId(created: { paymentMethods: { id: string }[] }, index: number): string {
    const found = created.paymentMethods[index];
    if (!found) throw new Error(`No card at index ${index}`);
    return found.id;
  }

  function buy(
    organizationId: string,
    request: TopUpRequest,
    options: { source?: "api" | "dashboard"; services?: Services } = {},
  ): Promise<PurchaseResult> {
    return (async () => {
      // The organisation is read fresh, as the REST layer does on every request.
      const organization = await getOrganization(ctx.db, organizationId);
      if (!organization) throw new Error(`No organisation ${organizationId}`);
      return purchasePoints(options.services ?? ctx, { organization, request, source: options.source ?? "api" });
    })();
  }

  const pointsError = expectPointsError;

  async function ledgerRows(organizationId: string) {
    return ctx.db.select().from(pointsLedger).where(eq(pointsLedger.organizationId, organizationId));
  }

  async function paymentsOf(customerId: string): Promise<number> {
    return ctx.probe.countPayments(customerId);
  }

  /** Charge requests that reached the provider for this customer: a replay must send none. */
  function chargesSent(customerId: string): number {
    return ctx.probe.chargeRequests(customerId).length;
  }

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

      const error = await pointsError(() => buy(created.organization.id, { points: 7500, reference: "big" }, { services }));
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

  describe("a failed payment", () => {
    it.each([
      ["declined", "card_declined"],
      ["insufficient_funds", "insufficient_funds"],
    ])("with a %s card is failed with code %s, credits nothing, and a replay never charges again", async (card, code) => {
      const created = await newOrg({ cards: [card] });
      const result = await buy(created.organization.id, { points: 100, reference: "doomed" });

      expect(result.outcome).toBe("failed");
      expect(result.pointsBalance).toBe(0);
      expect(result.topUp).toMatchObject({ status: "failed", failureCode: code, paidAt: null });
      expect(toTopUpJson(result.topUp).failure).toEqual({ code, message: expect.stringMatching(/\w/) });

      const replay = await buy(created.organization.id, { points: 100, reference: "doomed" });
      expect(replay.outcome).toBe("failed");
      expect(replay.replayed).toBe(true);
      expect(replay.topUp.id).toBe(result.topUp.id);
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(1);
      expect(chargesSent(created.organization.billingCustomerId)).toBe(1);
      expect(await ledgerRows(created.organization.id)).toEqual([]);
    });

    it("needs a new reference: a new reference on a working card is a new, paid purchase", async () => {
      const created = await newOrg({ cards: ["declined", "visa"], defaultCardIndex: 0 });
      await buy(created.organization.id, { points: 100, reference: "try-1" });
      const retry = await buy(created.organization.id, {
        points: 100,
        reference: "try-2",
        paymentSourceId: cardId(created, 1),
      });
      expect(retry.outcome).toBe("paid_now");
      expect(retry.pointsBalance).toBe(100);
    });
  });

  describe("a payment that needs authentication", () => {
    it("awaits payment, stays awaiting on replay, and once authenticated is credited exactly once", async () => {
      const created = await newOrg({ cards: ["authentication_required"] });
      const orgId = created.organization.id;
      const first = await buy(orgId, { points: 500, reference: "3ds" });

      expect(first.outcome).toBe("awaiting_payment");
      expect(first.pointsBalance).toBe(0);
      expect(first.topUp.status).toBe("awaiting_payment");
      expect(first.topUp.providerPaymentId).toMatch(/^pi_/);
      expect(toTopUpJson(first.topUp).failure).toEqual({ code: "authentication_required", message: expect.any(String) });

      const stillWaiting = await buy(orgId, { points: 500, reference: "3ds" });
      expect(stillWaiting.outcome).toBe("awaiting_payment");
      expect(stillWaiting.replayed).toBe(true);
      expect(stillWaiting.topUp.providerPaymentId).toBe(first.topUp.providerPaymentId);
      expect(await ledgerRows(orgId)).toEqual([]);

      const completed = await completeAuthenticationInDashboard(ctx, { organizationId: orgId, topUpId: first.topUp.id, succeed: true });
      expect(completed.outcome).toBe("paid_now");
      expect(completed.topUp.providerPaymentId).toBe(first.topUp.providerPaymentId);
      expect(completed.pointsBalance).toBe(500);
      expect(completed.topUp.status).toBe("paid");
      expect(toTopUpJson(completed.topUp).failure).toBeNull();

      const afterwards = await buy(orgId, { points: 500, reference: "3ds" });
      expect(afterwards.outcome).toBe("paid");
      expect(afterwards.pointsBalance).toBe(500);
      expect(await ledgerRows(orgId)).toHaveLength(1);
      // The cardholder finished the SAME payment: no second charge was ever sent.
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(1);
      expect(chargesSent(created.organization.billingCustomerId)).toBe(1);
    });

    it("fails for good when authentication fails: no credit, and a replay answers failed without charging", async () => {
      const created = await newOrg({ cards: ["authentication_required"] });
      const orgId = created.organization.id;
      const first = await buy(orgId, { points: 100, reference: "3ds-no" });

      const completed = await completeAuthenticationInDashboard(ctx, { organizationId: orgId, topUpId: first.topUp.id, succeed: false });
      expect(completed.outcome).toBe("failed");
      expect(completed.topUp).toMatchObject({ status: "failed", failureCode: "authentication_failed", paidAt: null });
      expect(completed.pointsBalance).toBe(0);

      const replay = await buy(orgId, { points: 100, reference: "3ds-no" });
      expect(replay.outcome).toBe("failed");
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(1);
      expect(chargesSent(created.organization.billingCustomerId)).toBe(1);
    });

    it("cannot be completed from another organisation", async () => {
      const created = await newOrg({ cards: ["authentication_required"] });
      const other = await newOrg();
      const first = await buy(created.organization.id, { points: 100, reference: "mine" });
      const error = await pointsError(() =>
        completeAuthenticationInDashboard(ctx, { organizationId: other.organization.id, topUpId: first.topUp.id, succeed: true }),
      );
      expect(error.code).toBe("not_found");
      expect((await buy(created.organization.id, { points: 100, reference: "mine" })).outcome).toBe("awaiting_payment");
    });
  });

  describe("a payment still processing", () => {
    it("is unresolved at first, paid now on retry, and paid (not paid again) on a further retry", async () => {
      const created = await newOrg({ cards: ["processing"] });
      const orgId = created.organization.id;

      const first = await buy(orgId, { points: 250, reference: "slow" });
      expect(first.outcome).toBe("unresolved");
      expect(first.topUp.status).toBe("processing");
      expect(first.pointsBalance).toBe(0);
      expect(toTopUpJson(first.topUp).failure).toBeNull();

      const retry = await buy(orgId, { points: 250, reference: "slow" });
      expect(retry.outcome).toBe("paid_now");
      expect(retry.replayed).toBe(true);
      expect(retry.topUp.id).toBe(first.topUp.id);
      expect(retry.pointsBalance).toBe(250);

      const further = await buy(orgId, { points: 250, reference: "slow" });
      expect(further.outcome).toBe("paid");
      expect(further.pointsBalance).toBe(250);
      expect(await paymentsOf(created.organization.billingCustomerId)).toBe(1);
      // The retry asked about the same payment; it never sent the charge again.
      expect(chargesSent(created.organization.billingCustomerId)).toBe(1);
    });
  });

  describe("the organisation's saved defaults", () => {
    it("never change because a request named a currency or a payment method", async () => {
      const created = await newOrg({ cards: ["visa", "mastercard"], defaultCardIndex: 0 });
      const orgId = created.organization.id;
      const result = await buy(orgId, {
        points: 100,
        reference: "explicit",
        currency: "GBP",
        paymentSourceId: cardId(created, 1),
      });
      expect(result.topUp).toMatchObject({ currency: "GBP", paymentSourceId: cardId(created, 1) });

      expect((await getOrganization(ctx.db, orgId))?.currency).toBe("USD");
      const methods = await listUsablePaymentMethods(ctx, created.organization);
      expect(methods.filter((m) => m.isDefault).map((m) => m.id)).toEqual([cardId(created, 0)]);

      // And the next purchase without them uses the saved values again.
      const next = await buy(orgId, { points: 100, reference: "implicit" });
      expect(next.topUp).toMatchObject({ currency: "USD", paymentSourceId: cardId(created, 0) });
    });
  });
});

