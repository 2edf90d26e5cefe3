import type Stripe from "stripe";
import { type Answer, type Ctx, invalid, ok, required } from "../answers";
import { metadataOf, str } from "../form";
import { expands } from "../lists";
import { checkoutSessionObject, setupIntentObject, stripeId } from "../objects";
import type { Store } from "../store";
import { attachTo, resolveMethod } from "./payment-methods";

// POST /v1/checkout/sessions (setup mode only)
export function createSession(store: Store, { form }: Ctx): Answer<Stripe.Checkout.Session> {
  if (str(form, "mode") !== "setup")
    throw invalid("This test server offers Checkout in setup mode only.", { param: "mode" });
  const customer = required(form, "customer");
  store.customer(customer, "customer");
  const successUrl = required(form, "success_url");
  const id = stripeId("cs_test");
  const session = checkoutSessionObject({
    id,
    created: store.clock.seconds(),
    customer,
    successUrl,
    cancelUrl: str(form, "cancel_url") ?? null,
    url: `${store.baseUrl}/_pages/checkout/${id}`,
    metadata: metadataOf(form),
    currency: str(form, "currency") ?? null,
  });
  store.sessions.set(id, session);
  return ok(session);
}

// GET /v1/checkout/sessions/:id (expand setup_intent, setup_intent.payment_method)
export function retrieveSession(store: Store, { params: [id = ""], query }: Ctx): Answer<Stripe.Checkout.Session> {
  const session = store.session(id);
  const expand = expands(query);
  const setupId = typeof session.setup_intent === "string" ? session.setup_intent : null;
  if (!expand.has("setup_intent") || !setupId) return ok(session);
  const setup = { ...store.setupIntent(setupId) };
  if (expand.has("setup_intent.payment_method") && typeof setup.payment_method === "string") {
    setup.payment_method = store.method(setup.payment_method).method;
  }
  return ok({ ...session, setup_intent: setup });
}

// GET /v1/setup_intents/:id
export function retrieveSetupIntent(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.SetupIntent> {
  return ok(store.setupIntent(id));
}

/** The customer picked a card on the hosted page: it is saved through a SetupIntent, and the session completes. */
export function completeSession(store: Store, id: string, token: string): Stripe.Checkout.Session {
  const session = store.sessions.get(id);
  if (session?.status !== "open") throw new Error("This Checkout session is not open.");
  const customer = typeof session.customer === "string" ? session.customer : "";
  const methodId = resolveMethod(store, token);
  attachTo(store, methodId, customer);
  const setup = setupIntentObject({
    id: stripeId("seti"),
    created: store.clock.seconds(),
    customer,
    paymentMethod: methodId,
  });
  store.setupIntents.set(setup.id, setup);
  store.events.emit("setup_intent.succeeded", setup);
  session.setup_intent = setup.id;
  session.status = "complete";
  store.events.emit("checkout.session.completed", session);
  return session;
}
