import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BillingProvider } from "@/lib/billing/provider";
import { SimulatedBillingProvider } from "@/lib/billing/simulated/provider";
import { balances, organizationWith, paidPurchase, quietly, refundRows, topUpNow } from "@/lib/testing/after-payment";
import {
  backendsAndProviders,
  completeAuthenticationInDashboard,
  expectPointsError,
  faultyProvider,
  type ProviderTestContext,
  patchProvider,
  startStripeTestProvider,
  withProvider,
} from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { refundTopUp } from "../after-payment/refunds";
import type { Services } from "../services";
import { purchasePoints, reconcileTopUps, resolveTopUp, unresolvedChargedElsewhere } from "./";

/** What each provider needs, as the refusal says it to the operator. */
const NEEDED = {
  stripe: /was charged through Stripe; set STRIPE_SECRET_KEY \(and STRIPE_API_URL for a test server\) to/,
  simulated: /was charged through the simulated billing provider; unset STRIPE_SECRET_KEY to/,
};

/** Every call that asks a provider about an existing payment. */
const ASKING = [
  "charge",
  "retrievePayment",
  "describePayment",
  "findPayment",
  "cancelPayment",
  "refund",
  "listRefunds",
  "retrieveDispute",
  "beginAuthentication",
] as const;

/*
 * A purchase remembers the provider that charged it, and only that provider is asked about it: an
 * instance (or an operator's command) configured with the other one refuses to refund, settle or
 * complete it, its reconciler skips it, and a client's retry is answered from what is stored; none
 * of them records anything or asks the wrong provider. On both providers and both databases.
 */
describe.each(backendsAndProviders())(
  "only the provider that charged a purchase is asked about it (%s, %s provider)",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });
    /** The other provider, every asking call recorded and refused. */
    let wrong: Services;
    const asked: string[] = [];
    let closeOther = async () => {};

    beforeAll(async () => {
      let other: BillingProvider;
      if (provider === "stripe") {
        other = new SimulatedBillingProvider(ctx.db, ctx.clock);
      } else {
        const started = await startStripeTestProvider(ctx.clock);
        other = started.provider;
        closeOther = started.close;
      }
      const refuse = (method: string) => async () => {
        asked.push(method);
        throw new Error(`the wrong provider was asked: ${method}`);
      };
      const overrides: Partial<BillingProvider> = Object.fromEntries(
        ASKING.filter((method) => typeof other[method] === "function").map((method) => [method, refuse(method)]),
      );
      const testMode = other.testMode && {
        ...other.testMode,
        ...(other.testMode.completeAuthentication ? { completeAuthentication: refuse("completeAuthentication") } : {}),
      };
      wrong = withProvider(ctx, patchProvider(other, { ...overrides, testMode }));
    });
    afterAll(async () => {
      await closeOther();
    });

    it("records the provider that charged each purchase", async () => {
      const made = await organizationWith(ctx, ["visa"], track);
      const topUp = await paidPurchase(ctx, made, 100);
      expect(topUp.provider).toBe(provider);
    });

    it("refuses a refund through the other provider, saying which it needs, recording nothing; its own provider refunds it", async () => {
      asked.length = 0;
      const made = await organizationWith(ctx, ["visa"], track);
      const topUp = await paidPurchase(ctx, made, 500);
      const refused = await expectPointsError(() =>
        refundTopUp(wrong, { topUpId: topUp.id, reason: "wrong terminal" }),
      );
      expect(refused.code).toBe("billing_provider_mismatch");
      expect(refused.status).toBe(409);
      expect(refused.message).toMatch(NEEDED[provider]);
      expect(refused.message).toMatch(new RegExp(`^Top-up ${topUp.id} was charged through .* to refund it\\.$`));
      // The same again with a key of its own: still refused, still nothing recorded.
      expect((await expectPointsError(() => refundTopUp(wrong, { topUpId: topUp.id, key: "ticket-1" }))).code).toBe(
        "billing_provider_mismatch",
      );
      expect(await refundRows(ctx, topUp.id)).toEqual([]);
      expect(asked).toEqual([]);

      const refunded = await refundTopUp(ctx, { topUpId: topUp.id, reason: "right terminal" });
      expect(refunded).toMatchObject({ outcome: "succeeded", replayed: false, pointsBalance: 0 });
      expect(refunded.refund).toMatchObject({ points: 500, reason: "right terminal" });
    });

    it("settles an unresolved purchase only through its own provider: refused, skipped by the reconciler, a retry answered as stored", async () => {
      asked.length = 0;
      const made = await organizationWith(ctx, ["visa"], track);
      const request = { points: 250 as const, reference: `lost-answer-${provider}` };
      // The charge is made, and its answer lost: the purchase stays unresolved.
      const lost = await quietly(() =>
        purchasePoints(withProvider(ctx, faultyProvider(ctx.provider, ["execute_then_throw"])), {
          organization: made.organization,
          request,
          source: "api",
        }),
      );
      expect(lost.outcome).toBe("unresolved");
      const before = await topUpNow(ctx, lost.topUp.id);

      const refused = await expectPointsError(() => resolveTopUp(wrong, lost.topUp.id));
      expect(refused.code).toBe("billing_provider_mismatch");
      expect(refused.message).toMatch(NEEDED[provider]);
      expect(refused.message).toMatch(/to settle it\.$/);

      const reconciled = await reconcileTopUps(wrong, { ignoreBackoff: true });
      expect(reconciled.map((result) => result.topUp.id)).not.toContain(lost.topUp.id);
      expect((await unresolvedChargedElsewhere(wrong)).map((topUp) => topUp.id)).toContain(lost.topUp.id);

      // The client's retry on an instance with the other provider: 409 payment_unresolved, as stored.
      const retried = await quietly(() =>
        purchasePoints(wrong, { organization: made.organization, request, source: "api" }),
      );
      expect(retried).toMatchObject({ outcome: "unresolved", replayed: true });
      expect(retried.topUp.id).toBe(lost.topUp.id);

      // Nothing recorded: not a lease, not an attempt.
      expect(await topUpNow(ctx, lost.topUp.id)).toEqual(before);
      expect(asked).toEqual([]);
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });

      // Its own provider settles it, and credits it once.
      const settled = await reconcileTopUps(ctx, { ignoreBackoff: true });
      expect(settled.find((result) => result.topUp.id === lost.topUp.id)?.topUp.status).toBe("paid");
      expect(await unresolvedChargedElsewhere(wrong)).toEqual([]);
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 250, held: 0 });
    });

    it("refuses to complete the payment of a purchase awaiting the cardholder through the other provider", async () => {
      asked.length = 0;
      const made = await organizationWith(ctx, ["authentication_required"], track);
      const awaiting = await purchasePoints(ctx, {
        organization: made.organization,
        request: { points: 100, reference: `awaiting-${provider}` },
        source: "dashboard",
      });
      expect(awaiting.topUp.status).toBe("awaiting_payment");
      const input = { organizationId: made.organization.id, topUpId: awaiting.topUp.id, succeed: true };
      const refused = await expectPointsError(() => quietly(() => completeAuthenticationInDashboard(wrong, input)));
      expect(refused.code).toBe("billing_provider_mismatch");
      expect(refused.message).toMatch(/to complete its payment\.$/);
      const retried = await quietly(() =>
        purchasePoints(wrong, {
          organization: made.organization,
          request: { points: 100, reference: `awaiting-${provider}` },
          source: "api",
        }),
      );
      expect(retried).toMatchObject({ outcome: "awaiting_payment", replayed: true });
      expect(asked).toEqual([]);
      expect((await topUpNow(ctx, awaiting.topUp.id)).status).toBe("awaiting_payment");

      const completed = await completeAuthenticationInDashboard(ctx, input);
      expect(completed.topUp.status).toBe("paid");
    });
  },
);
