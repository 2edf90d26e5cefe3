import { describe, expect, it } from "vitest";
import {
  backendsAndProviders,
  completeAuthenticationInDashboard,
  type ProviderTestContext,
} from "@/lib/testing/harness";
import { purchaseSuite } from "@/lib/testing/purchase-suite";
import { getOrganization } from "../accounts/organizations";
import { toTopUpJson } from "../api/json";
import { listUsablePaymentMethods } from "../cards/payment-methods";

describe.each(backendsAndProviders())("purchasePoints on %s with the %s provider", (backend, provider) => {
  let ctx: ProviderTestContext;
  const { newOrg, cardId, buy, pointsError, ledgerRows, paymentsOf, chargesSent } = purchaseSuite(
    backend,
    provider,
    (made) => {
      ctx = made;
    },
  );

  describe("a failed payment", () => {
    it.each([
      ["declined", "card_declined"],
      ["insufficient_funds", "insufficient_funds"],
    ])(
      "with a %s card is failed with code %s, credits nothing, and a replay never charges again",
      async (card, code) => {
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
      },
    );

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
      expect(toTopUpJson(first.topUp).failure).toEqual({
        code: "authentication_required",
        message: expect.any(String),
      });

      const stillWaiting = await buy(orgId, { points: 500, reference: "3ds" });
      expect(stillWaiting.outcome).toBe("awaiting_payment");
      expect(stillWaiting.replayed).toBe(true);
      expect(stillWaiting.topUp.providerPaymentId).toBe(first.topUp.providerPaymentId);
      expect(await ledgerRows(orgId)).toEqual([]);

      const completed = await completeAuthenticationInDashboard(ctx, {
        organizationId: orgId,
        topUpId: first.topUp.id,
        succeed: true,
      });
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

      const completed = await completeAuthenticationInDashboard(ctx, {
        organizationId: orgId,
        topUpId: first.topUp.id,
        succeed: false,
      });
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
        completeAuthenticationInDashboard(ctx, {
          organizationId: other.organization.id,
          topUpId: first.topUp.id,
          succeed: true,
        }),
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
