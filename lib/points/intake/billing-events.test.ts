import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { billingEventOf } from "@/lib/billing/stripe/events";
import type { Bundle } from "@/lib/catalog";
import { stripeEvents, topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import {
  backendsAndProviders,
  faultyProvider,
  type ProviderFault,
  type ProviderTestContext,
  withProvider,
} from "@/lib/testing/harness";
import { expectBooksBalance, ledgerState, serviceSuite } from "@/lib/testing/invariants";
import { quietly } from "@/lib/testing/observability";
import { createOrganization } from "../accounts/organizations";
import { purchasePoints } from "../purchase";
import type { Services } from "../services";
import { handleBillingEvent } from "./billing-events";

/** A Stripe event as delivered, without importing the SDK here. */
type StripeEvent = Parameters<typeof billingEventOf>[0];

/** What the webhook route does with a verified Stripe event: the provider translates, the domain handles. */
function handleStripeEvent(services: Services, event: StripeEvent, options?: { waitMs?: number }) {
  return handleBillingEvent(services, billingEventOf(event), options);
}

/*
 * The webhook's handling, provider-neutral: an event only says "ask about this purchase now", so
 * these run on the simulated provider's payments and on Stripe's PaymentIntents alike. The signed
 * route and delivery are tested against the Stripe-compatible server (webhook.test.ts).
 */
describe.each(backendsAndProviders())(
  "Stripe events settle purchases once, whatever their order (%s, %s provider)",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });
    const ledgerOf = (organizationId: string) => ledgerState(ctx.db, organizationId, ctx.probe);

    let eventCount = 0;
    function paymentEvent(type: string, intent: { id: string; customer: string; topUpId?: string }): StripeEvent {
      eventCount += 1;
      const object = {
        id: intent.id,
        object: "payment_intent",
        customer: intent.customer,
        metadata: intent.topUpId ? { top_up_id: intent.topUpId } : {},
      };
      return {
        id: `evt_${eventCount}_${randomString(6)}`,
        object: "event",
        type,
        data: { object },
      } as unknown as StripeEvent;
    }

    /** An organisation buying through the API with one saved card, its default. */
    async function organizationWith(card: string) {
      const { organization } = await createOrganization(ctx, {
        name: `Events ${randomString(4)}`,
        settings: { currency: "USD", apiPurchasesEnabled: true },
        cards: [card],
        defaultCardIndex: 0,
      });
      track(organization.id);
      return organization;
    }

    /** A purchase whose charge failed as `fault` says, so it is left unresolved. */
    async function unresolvedPurchase(fault: ProviderFault, points: Bundle, reference: string) {
      const organization = await organizationWith("visa");
      const faulty = withProvider(ctx, faultyProvider(ctx.provider, [fault]));
      const first = await quietly(() =>
        purchasePoints(faulty, { organization, request: { points, reference }, source: "api" }),
      );
      expect(first.outcome).toBe("unresolved");
      return { organization, topUp: first.topUp };
    }

    async function awaitingPurchase() {
      const organization = await organizationWith("authentication_required");
      const result = await purchasePoints(ctx, {
        organization,
        request: { points: 250, reference: "ev-1" },
        source: "api",
      });
      expect(result.outcome).toBe("awaiting_payment");
      const paymentId = result.topUp.providerPaymentId ?? "";
      return { organization, topUp: result.topUp, paymentId };
    }

    it("credits once when the succeeded event is delivered twice, and records the event", async () => {
      const { organization, topUp, paymentId } = await awaitingPurchase();
      await ctx.probe.completeAuthentication(paymentId, true);
      const event = paymentEvent("payment_intent.succeeded", {
        id: paymentId,
        customer: organization.billingCustomerId,
        topUpId: topUp.id,
      });

      expect(await handleStripeEvent(ctx, event)).toMatchObject({
        result: "handled",
        detail: expect.stringContaining("paid"),
      });
      expect(await handleStripeEvent(ctx, event)).toMatchObject({ result: "duplicate" });
      expect(await ledgerOf(organization.id)).toMatchObject({ charges: 1, credits: 1, balance: 250 });
      const [stored] = await ctx.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id));
      expect(stored?.result).toBe("handled");
      await expectBooksBalance(ctx.db, organization.id);
    });

    it("asks the provider rather than believing the event: a stale 'failed' after success changes nothing", async () => {
      const { organization, topUp, paymentId } = await awaitingPurchase();
      await ctx.probe.completeAuthentication(paymentId, true);
      const customer = organization.billingCustomerId;
      // Delivered out of order: the earlier failure event arrives after the success was known.
      await handleStripeEvent(
        ctx,
        paymentEvent("payment_intent.succeeded", { id: paymentId, customer, topUpId: topUp.id }),
      );
      await handleStripeEvent(
        ctx,
        paymentEvent("payment_intent.payment_failed", { id: paymentId, customer, topUpId: topUp.id }),
      );
      const [row] = await ctx.db.select().from(topUps).where(eq(topUps.id, topUp.id));
      expect(row?.status).toBe("paid");
      expect(await ledgerOf(organization.id)).toMatchObject({ credits: 1, balance: 250 });
    });

    it("ignores an event whose PaymentIntent belongs to another customer or names no purchase", async () => {
      const { organization, topUp, paymentId } = await awaitingPurchase();
      await ctx.probe.completeAuthentication(paymentId, true);
      const forged = paymentEvent("payment_intent.succeeded", {
        id: paymentId,
        customer: "cus_someone_else",
        topUpId: topUp.id,
      });
      expect(await handleStripeEvent(ctx, forged)).toMatchObject({ result: "ignored" });
      const unrelated = paymentEvent("payment_intent.succeeded", {
        id: "pi_other",
        customer: organization.billingCustomerId,
      });
      expect(await handleStripeEvent(ctx, unrelated)).toMatchObject({ result: "ignored" });
      expect(await ledgerOf(organization.id)).toMatchObject({ credits: 0 });
    });

    it("settles a purchase whose charge answer was lost, through the PaymentIntent the event names", async () => {
      const { organization, topUp: lost } = await unresolvedPurchase("execute_then_throw", 100, "lost");
      const paymentId =
        (
          await ctx.provider.findPayment({
            topUpId: lost.id,
            customerId: organization.billingCustomerId,
            createdAfter: new Date(0),
          })
        )?.paymentId ?? "";
      const event = paymentEvent("payment_intent.succeeded", {
        id: paymentId,
        customer: organization.billingCustomerId,
        topUpId: lost.id,
      });
      expect(await handleStripeEvent(ctx, event)).toMatchObject({ result: "handled" });
      const [row] = await ctx.db
        .select()
        .from(topUps)
        .where(and(eq(topUps.organizationId, organization.id), eq(topUps.reference, "lost")));
      expect([row?.status, row?.providerPaymentId]).toEqual(["paid", paymentId]);
      expect(await ledgerOf(organization.id)).toMatchObject({ charges: 1, credits: 1 });
    });

    it("binds no payment that is not the purchase's own charge, whatever its metadata says", async () => {
      // The charge never left (a refused connection): the purchase is unresolved, with no payment yet.
      const { organization, topUp } = await unresolvedPurchase("throw_before_execute", 1000, "bind");
      expect(topUp.providerPaymentId).toBeNull();
      const [method] = await ctx.provider.listPaymentMethods(organization.billingCustomerId);
      // A payment a cent short, on the same customer, carrying the purchase's id in its metadata.
      const cheap = await ctx.provider.charge({
        idempotencyKey: `other_${randomString(8)}`,
        customerId: organization.billingCustomerId,
        paymentMethodId: method?.id ?? "",
        amount: topUp.amount - 1,
        currency: "USD",
        metadata: { top_up_id: topUp.id, organization_id: organization.id, reference: "bind" },
      });
      expect(cheap.status).toBe("succeeded");
      const event = paymentEvent("payment_intent.succeeded", {
        id: cheap.paymentId ?? "",
        customer: organization.billingCustomerId,
        topUpId: topUp.id,
      });
      const answered = await quietly(() => handleStripeEvent(ctx, event));
      expect(answered).toMatchObject({ result: "ignored", detail: "the PaymentIntent does not match the top-up" });
      const [row] = await ctx.db.select().from(topUps).where(eq(topUps.id, topUp.id));
      expect([row?.status, row?.providerPaymentId]).toEqual(["processing", null]);
      expect((await ctx.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id)))[0]?.result).toBe(
        "ignored",
      );
    });

    it("ignores an event whose object is not what its type promises, and records it", async () => {
      const { organization, topUp, paymentId } = await awaitingPurchase();
      await ctx.probe.completeAuthentication(paymentId, true);
      const wrongObject = {
        id: `evt_shape_${randomString(6)}`,
        object: "event",
        type: "payment_intent.succeeded",
        data: {
          object: {
            id: paymentId,
            object: "charge",
            customer: organization.billingCustomerId,
            metadata: { top_up_id: topUp.id },
          },
        },
      } as unknown as StripeEvent;
      const answered = await quietly(() => handleStripeEvent(ctx, wrongObject));
      expect(answered).toMatchObject({ result: "ignored", detail: "not a payment_intent" });
      expect((await ctx.db.select().from(stripeEvents).where(eq(stripeEvents.id, wrongObject.id)))[0]?.result).toBe(
        "ignored",
      );
      expect(await ledgerOf(organization.id)).toMatchObject({ credits: 0 });
    });

    it("leaves a purchase to its own retry when the event only says the payment is still processing", async () => {
      const organization = await organizationWith("processing");
      const first = await purchasePoints(ctx, {
        organization,
        request: { points: 100, reference: "slow" },
        source: "api",
      });
      expect(first.outcome).toBe("unresolved");
      const paymentId = first.topUp.providerPaymentId ?? "";
      const event = paymentEvent("payment_intent.processing", {
        id: paymentId,
        customer: organization.billingCustomerId,
        topUpId: first.topUp.id,
      });
      expect(await handleStripeEvent(ctx, event)).toMatchObject({ result: "ignored" });
      const [row] = await ctx.db.select().from(topUps).where(eq(topUps.id, first.topUp.id));
      expect(row?.status).toBe("processing");
      // The client's retry is the one that finds it paid, and credits it (201, not 200).
      const retry = await purchasePoints(ctx, {
        organization,
        request: { points: 100, reference: "slow" },
        source: "api",
      });
      expect(retry.outcome).toBe("paid_now");
      expect(await ledgerOf(organization.id)).toMatchObject({ charges: 1, credits: 1, balance: 100 });
    });

    it("leaves a purchase already awaiting the cardholder alone when the event says just that", async () => {
      const { organization, topUp, paymentId } = await awaitingPurchase();
      // Held by a client's retry: the event must not wait for it, nor take it.
      await ctx.db
        .update(topUps)
        .set({ lockToken: "retry", lockedUntil: new Date(ctx.clock.now().getTime() + 60_000) })
        .where(eq(topUps.id, topUp.id));
      const event = paymentEvent("payment_intent.requires_action", {
        id: paymentId,
        customer: organization.billingCustomerId,
        topUpId: topUp.id,
      });
      const started = Date.now();
      expect(await handleStripeEvent(ctx, event)).toMatchObject({ result: "ignored" });
      expect(Date.now() - started).toBeLessThan(2_000);
      const [row] = await ctx.db.select().from(topUps).where(eq(topUps.id, topUp.id));
      expect([row?.status, row?.lockToken]).toEqual(["awaiting_payment", "retry"]);
    });

    it("does not ask again when the charge's request, which it waited for, left the purchase awaiting the cardholder", async () => {
      const { organization, topUp, paymentId } = await awaitingPurchase();
      // The event arrives while the charge's own request still holds the purchase, before it records the answer.
      await ctx.db
        .update(topUps)
        .set({ status: "processing", lockToken: "charge", lockedUntil: new Date(ctx.clock.now().getTime() + 60_000) })
        .where(eq(topUps.id, topUp.id));
      setTimeout(() => {
        void ctx.db
          .update(topUps)
          .set({ status: "awaiting_payment", lockToken: null, lockedUntil: null })
          .where(eq(topUps.id, topUp.id))
          .then(() => {});
      }, 300);
      const event = paymentEvent("payment_intent.requires_action", {
        id: paymentId,
        customer: organization.billingCustomerId,
        topUpId: topUp.id,
      });
      expect(await handleStripeEvent(ctx, event, { waitMs: 5_000 })).toMatchObject({ result: "handled" });
      // Not taken: the client's replay right after finds it free and answers 402 payment_action_required.
      const [row] = await ctx.db.select().from(topUps).where(eq(topUps.id, topUp.id));
      expect([row?.status, row?.lockToken, row?.attempts]).toEqual(["awaiting_payment", null, topUp.attempts]);
      const replay = await purchasePoints(ctx, {
        organization,
        request: { points: 250, reference: "ev-1" },
        source: "api",
      });
      expect(replay.outcome).toBe("awaiting_payment");
    });

    it("answers deferred, and remembers nothing, while another request holds the purchase", async () => {
      const { organization, topUp, paymentId } = await awaitingPurchase();
      await ctx.db
        .update(topUps)
        .set({ lockToken: "held", lockedUntil: new Date(ctx.clock.now().getTime() + 60_000) })
        .where(eq(topUps.id, topUp.id));
      const event = paymentEvent("payment_intent.succeeded", {
        id: paymentId,
        customer: organization.billingCustomerId,
        topUpId: topUp.id,
      });
      expect(await handleStripeEvent(ctx, event, { waitMs: 300 })).toMatchObject({ result: "deferred" });
      expect(await ctx.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toEqual([]);
    });

    it("waits for a request holding the purchase, then settles it: the event is not lost to a holder that asked before it", async () => {
      const { organization, topUp, paymentId } = await awaitingPurchase();
      // Another request (the charge's, the return page's) holds it, and asked the provider before the cardholder finished.
      await ctx.db
        .update(topUps)
        .set({ lockToken: "held", lockedUntil: new Date(ctx.clock.now().getTime() + 60_000) })
        .where(eq(topUps.id, topUp.id));
      await ctx.probe.completeAuthentication(paymentId, true);
      setTimeout(() => {
        void ctx.db
          .update(topUps)
          .set({ lockToken: null, lockedUntil: null })
          .where(eq(topUps.id, topUp.id))
          .then(() => {});
      }, 300);
      const event = paymentEvent("payment_intent.succeeded", {
        id: paymentId,
        customer: organization.billingCustomerId,
        topUpId: topUp.id,
      });
      expect(await handleStripeEvent(ctx, event, { waitMs: 5_000 })).toMatchObject({
        result: "handled",
        detail: `top-up ${topUp.id} is paid`,
      });
      expect(await ledgerOf(organization.id)).toMatchObject({ charges: 1, credits: 1, balance: 250 });
    });
  },
);
