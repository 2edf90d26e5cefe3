import type Stripe from "stripe";
import type { PaymentEventKind, ReceivedBillingEvent } from "@/lib/billing/provider";
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

/** The kinds of object an event this service acts on must carry, or null for any other event. */
function expectedObject(type: string): string[] | null {
  if (Object.hasOwn(PAYMENT_INTENT_EVENTS, type)) return ["payment_intent"];
  if (type === "checkout.session.completed") return ["checkout.session"];
  if (PAYMENT_METHOD_EVENTS.has(type)) return type.startsWith("customer.") ? ["customer"] : ["payment_method"];
  return null;
}

/**
 * A verified Stripe event (its envelope checked by malformedEvent) in the service's own terms.
 * Only what the domain needs to know whom to ask is taken from it: the PaymentIntent's id, its
 * customer and metadata.top_up_id. An event whose object is not what its type promises is ignored.
 */
export function billingEventOf(event: Stripe.Event): ReceivedBillingEvent {
  const envelope = { id: event.id, type: event.type };
  const ignored = (reason: string): ReceivedBillingEvent => ({ ...envelope, kind: "ignored", reason });
  const object = event.data.object as { object?: unknown; id?: unknown };
  const expected = expectedObject(event.type);
  if (!expected) return ignored("not an event this service acts on");
  if (!expected.includes(String(object.object)) || typeof object.id !== "string") {
    console.warn(`Stripe event ${event.id} (${event.type}) ignored: its object is not a ${expected.join(" or ")}.`);
    return ignored(`not a ${expected.join(" or ")}`);
  }
  const paymentKind = PAYMENT_INTENT_EVENTS[event.type];
  if (paymentKind) {
    const intent = event.data.object as Stripe.PaymentIntent;
    // An off-session attempt that needs the cardholder fails at Stripe (authentication_required),
    // but for a purchase it means "awaiting the cardholder", as the charge's own answer says.
    const needsCardholder = paymentKind === "payment_failed" && outcomeOfPaymentIntent(intent).status === "requires_action";
    return {
      ...envelope,
      kind: needsCardholder ? "payment_requires_action" : paymentKind,
      paymentId: intent.id,
      customerId: idOf(intent.customer),
      topUpId: intent.metadata?.top_up_id || null,
    };
  }
  if (event.type === "checkout.session.completed") {
    const session = event.data.object as Stripe.Checkout.Session;
    const customerId = idOf(session.customer);
    if (session.mode !== "setup" || !customerId) return ignored("not a card set up for an organisation");
    return { ...envelope, kind: "card_setup_completed", customerId };
  }
  const changed = event.data.object as Stripe.PaymentMethod | Stripe.Customer;
  return { ...envelope, kind: "payment_methods_changed", customerId: changed.object === "customer" ? changed.id : idOf(changed.customer) };
}

/** The id of an expandable Stripe field, whether it came expanded or not. */
export function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === "string" ? value : value.id;
}
