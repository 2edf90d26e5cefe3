import type Stripe from "stripe";
import type {
  CardSetupStart,
  FinishedCardSetup,
  ProviderPaymentMethod,
  ProvisionCardsInput,
} from "@/lib/billing/provider";
import { toProviderMethod } from "./answers";
import { stripeErrorType } from "./client";
import { idOf } from "./events";
import { rethrowRefusal, stripeReadError } from "./refusals";

/*
 * The organisation's customer at Stripe and its cards: made, added through Checkout (or, in test
 * mode, attached), made the default, removed. StripeBillingProvider calls these and drops its
 * cache of the customer's cards after each change.
 */

export async function startCardSetup(
  stripe: Stripe,
  customerId: string,
  setup: CardSetupStart,
): Promise<{ url: string }> {
  const session = await stripe.checkout.sessions
    .create({
      mode: "setup",
      customer: customerId,
      currency: "usd",
      success_url: setup.successUrl,
      cancel_url: setup.cancelUrl,
      ...(setup.startedBy ? { metadata: { started_by: setup.startedBy } } : {}),
    })
    .catch(rethrowRefusal(customerId));
  if (!session.url) throw new Error("Stripe did not return a Checkout URL.");
  return { url: session.url };
}

/** The card a finished Checkout setup saved, when the session is this customer's; null otherwise. */
export async function finishCardSetup(
  stripe: Stripe,
  customerId: string,
  sessionId: string,
): Promise<FinishedCardSetup | null> {
  const session = await stripe.checkout.sessions.retrieve(sessionId, { expand: ["setup_intent"] });
  // Another customer's session is not this organisation's card, whatever the link says.
  if (idOf(session.customer) !== customerId || session.mode !== "setup" || session.status !== "complete") return null;
  const setup = session.setup_intent;
  const paymentMethodId = typeof setup === "string" || !setup ? null : idOf(setup.payment_method);
  return paymentMethodId ? { paymentMethodId, startedBy: session.metadata?.started_by || null } : null;
}

export async function createCustomer(
  stripe: Stripe,
  input: { organizationId: string; name: string; replacing?: string },
): Promise<string> {
  const key = input.replacing
    ? `customer_${input.organizationId}_after_${input.replacing}`
    : `customer_${input.organizationId}`;
  const customer = await stripe.customers.create(
    { name: input.name, metadata: { organization_id: input.organizationId } },
    { idempotencyKey: key },
  );
  return customer.id;
}

/** Test mode only: Stripe's test payment method for each kind, attached in order, none made the default. */
export async function attachTestCards(
  stripe: Stripe,
  input: ProvisionCardsInput,
  tokenOf: (kind: string) => { token: string } | { refused: string },
): Promise<ProviderPaymentMethod[]> {
  const tokens = input.kinds.map((kind) => {
    const mapped = tokenOf(kind);
    if ("refused" in mapped) throw new Error(mapped.refused);
    return { kind, token: mapped.token };
  });
  const added: ProviderPaymentMethod[] = [];
  for (const [index, { kind, token }] of tokens.entries()) {
    const attached = await stripe.paymentMethods.attach(token, { customer: input.customerId });
    const method = await stripe.paymentMethods.update(attached.id, { metadata: { kind } });
    if (!method.card) throw new Error(`Stripe attached ${token} as something other than a card.`);
    added.push({ ...toProviderMethod(method, method.card, null), isDefault: index === input.defaultIndex });
  }
  return added;
}

export async function setDefaultPaymentMethod(
  stripe: Stripe,
  customerId: string,
  paymentMethodId: string | null,
): Promise<void> {
  // An empty string unsets a field in Stripe's form encoding.
  await stripe.customers
    .update(customerId, { invoice_settings: { default_payment_method: paymentMethodId ?? "" } })
    .catch(rethrowRefusal(customerId));
}

/**
 * Detaches the card after checking it is this customer's: Stripe would detach any customer's.
 * Stripe itself clears invoice_settings.default_payment_method when it names the detached card
 * (the fake does the same), and listPaymentMethods would show no default for it either way.
 */
export async function removePaymentMethod(
  stripe: Stripe,
  customerId: string,
  paymentMethodId: string,
): Promise<boolean> {
  try {
    const method = await stripe.paymentMethods.retrieve(paymentMethodId);
    if (idOf(method.customer) !== customerId) return false;
    await stripe.paymentMethods.detach(paymentMethodId);
    return true;
  } catch (error) {
    // An unknown ID (resource_missing) is no card of this customer's; anything else is an outage.
    if (stripeErrorType(error) === "StripeInvalidRequestError" && (error as { statusCode?: number }).statusCode === 404)
      return false;
    throw stripeReadError(error, "Stripe did not remove the card.", customerId);
  }
}
