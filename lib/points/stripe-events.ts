import { and, eq, inArray, isNull } from "drizzle-orm";
import type Stripe from "stripe";
import { organizations, stripeEvents, topUps } from "@/lib/db/schema";
import { UNRESOLVED_STATUSES } from "./limits";
import { resolveTopUp } from "./purchase";
import type { Services } from "./services";

/** What handling an event did: answered to Stripe, so its delivery log shows it. */
export interface StripeEventReceipt {
  eventId: string;
  type: string;
  result: "handled" | "duplicate" | "ignored" | "deferred";
  detail?: string;
}

const UNRESOLVED: ReadonlySet<string> = new Set(UNRESOLVED_STATUSES);

const PAYMENT_INTENT_EVENTS = new Set([
  "payment_intent.succeeded",
  "payment_intent.payment_failed",
  "payment_intent.canceled",
  "payment_intent.requires_action",
]);
const PAYMENT_METHOD_EVENTS = new Set([
  "payment_method.attached",
  "payment_method.detached",
  "payment_method.updated",
  "payment_method.automatically_updated",
  "customer.updated",
]);

/** The kinds of object an event this service acts on must carry, or null for any other event. */
function expectedObject(type: string): string[] | null {
  if (PAYMENT_INTENT_EVENTS.has(type)) return ["payment_intent"];
  if (type === "checkout.session.completed") return ["checkout.session"];
  if (PAYMENT_METHOD_EVENTS.has(type)) return type === "customer.updated" ? ["customer"] : ["payment_method"];
  return null;
}

/**
 * Handles one verified Stripe event. Nothing in an event's payload is taken as the truth about a
 * payment: a PaymentIntent event only says "ask about this purchase now", and the purchase is
 * settled exactly as a retry or the reconciler would settle it (resolveTopUp asks Stripe about
 * the same PaymentIntent and credits at most once). So duplicates, replays and events out of
 * order change nothing twice, and whichever of webhook, retry and reconciler comes first credits.
 *
 * Errors propagate: the route answers 500 and Stripe redelivers. The event is recorded as
 * handled only after its effect succeeded.
 */
export async function handleStripeEvent(services: Services, event: Stripe.Event): Promise<StripeEventReceipt> {
  const receipt = (result: StripeEventReceipt["result"], detail?: string): StripeEventReceipt => ({
    eventId: event.id,
    type: event.type,
    result,
    ...(detail ? { detail } : {}),
  });
  const [seen] = await services.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id));
  if (seen) return receipt("duplicate", `already ${seen.result}`);

  const object = event.data.object as { object?: unknown; id?: unknown };
  const expected = expectedObject(event.type);
  let outcome: StripeEventReceipt;
  if (!expected) {
    outcome = receipt("ignored", "not an event this service acts on");
  } else if (!expected.includes(String(object.object)) || typeof object.id !== "string") {
    console.warn(`Stripe event ${event.id} (${event.type}) ignored: its object is not a ${expected.join(" or ")}.`);
    outcome = receipt("ignored", `not a ${expected.join(" or ")}`);
  } else if (PAYMENT_INTENT_EVENTS.has(event.type)) {
    outcome = await settleFromPaymentIntent(services, event.data.object as Stripe.PaymentIntent, receipt);
  } else if (event.type === "checkout.session.completed") {
    outcome = await cardSavedAtCheckout(services, event.data.object as Stripe.Checkout.Session, receipt);
  } else {
    const changed = event.data.object as Stripe.PaymentMethod | Stripe.Customer;
    const customerId = changed.object === "customer" ? changed.id : idOf(changed.customer);
    services.provider.invalidatePaymentMethods?.(customerId ?? undefined);
    outcome = receipt("handled", "payment methods refreshed");
  }
  if (outcome.result !== "deferred") {
    await services.db
      .insert(stripeEvents)
      .values({ id: event.id, type: event.type, result: outcome.result, receivedAt: services.clock.now() })
      .onConflictDoNothing();
  }
  return outcome;
}

async function settleFromPaymentIntent(
  services: Services,
  intent: Stripe.PaymentIntent,
  receipt: (result: StripeEventReceipt["result"], detail?: string) => StripeEventReceipt,
): Promise<StripeEventReceipt> {
  const topUpId = intent.metadata?.top_up_id;
  if (!topUpId) return receipt("ignored", "not a Points top-up");
  const [topUp] = await services.db.select().from(topUps).where(eq(topUps.id, topUpId));
  // A PaymentIntent names our purchase only if it is that purchase's customer's: metadata alone proves nothing.
  if (!topUp || topUp.billingCustomerId !== idOf(intent.customer)) return receipt("ignored", "no such top-up");
  if (topUp.providerPaymentId && topUp.providerPaymentId !== intent.id) {
    return receipt("ignored", "another PaymentIntent is this top-up's payment");
  }
  if (!topUp.providerPaymentId && UNRESOLVED.has(topUp.status)) {
    // Bound, this payment would settle the purchase: Stripe's own record of it must be the
    // purchase's charge, not merely carry its id in metadata.
    const facts = await services.provider.describePayment(intent.id);
    const matches =
      facts !== null &&
      facts.topUpId === topUp.id &&
      facts.customerId === topUp.billingCustomerId &&
      facts.amount === topUp.amount &&
      facts.currency === topUp.currency;
    if (!matches) {
      console.warn(`Stripe event ignored: ${intent.id} does not match top-up ${topUp.id} (amount, currency, customer or metadata).`);
      return receipt("ignored", "the PaymentIntent does not match the top-up");
    }
  }
  // The charge's own answer may have been lost (a timeout): learning the id here lets the
  // settlement below retrieve it rather than re-send the charge.
  await services.db
    .update(topUps)
    .set({ providerPaymentId: intent.id })
    .where(and(eq(topUps.id, topUpId), isNull(topUps.providerPaymentId), inArray(topUps.status, [...UNRESOLVED_STATUSES])));
  const result = await resolveTopUp(services, topUpId);
  if (!result) return receipt("ignored", "no such top-up");
  const heldElsewhere = UNRESOLVED.has(result.topUp.status) && result.topUp.lockToken !== null;
  if (result.outcome === "purchase_in_progress" || heldElsewhere) {
    // Another request holds the purchase and will record what Stripe says; nothing to remember.
    return receipt("deferred", "another request is settling this top-up");
  }
  return receipt("handled", `top-up ${topUpId} is ${result.topUp.status}`);
}

/**
 * A card saved through Checkout in setup mode: Stripe has attached it to the customer already.
 * The organisation's first card becomes its default, so it can be used at once.
 */
async function cardSavedAtCheckout(
  services: Services,
  session: Stripe.Checkout.Session,
  receipt: (result: StripeEventReceipt["result"], detail?: string) => StripeEventReceipt,
): Promise<StripeEventReceipt> {
  const customerId = idOf(session.customer);
  if (session.mode !== "setup" || !customerId) return receipt("ignored", "not a card set up for an organisation");
  const [organization] = await services.db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.billingCustomerId, customerId));
  if (!organization) return receipt("ignored", "no organisation has this customer");
  services.provider.invalidatePaymentMethods?.(customerId);
  const made = await makeFirstCardDefault(services, customerId);
  return receipt("handled", made ? `default payment method set to ${made}` : "card saved");
}

/**
 * When a customer has cards but no default, the only or first card becomes the default. Used by
 * the Checkout return page and the checkout.session.completed webhook alike.
 */
export async function makeFirstCardDefault(services: Services, customerId: string): Promise<string | null> {
  const methods = await services.provider.listPaymentMethods(customerId);
  const first = methods[0];
  if (!first || methods.some((method) => method.isDefault)) return null;
  await services.provider.setDefaultPaymentMethod(customerId, first.id);
  return first.id;
}

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === "string" ? value : value.id;
}
