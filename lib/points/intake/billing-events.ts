import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { BillingEvent, ReceivedBillingEvent } from "@/lib/billing/provider";
import { deferredBillingEvents, stripeEvents, type TopUp, topUps } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { syncDispute } from "../after-payment/disputes";
import { syncRefunds } from "../after-payment/refunds";
import { isUnresolved, UNRESOLVED_STATUSES } from "../limits/limits";
import { heldElsewhere, resolveTopUpWhenFree } from "../purchase";
import type { Services } from "../services";
import { cardSetUp, paymentMethodsChanged } from "./provider-card-events";

/** What handling an event did: answered to the provider, so its delivery log shows it. */
export interface BillingEventReceipt {
  eventId: string;
  type: string;
  /** unmatched: a refund or dispute of a payment this service cannot place; stored, and reported to operators. */
  result: "handled" | "duplicate" | "ignored" | "deferred" | "unmatched";
  detail?: string;
}

type Receipt = (result: BillingEventReceipt["result"], detail?: string) => BillingEventReceipt;

/**
 * A refund or dispute event whose purchase is not settled here yet: kept in deferred_billing_events
 * and thrown, so the webhook answers 500 and the provider delivers it again; the reconciler hands
 * it over too (retryDeferredEvents) until it is applied.
 */
export class DeferredEventError extends Error {
  constructor(
    readonly eventId: string,
    readonly detail: string,
  ) {
    super(`event ${eventId} must wait: ${detail}`);
    this.name = "DeferredEventError";
  }
}

/** By name as well as class: a production build may bundle this module once per route and once for the startup. */
export function isDeferredEvent(error: unknown): error is DeferredEventError {
  return error instanceof DeferredEventError || (error instanceof Error && error.name === "DeferredEventError");
}

/**
 * Handles one verified billing event (the provider made it from its webhook). Nothing in an event
 * is taken as the truth about a payment: a payment event only says "ask about this purchase now",
 * and the purchase is settled exactly as a retry or the reconciler would settle it (resolveTopUp
 * asks the provider about the same payment and credits at most once). So duplicates, replays and
 * events out of order change nothing twice, and whichever of webhook, retry and reconciler comes
 * first credits.
 *
 * Errors propagate: the route answers 500 and the provider redelivers. The event is recorded as
 * handled only after its effect succeeded (in stripe_events, whose name predates other providers).
 */
export async function handleBillingEvent(
  services: Services,
  event: ReceivedBillingEvent,
  options: { waitMs?: number } = {},
): Promise<BillingEventReceipt> {
  const receipt: Receipt = (result, detail) => ({
    eventId: event.id,
    type: event.type,
    result,
    ...(detail ? { detail } : {}),
  });
  const [seen] = await services.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id));
  if (seen) {
    await forgetDeferral(services, event);
    return receipt("duplicate", `already ${seen.result}`);
  }

  const outcome = await act(services, event, receipt, options);
  if (outcome.result === "deferred") return outcome;
  const recorded = await services.db
    .insert(stripeEvents)
    .values({
      id: event.id,
      type: event.type,
      result: outcome.result,
      detail: outcome.detail ?? null,
      receivedAt: services.clock.now(),
    })
    .onConflictDoNothing()
    .returning({ id: stripeEvents.id });
  await forgetDeferral(services, event);
  // A second delivery of the same event, handled while this one waited: it changed nothing twice.
  return recorded.length > 0 ? outcome : receipt("duplicate", `already ${outcome.result}`);
}

function isAfterPayment(event: ReceivedBillingEvent): boolean {
  return event.kind === "refunds_changed" || event.kind === "dispute_changed";
}

/** Once an event is recorded as handled, it no longer waits. */
async function forgetDeferral(services: Services, event: ReceivedBillingEvent): Promise<void> {
  if (!isAfterPayment(event)) return;
  await services.db.delete(deferredBillingEvents).where(eq(deferredBillingEvents.id, event.id));
}

/** Keeps a refund or dispute event that must wait for its purchase, counting its attempts. */
async function keepDeferred(services: Services, event: ReceivedBillingEvent, detail: string): Promise<void> {
  const now = services.clock.now();
  await services.db
    .insert(deferredBillingEvents)
    .values({ id: event.id, type: event.type, event, detail, attempts: 1, firstDeferredAt: now, lastDeferredAt: now })
    .onConflictDoUpdate({
      target: deferredBillingEvents.id,
      set: { detail, attempts: sql`${deferredBillingEvents.attempts} + 1`, lastDeferredAt: now },
    });
}

/** The reconciler's batch of deferred events: bounded, oldest first. */
export const DEFERRED_EVENTS_BATCH = 50;

/**
 * Hands every deferred refund and dispute event over again, oldest first, through the same
 * handling as a delivery: one whose purchase has settled since is applied (and forgotten here),
 * one still waiting stays. Run by the reconciler, so an event is applied even when the provider
 * has stopped delivering it. Returns how many were applied and how many still wait.
 */
export async function retryDeferredEvents(
  services: Services,
  options: { limit?: number; stopping?: () => boolean } = {},
): Promise<{ applied: BillingEventReceipt[]; waiting: number }> {
  const rows = await services.db
    .select({ id: deferredBillingEvents.id, event: deferredBillingEvents.event })
    .from(deferredBillingEvents)
    .orderBy(asc(deferredBillingEvents.firstDeferredAt), asc(deferredBillingEvents.id))
    .limit(options.limit ?? DEFERRED_EVENTS_BATCH);
  const applied: BillingEventReceipt[] = [];
  let waiting = 0;
  for (const row of rows) {
    if (options.stopping?.()) break;
    try {
      applied.push(await handleBillingEvent(services, row.event as ReceivedBillingEvent, { waitMs: 0 }));
    } catch (error) {
      waiting += 1;
      if (!isDeferredEvent(error)) {
        log().warn(
          { eventId: row.id, err: error instanceof Error ? error.message : String(error) },
          "billing: a deferred event failed again; it is retried on the next run",
        );
      }
    }
  }
  return { applied, waiting };
}

/**
 * A refund's or dispute's handling as a receipt; one this service cannot place is reported once,
 * here, and one that must wait for its purchase to settle is left to be delivered again.
 */
async function afterPayment(
  services: Services,
  receipt: Receipt,
  event: ReceivedBillingEvent,
  handled: { result: "handled" | "unmatched" | "deferred"; detail: string },
): Promise<BillingEventReceipt> {
  if (handled.result === "deferred") {
    // Unlike a payment's, a refund's or dispute's Points move only here: kept until applied, and
    // failed, so the provider delivers the event again too.
    await keepDeferred(services, event, handled.detail);
    throw new DeferredEventError(event.id, handled.detail);
  }
  if (handled.result === "unmatched") {
    log().warn(
      { event: "billing_event_unmatched", event_id: event.id, type: event.type },
      `billing: event ${event.id} (${event.type}) is about money this service cannot place: ${handled.detail}. Stored as unmatched; see npm run points -- reconcile --report.`,
    );
  }
  return receipt(handled.result, handled.detail);
}

async function act(
  services: Services,
  event: ReceivedBillingEvent,
  receipt: Receipt,
  options: { waitMs?: number },
): Promise<BillingEventReceipt> {
  switch (event.kind) {
    case "ignored":
      return receipt("ignored", event.reason);
    case "payment_methods_changed": {
      // The provider dropped its cached card list while making the event: nothing else is kept here.
      if (!event.change || !event.customerId) return receipt("handled", "payment methods refreshed");
      const changed = await paymentMethodsChanged(services, event.customerId, event.change);
      return receipt(changed.result, changed.detail);
    }
    case "card_setup_completed": {
      const saved = await cardSetUp(services, event.customerId, event.sessionId);
      return receipt(saved.result, saved.detail);
    }
    case "refunds_changed":
      return afterPayment(services, receipt, event, await syncRefunds(services, event.paymentId, event.id, options));
    case "dispute_changed":
      return afterPayment(services, receipt, event, await syncDispute(services, event.disputeId, event.id, options));
    default:
      return settleFromPayment(services, event, receipt, options);
  }
}

async function settleFromPayment(
  services: Services,
  payment: Extract<BillingEvent, { topUpId: string | null }>,
  receipt: Receipt,
  options: { waitMs?: number },
): Promise<BillingEventReceipt> {
  const { topUpId, paymentId } = payment;
  if (!topUpId) return receipt("ignored", "not a Points top-up");
  const [topUp] = await services.db.select().from(topUps).where(eq(topUps.id, topUpId));
  // A payment names our purchase only if it is that purchase's customer's: metadata alone proves nothing.
  if (!topUp || topUp.billingCustomerId !== payment.customerId) return receipt("ignored", "no such top-up");
  if (topUp.providerPaymentId && topUp.providerPaymentId !== paymentId) {
    return receipt("ignored", "another PaymentIntent is this top-up's payment");
  }
  if (
    payment.kind === "payment_requires_action" &&
    topUp.status === "awaiting_payment" &&
    topUp.providerPaymentId === paymentId
  ) {
    // Already known, and a change would come as an event of its own: asking would only hold the
    // purchase while the client's own retry asks.
    return receipt("ignored", `top-up ${topUpId} is already awaiting the cardholder`);
  }
  if (!topUp.providerPaymentId && isUnresolved(topUp.status)) {
    // Bound, this payment would settle the purchase: the provider's own record of it must be the
    // purchase's charge, not merely carry its id in metadata.
    const facts = await services.provider.describePayment(paymentId);
    const matches =
      facts !== null &&
      facts.topUpId === topUp.id &&
      facts.customerId === topUp.billingCustomerId &&
      facts.amount === topUp.amount &&
      facts.currency === topUp.currency;
    if (!matches) {
      log().warn(
        { event: "billing_event_mismatch", payment_id: paymentId, top_up_id: topUp.id },
        `Billing event ignored: ${paymentId} does not match top-up ${topUp.id} (amount, currency, customer or metadata).`,
      );
      return receipt("ignored", "the PaymentIntent does not match the top-up");
    }
  }
  // The charge's own answer may have been lost (a timeout): learning the id here lets the
  // settlement below retrieve it rather than re-send the charge.
  await services.db
    .update(topUps)
    .set({ providerPaymentId: paymentId })
    .where(
      and(eq(topUps.id, topUpId), isNull(topUps.providerPaymentId), inArray(topUps.status, [...UNRESOLVED_STATUSES])),
    );
  // Another request may hold it, having asked the provider before this event's change: wait for it,
  // then ask again.
  const known =
    payment.kind === "payment_requires_action"
      ? (row: TopUp) => row.status === "awaiting_payment" && row.providerPaymentId === paymentId
      : undefined;
  const result = await resolveTopUpWhenFree(services, topUpId, { waitMs: options.waitMs, known });
  if (!result) return receipt("ignored", "no such top-up");
  if (heldElsewhere(result)) {
    // Held for longer than the wait (a slow charge): its holder's answer, or the reconciler, settles it.
    return receipt("deferred", "another request is settling this top-up");
  }
  return receipt("handled", `top-up ${topUpId} is ${result.topUp.status}`);
}
