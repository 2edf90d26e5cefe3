import { and, eq, inArray, isNull } from "drizzle-orm";
import type { BillingEvent, ReceivedBillingEvent } from "@/lib/billing/provider";
import { syncDispute } from "./disputes";
import { syncRefunds } from "./refunds";
import { organizations, stripeEvents, topUps } from "@/lib/db/schema";
import { isUnresolved, UNRESOLVED_STATUSES } from "./limits";
import { makeFirstCardDefault } from "./payment-methods";
import { heldElsewhere, resolveTopUpWhenFree } from "./purchase";
import type { Services } from "./services";

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
  if (seen) return receipt("duplicate", `already ${seen.result}`);

  const outcome = await act(services, event, receipt, options);
  if (outcome.result === "deferred") return outcome;
  const recorded = await services.db
    .insert(stripeEvents)
    .values({ id: event.id, type: event.type, result: outcome.result, detail: outcome.detail ?? null, receivedAt: services.clock.now() })
    .onConflictDoNothing()
    .returning({ id: stripeEvents.id });
  // A second delivery of the same event, handled while this one waited: it changed nothing twice.
  return recorded.length > 0 ? outcome : receipt("duplicate", `already ${outcome.result}`);
}

/**
 * A refund's or dispute's handling as a receipt; one this service cannot place is reported once,
 * here, and one that must wait for its purchase to settle is left to be delivered again.
 */
function afterPayment(
  receipt: Receipt,
  event: ReceivedBillingEvent,
  handled: { result: "handled" | "unmatched" | "deferred"; detail: string },
): BillingEventReceipt {
  if (handled.result === "deferred") {
    // Unlike a payment's, a refund's or dispute's Points move only here: fail, so the provider
    // delivers the event again once the purchase is settled.
    throw new Error(`event ${event.id} (${event.type}) must wait: ${handled.detail}`);
  }
  if (handled.result === "unmatched") {
    console.warn(`billing: event ${event.id} (${event.type}) is about money this service cannot place: ${handled.detail}. Stored as unmatched; see npm run points -- reconcile --report.`);
  }
  return receipt(handled.result, handled.detail);
}

async function act(services: Services, event: ReceivedBillingEvent, receipt: Receipt, options: { waitMs?: number }): Promise<BillingEventReceipt> {
  switch (event.kind) {
    case "ignored":
      return receipt("ignored", event.reason);
    case "payment_methods_changed":
      // The provider dropped its cached card list while making the event: nothing is kept here.
      return receipt("handled", "payment methods refreshed");
    case "card_setup_completed":
      return cardSetUp(services, event.customerId, receipt);
    case "refunds_changed":
      return afterPayment(receipt, event, await syncRefunds(services, event.paymentId, event.id, options));
    case "dispute_changed":
      return afterPayment(receipt, event, await syncDispute(services, event.disputeId, event.id, options));
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
  if (payment.kind === "payment_requires_action" && topUp.status === "awaiting_payment" && topUp.providerPaymentId === paymentId) {
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
      console.warn(`Billing event ignored: ${paymentId} does not match top-up ${topUp.id} (amount, currency, customer or metadata).`);
      return receipt("ignored", "the PaymentIntent does not match the top-up");
    }
  }
  // The charge's own answer may have been lost (a timeout): learning the id here lets the
  // settlement below retrieve it rather than re-send the charge.
  await services.db
    .update(topUps)
    .set({ providerPaymentId: paymentId })
    .where(and(eq(topUps.id, topUpId), isNull(topUps.providerPaymentId), inArray(topUps.status, [...UNRESOLVED_STATUSES])));
  // Another request may hold it, having asked the provider before this event's change: wait for it,
  // then ask again.
  const result = await resolveTopUpWhenFree(services, topUpId, { waitMs: options.waitMs });
  if (!result) return receipt("ignored", "no such top-up");
  if (heldElsewhere(result)) {
    // Held for longer than the wait (a slow charge): its holder's answer, or the reconciler, settles it.
    return receipt("deferred", "another request is settling this top-up");
  }
  return receipt("handled", `top-up ${topUpId} is ${result.topUp.status}`);
}

/**
 * A card saved on the provider's own page (Stripe Checkout in setup mode): the provider has
 * attached it to the customer already. The organisation's first card becomes its default, so it
 * can be used at once.
 */
async function cardSetUp(services: Services, customerId: string, receipt: Receipt): Promise<BillingEventReceipt> {
  const [organization] = await services.db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.billingCustomerId, customerId));
  if (!organization) return receipt("ignored", "no organisation has this customer");
  const made = await makeFirstCardDefault(services, customerId);
  return receipt("handled", made ? `default payment method set to ${made}` : "card saved");
}
