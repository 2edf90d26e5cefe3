import type Stripe from "stripe";
import type { BillingEvent, PaymentEventKind, ReceivedBillingEvent } from "@/lib/billing/provider";
import { log } from "@/lib/observability/log";
import { outcomeOfPaymentIntent } from "./map-outcome";

/**
 * The PaymentIntent events that may settle a purchase, and what each says happened. Not
 * payment_intent.processing: a purchase is processing already, and its outcome comes later.
 */
const PAYMENT_INTENT_EVENTS: Readonly<Record<string, PaymentEventKind>> = {
  "payment_intent.succeeded": "payment_succeeded",
  "payment_intent.payment_failed": "payment_failed",
  "payment_intent.canceled": "payment_canceled",
  "payment_intent.requires_action": "payment_requires_action",
};
/** Events after which a customer's cached card list may be stale. */
const PAYMENT_METHOD_EVENTS = new Set([
  "payment_method.attached",
  "payment_method.detached",
  "payment_method.updated",
  "payment_method.automatically_updated",
  "customer.updated",
  "customer.deleted",
]);

/** Events after which a payment's refunds may have changed: a Charge's, then a Refund's. */
const CHARGE_REFUND_EVENTS = new Set(["charge.refunded"]);
const REFUND_EVENTS = new Set(["charge.refund.updated", "refund.created", "refund.updated", "refund.failed"]);
/** A dispute opened, moved money or closed. */
const DISPUTE_EVENTS = new Set([
  "charge.dispute.created",
  "charge.dispute.updated",
  "charge.dispute.closed",
  "charge.dispute.funds_withdrawn",
  "charge.dispute.funds_reinstated",
]);

/** The kinds of object an event this service acts on must carry, or null for any other event. */
function expectedObject(type: string): string[] | null {
  if (Object.hasOwn(PAYMENT_INTENT_EVENTS, type)) return ["payment_intent"];
  if (CHARGE_REFUND_EVENTS.has(type)) return ["charge"];
  if (REFUND_EVENTS.has(type)) return ["refund"];
  if (DISPUTE_EVENTS.has(type)) return ["dispute"];
  if (type === "checkout.session.completed") return ["checkout.session"];
  if (PAYMENT_METHOD_EVENTS.has(type)) return type.startsWith("customer.") ? ["customer"] : ["payment_method"];
  return null;
}

/**
 * A verified Stripe event (its envelope checked by malformedEvent) in the service's own terms.
 * Only what the domain needs to know whom to ask is taken from it: the PaymentIntent's id, its
 * customer and metadata.top_up_id; for a refund or a dispute, its PaymentIntent (and dispute) id.
 * An event whose object is not what its type promises is ignored, as is a refund or dispute on a
 * charge with no PaymentIntent (no purchase of this service's is made without one).
 */
export function billingEventOf(event: Stripe.Event): ReceivedBillingEvent {
  const envelope = { id: event.id, type: event.type };
  const ignored = (reason: string): ReceivedBillingEvent => ({ ...envelope, kind: "ignored", reason });
  const object = event.data.object as { object?: unknown; id?: unknown };
  const expected = expectedObject(event.type);
  if (!expected) return ignored("not an event this service acts on");
  if (!expected.includes(String(object.object)) || typeof object.id !== "string") {
    log().warn(
      { event: "stripe_event_ignored", event_id: event.id, type: event.type },
      `Stripe event ${event.id} (${event.type}) ignored: its object is not a ${expected.join(" or ")}.`,
    );
    return ignored(`not a ${expected.join(" or ")}`);
  }
  const paymentKind = PAYMENT_INTENT_EVENTS[event.type];
  if (paymentKind) {
    const intent = event.data.object as Stripe.PaymentIntent;
    // An off-session attempt that needs the cardholder fails at Stripe (authentication_required),
    // but for a purchase it means "awaiting the cardholder", as the charge's own answer says.
    const needsCardholder =
      paymentKind === "payment_failed" && outcomeOfPaymentIntent(intent).status === "requires_action";
    return {
      ...envelope,
      kind: needsCardholder ? "payment_requires_action" : paymentKind,
      paymentId: intent.id,
      customerId: idOf(intent.customer),
      topUpId: intent.metadata?.top_up_id || null,
    };
  }
  if (CHARGE_REFUND_EVENTS.has(event.type) || REFUND_EVENTS.has(event.type)) {
    const changed = event.data.object as Stripe.Charge | Stripe.Refund;
    const paymentId = idOf(changed.payment_intent);
    if (!paymentId) return ignored(`a ${changed.object} with no PaymentIntent`);
    return { ...envelope, kind: "refunds_changed", paymentId, customerId: idOf(changed.customer) };
  }
  if (DISPUTE_EVENTS.has(event.type)) {
    const dispute = event.data.object as Stripe.Dispute;
    const paymentId = idOf(dispute.payment_intent);
    if (!paymentId) return ignored("a dispute with no PaymentIntent");
    return { ...envelope, kind: "dispute_changed", disputeId: dispute.id, paymentId };
  }
  if (event.type === "checkout.session.completed") {
    const session = event.data.object as Stripe.Checkout.Session;
    const customerId = idOf(session.customer);
    if (session.mode !== "setup" || !customerId) return ignored("not a card set up for an organisation");
    return { ...envelope, kind: "card_setup_completed", customerId, sessionId: session.id };
  }
  return { ...envelope, ...paymentMethodsChanged(event) };
}

type PaymentMethodsChanged = Extract<BillingEvent, { kind: "payment_methods_changed" }>;

/**
 * Whose saved cards changed, and how when the event says so: a card attached is `added`; a card
 * detached is `removed` (its `customer` is null by then, and the one it left is in
 * previous_attributes); a customer whose previous_attributes hold its default payment method has
 * a new `default`. Any other change (an expiry, a name) only makes the cached cards stale.
 */
function paymentMethodsChanged(event: Stripe.Event): PaymentMethodsChanged {
  const kind = "payment_methods_changed";
  switch (event.type) {
    case "payment_method.attached": {
      const customerId = idOf(event.data.object.customer);
      const paymentMethodId = event.data.object.id;
      return customerId ? { kind, customerId, change: { change: "added", paymentMethodId } } : { kind, customerId };
    }
    case "payment_method.detached": {
      const customerId = idOf(event.data.previous_attributes?.customer) ?? idOf(event.data.object.customer);
      const paymentMethodId = event.data.object.id;
      return customerId ? { kind, customerId, change: { change: "removed", paymentMethodId } } : { kind, customerId };
    }
    case "customer.updated": {
      const customer = event.data.object;
      const previous = event.data.previous_attributes?.invoice_settings;
      if (!previous || !("default_payment_method" in previous)) return { kind, customerId: customer.id };
      const change = {
        change: "default" as const,
        paymentMethodId: idOf(customer.invoice_settings?.default_payment_method),
        previousId: idOf(previous.default_payment_method),
      };
      return { kind, customerId: customer.id, change };
    }
    default: {
      const changed = event.data.object as Stripe.PaymentMethod | Stripe.Customer;
      return { kind, customerId: changed.object === "customer" ? changed.id : idOf(changed.customer) };
    }
  }
}

/** The id of an expandable Stripe field, whether it came expanded or not. */
export function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === "string" ? value : value.id;
}
