import type Stripe from "stripe";
import { type Answer, type Ctx, invalid, missing, ok, required, StripeFakeError } from "../answers";
import { TEST_CARD_TOKENS } from "../cards";
import { int, metadataOf, obj, str } from "../form";
import { listPage } from "../lists";
import { type PreviousAttributes, paymentMethodObject, stripeId } from "../objects";
import type { Store } from "../store";

/** A pm_… id, or a test token that makes a new one (as Stripe's test mode does). */
export function resolveMethod(store: Store, idOrToken: string): string {
  if (store.methods.has(idOrToken)) return idOrToken;
  const card = TEST_CARD_TOKENS[idOrToken];
  if (!card) throw missing("PaymentMethod", idOrToken, "payment_method");
  const year = new Date(store.clock.now()).getUTCFullYear();
  const method = paymentMethodObject({
    id: stripeId("pm"),
    created: store.clock.seconds(),
    card,
    expYear: card.expired ? year - 1 : year + 4,
  });
  store.methods.set(method.id, { method, card });
  return method.id;
}

export function attachTo(store: Store, id: string, customerId: string): Stripe.PaymentMethod {
  const { method } = store.method(id);
  if (method.customer && method.customer !== customerId) {
    throw invalid("The payment method you provided has already been attached to a customer.");
  }
  method.customer = customerId;
  store.events.emit("payment_method.attached", method);
  return method;
}

// GET /v1/payment_methods/:id
export function retrieveMethod(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.PaymentMethod> {
  return ok(store.method(id).method);
}

// POST /v1/payment_methods/:id/attach
export function attach(store: Store, { params: [idOrToken = ""], form }: Ctx): Answer<Stripe.PaymentMethod> {
  const customerId = required(form, "customer");
  store.customer(customerId, "customer");
  const card = TEST_CARD_TOKENS[idOrToken];
  if (card && card.attach !== "ok") {
    // Stripe checks the card when attaching; its decline cards fail here, and are stored as such.
    throw new StripeFakeError(
      402,
      {
        error: {
          type: "card_error",
          ...card.attach,
          param: "",
          doc_url: "https://stripe.com/docs/error-codes/card-declined",
        },
      },
      false,
    );
  }
  const id = resolveMethod(store, idOrToken);
  return ok(attachTo(store, id, customerId));
}

// POST /v1/payment_methods/:id/detach
export function detach(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.PaymentMethod> {
  const { method } = store.method(id);
  if (!method.customer)
    throw invalid(`The payment method you provided is not attached to a customer so detachment is impossible.`);
  const customerId = typeof method.customer === "string" ? method.customer : method.customer.id;
  method.customer = null;
  store.events.emit("payment_method.detached", method, { customer: customerId });
  // Detaching the customer's default card leaves it with none: the customer changed too.
  const customer = store.customers.get(customerId);
  if (customer?.invoice_settings.default_payment_method === id) {
    customer.invoice_settings.default_payment_method = null;
    store.events.emit("customer.updated", customer, { invoice_settings: { default_payment_method: id } });
  }
  return ok(method);
}

// POST /v1/payment_methods/:id
export function updateMethod(store: Store, { params: [id = ""], form }: Ctx): Answer<Stripe.PaymentMethod> {
  const { method } = store.method(id);
  const previous: PreviousAttributes<Stripe.PaymentMethod> = {};
  const metadata = metadataOf(form, method.metadata ?? {});
  const metadataBefore = changedKeys(method.metadata ?? {}, metadata);
  if (metadataBefore) previous.metadata = metadataBefore;
  method.metadata = metadata;
  const card = obj(form, "card");
  if (card && method.card) {
    // Stripe lets a saved card's expiry be updated (the cardholder's new card, same number).
    if (!method.customer) throw invalid("You must save this PaymentMethod to a customer before you can update it.");
    const month = int(card, "exp_month");
    const year = int(card, "exp_year");
    if (month !== undefined && (month < 1 || month > 12))
      throw invalid("Your card's expiration month is invalid.", { param: "card[exp_month]" });
    const cardBefore: Partial<Stripe.PaymentMethod.Card> = {};
    if (month !== undefined && month !== method.card.exp_month) cardBefore.exp_month = method.card.exp_month;
    if (year !== undefined && year !== method.card.exp_year) cardBefore.exp_year = method.card.exp_year;
    if (Object.keys(cardBefore).length > 0) previous.card = cardBefore;
    if (month !== undefined) method.card.exp_month = month;
    if (year !== undefined) method.card.exp_year = year;
  }
  // As Stripe, an update that changes nothing makes no event.
  if (Object.keys(previous).length > 0) store.events.emit("payment_method.updated", method, previous);
  return ok(method);
}

/** Of a metadata hash, the keys an update changed with their values before (absent when none changed). */
export function changedKeys(before: Stripe.Metadata, after: Stripe.Metadata): Stripe.Metadata | undefined {
  const changed: Stripe.Metadata = {};
  let any = false;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[key] === after[key]) continue;
    any = true;
    // Stripe says null for a key that was not there; the SDK's Metadata type has no null, so it is left out.
    const value = before[key];
    if (value !== undefined) changed[key] = value;
  }
  return any ? changed : undefined;
}

// GET /v1/customers/:id/payment_methods
export function listCustomerMethods(store: Store, ctx: Ctx): Answer<Stripe.ApiList<Stripe.PaymentMethod>> {
  return listMethods(store, ctx, ctx.params[0] ?? "", "id");
}

// GET /v1/payment_methods?customer=
export function listMethodsOfCustomer(store: Store, ctx: Ctx): Answer<Stripe.ApiList<Stripe.PaymentMethod>> {
  return listMethods(store, ctx, required(ctx.query, "customer"), "customer");
}

function listMethods(
  store: Store,
  ctx: Ctx,
  customerId: string,
  param: string,
): Answer<Stripe.ApiList<Stripe.PaymentMethod>> {
  store.customer(customerId, param);
  const type = str(ctx.query, "type");
  const methods = [...store.methods.values()]
    .map((entry) => entry.method)
    .filter((method) => method.customer === customerId && (!type || method.type === type))
    .reverse();
  return ok(listPage(methods, ctx, `/v1/customers/${customerId}/payment_methods`));
}
