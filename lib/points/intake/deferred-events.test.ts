import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { ReceivedBillingEvent } from "@/lib/billing/provider";
import type { Bundle } from "@/lib/catalog";
import { deferredBillingEvents, stripeEvents } from "@/lib/db/schema";
import { balances, organizationWith, quietly, topUpNow } from "@/lib/testing/after-payment";
import {
  backendsAndProviders,
  faultyProvider,
  openInstance,
  type ProviderTestContext,
  patchProvider,
  withProvider,
} from "@/lib/testing/harness";
import { expectBooksBalance, ledgerState, serviceSuite } from "@/lib/testing/invariants";
import { purchasePoints } from "../purchase";
import type { Services } from "../services";
import { listDeferredEvents } from "../views/attention";
import { DeferredEventError, handleBillingEvent, retryDeferredEvents } from "./billing-events";

/*
 * A refund or dispute event that names a payment whose purchase is not settled here, at a moment
 * the provider cannot say how that payment ended: it is kept and failed (the provider delivers it
 * again), never recorded as handled unapplied, and the reconciler applies it once the purchase
 * settles, even if the provider never delivers it again. On Stripe the fault is the test server's
 * answer to GET /v1/payment_intents/…; on the simulated provider, its retrievePayment throwing.
 */
describe.each(backendsAndProviders())(
  "a refund or dispute of a purchase not yet settled waits for it (%s, %s provider)",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });

    /**
     * The services as the webhook would meet the provider while it cannot answer about a payment: the
     * first look at the payment (binding it to its purchase) succeeds, every settling ask fails.
     */
    function paymentLookupsFailing(): { services: Services; mend: () => void } {
      const fake = ctx.stripe?.fake;
      if (fake) {
        const path = "/v1/payment_intents/";
        fake.control.fault({ method: "GET", path, kind: "delay", delayMs: 0, times: 1 });
        fake.control.fault({ method: "GET", path, kind: "500_before", times: Number.POSITIVE_INFINITY });
        return { services: ctx, mend: () => fake.control.clearFaults() };
      }
      const failing = patchProvider(ctx.provider, {
        retrievePayment: async () => {
          throw new Error("provider answered 500 (injected)");
        },
      });
      return { services: withProvider(ctx, failing), mend: () => {} };
    }

    /** A purchase whose charge was made at the provider but whose answer was lost: `processing` here. */
    async function chargedButUnresolved(card: string, points: Bundle) {
      const made = await organizationWith(ctx, [card], track);
      const faulty = withProvider(ctx, faultyProvider(ctx.provider, ["execute_then_throw"]));
      const first = await quietly(() =>
        purchasePoints(faulty, {
          organization: made.organization,
          request: { points, reference: `deferred-${made.organization.id}` },
          source: "api",
        }),
      );
      expect(first.outcome).toBe("unresolved");
      expect(first.topUp.status).toBe("processing");
      return { made, topUp: first.topUp };
    }

    async function deferredRow(eventId: string) {
      const [row] = await ctx.db.select().from(deferredBillingEvents).where(eq(deferredBillingEvents.id, eventId));
      return row;
    }

    async function handledRow(eventId: string) {
      const [row] = await ctx.db.select().from(stripeEvents).where(eq(stripeEvents.id, eventId));
      return row;
    }

    /** Delivers `event` with the payment's lookups failing: it must fail (a 500) and be kept, not recorded. */
    async function deliverWhileProviderFails(event: ReceivedBillingEvent, services: Services) {
      const error = await quietly(() => handleBillingEvent(services, event, { waitMs: 0 })).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(DeferredEventError);
      expect(await handledRow(event.id)).toBeUndefined();
      expect(await deferredRow(event.id)).toMatchObject({ type: event.type });
    }

    it("a refund made at the provider moves its Points once the purchase settles, delivered again or not", async () => {
      const { made, topUp } = await chargedButUnresolved("visa", 1000);
      const [payment] = await ctx.probe.payments(made.organization.billingCustomerId);
      const paymentId = payment?.id;
      const refundAtProvider = ctx.provider.testMode?.refundAtProvider;
      if (!refundAtProvider || !paymentId) throw new Error("no refund at the provider in test mode");
      await refundAtProvider(paymentId, 8500);
      const refundEvents = (await ctx.probe.takeEvents()).filter((event) => event.kind === "refunds_changed");
      const [refunded] = refundEvents;
      if (!refunded) throw new Error("no refund event");

      const failing = paymentLookupsFailing();
      await deliverWhileProviderFails(refunded, failing.services);
      // The provider delivers it again while it still cannot answer: still waiting, counted.
      await deliverWhileProviderFails(refunded, failing.services);
      expect(await deferredRow(refunded.id)).toMatchObject({ attempts: 2 });
      // The reconciler's run while the provider still cannot answer: it keeps waiting.
      expect(await quietly(() => retryDeferredEvents(failing.services))).toEqual({ applied: [], waiting: 1 });
      expect(await listDeferredEvents(ctx.db)).toEqual([expect.objectContaining({ id: refunded.id })]);
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });
      expect((await topUpNow(ctx, topUp.id)).status).toBe("processing");

      // The provider answers again, and never redelivers: the reconciler's run applies the event.
      failing.mend();
      const run = await retryDeferredEvents(ctx);
      expect(run.applied).toEqual([expect.objectContaining({ eventId: refunded.id, result: "handled" })]);
      expect(run.waiting).toBe(0);
      expect(await topUpNow(ctx, topUp.id)).toMatchObject({
        status: "paid",
        refundedPoints: 1000,
        refundedAmount: 8500,
      });
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });
      expect(await deferredRow(refunded.id)).toBeUndefined();
      expect(await handledRow(refunded.id)).toMatchObject({ result: "handled" });

      // A late redelivery, and another reconciler run, move nothing again.
      for (const event of refundEvents) await handleBillingEvent(ctx, event);
      expect((await handleBillingEvent(ctx, refunded)).result).toBe("duplicate");
      expect(await retryDeferredEvents(ctx)).toEqual({ applied: [], waiting: 0 });
      expect(await ledgerState(ctx.db, made.organization.id, ctx.probe)).toMatchObject({
        credits: 1,
        charges: 1,
        balance: 0,
        ledgerSum: 0,
      });
      await expectBooksBalance(ctx.db, made.organization.id);
    });

    it("two instances' reconcilers handing the same deferred refund over at once move its Points once", async () => {
      const { made, topUp } = await chargedButUnresolved("visa", 500);
      const [payment] = await ctx.probe.payments(made.organization.billingCustomerId);
      const refundAtProvider = ctx.provider.testMode?.refundAtProvider;
      if (!refundAtProvider || !payment) throw new Error("no refund at the provider in test mode");
      await refundAtProvider(payment.id, payment.amount);
      const [refunded] = (await ctx.probe.takeEvents()).filter((event) => event.kind === "refunds_changed");
      if (!refunded) throw new Error("no refund event");
      const failing = paymentLookupsFailing();
      await deliverWhileProviderFails(refunded, failing.services);
      failing.mend();

      const second = ctx.url ? await openInstance(ctx) : ctx;
      try {
        await quietly(() => Promise.all([retryDeferredEvents(ctx), retryDeferredEvents(second)]));
        // Whichever run found the purchase held by the other leaves the event for the next run.
        await retryDeferredEvents(ctx);
      } finally {
        if (second !== ctx) await second.close();
      }
      expect(await deferredRow(refunded.id)).toBeUndefined();
      expect(await handledRow(refunded.id)).toMatchObject({ result: "handled" });
      expect(await topUpNow(ctx, topUp.id)).toMatchObject({ status: "paid", refundedPoints: 500 });
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });
      expect(await ledgerState(ctx.db, made.organization.id, ctx.probe)).toMatchObject({
        credits: 1,
        charges: 1,
        ledgerSum: 0,
      });
      await expectBooksBalance(ctx.db, made.organization.id);
    });

    it("a dispute moves its Points once the purchase settles, when the provider delivers it again", async () => {
      const { made, topUp } = await chargedButUnresolved("dispute", 1000);
      const disputeEvents = (await ctx.probe.takeEvents()).filter((event) => event.kind === "dispute_changed");
      const [opened] = disputeEvents;
      if (!opened) throw new Error("no dispute event");

      const failing = paymentLookupsFailing();
      await deliverWhileProviderFails(opened, failing.services);
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });

      // Stripe's redelivery, once it answers again: the purchase is settled as paid, then the dispute
      // moves its Points; the reconciler then finds nothing left to apply.
      failing.mend();
      for (const event of disputeEvents) expect((await handleBillingEvent(ctx, event)).result).toBe("handled");
      expect(await deferredRow(opened.id)).toBeUndefined();
      expect(await retryDeferredEvents(ctx)).toEqual({ applied: [], waiting: 0 });
      // Stripe withdraws a disputed payment's money when the dispute opens: the Points go with it.
      // The simulated bank waits for the decision: they are held.
      const state = provider === "stripe" ? "removed" : "held";
      expect(await topUpNow(ctx, topUp.id)).toMatchObject({
        status: "paid",
        disputeStatus: "open",
        disputePoints: 1000,
        disputePointsState: state,
      });
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: state === "held" ? 1000 : 0 });
      expect(await ledgerState(ctx.db, made.organization.id, ctx.probe)).toMatchObject({ credits: 1, charges: 1 });
      await expectBooksBalance(ctx.db, made.organization.id);
    });
  },
);
