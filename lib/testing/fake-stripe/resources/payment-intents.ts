import type Stripe from "stripe";
import { type Answer, type Ctx, invalid, ok, required, type StripeErrorBody } from "../answers";
import { TEST_CARD_TOKENS } from "../cards";
import { bool, type FormObject, int, metadataOf, obj, str } from "../form";
import { listPage, matchesQuery, searchResult } from "../lists";
import { paymentIntentObject, stripeId } from "../objects";
import type { Store } from "../store";
import { chargeIntent } from "./charges";
import { openDispute } from "./disputes";
import { resolveMethod } from "./payment-methods";

type Decline = {
  code: string;
  decline_code?: string;
  message: string;
  type?: Stripe.PaymentIntent.LastPaymentError.Type;
};

// POST /v1/payment_intents
export function createIntent(store: Store, { form }: Ctx): Answer<Stripe.PaymentIntent | StripeErrorBody> {
  const amount = int(form, "amount");
  if (amount === undefined)
    throw invalid("Missing required param: amount.", { code: "parameter_missing", param: "amount" });
  if (amount < 50) throw invalid("Amount must be at least 50 cents.", { code: "amount_too_small", param: "amount" });
  const currency = required(form, "currency");
  if (currency !== currency.toLowerCase()) throw invalid(`Invalid currency: ${currency}.`, { param: "currency" });
  const customerId = str(form, "customer") ?? null;
  if (customerId) store.customer(customerId, "customer");
  const token = str(form, "payment_method");
  const methodId = token ? resolveMethod(store, token) : null;
  if (methodId && customerId) {
    const owner = store.method(methodId).method.customer;
    if (owner && owner !== customerId) {
      throw invalid(`The provided PaymentMethod ${methodId} belongs to another customer.`, { param: "payment_method" });
    }
    if (!owner && !TEST_CARD_TOKENS[token ?? ""]) {
      throw invalid(
        `The provided PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.`,
        { param: "payment_method" },
      );
    }
  }
  const intent = paymentIntentObject({
    id: stripeId("pi"),
    created: store.clock.seconds(),
    amount,
    currency,
    customer: customerId,
    paymentMethod: methodId,
    metadata: metadataOf(form),
    description: str(form, "description") ?? null,
  });
  store.intents.set(intent.id, intent);
  store.events.emit("payment_intent.created", intent);
  if (!bool(form, "confirm")) {
    if (methodId) intent.status = "requires_confirmation";
    return ok(intent);
  }
  return attempt(store, intent, form);
}

// GET /v1/payment_intents/:id
export function retrieveIntent(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.PaymentIntent> {
  const intent = store.intent(id);
  const methodId = typeof intent.payment_method === "string" ? intent.payment_method : null;
  if (intent.status === "processing" && methodId && store.methods.get(methodId)?.card.settlesWhenAsked)
    succeed(store, intent);
  return ok(intent);
}

// POST /v1/payment_intents/:id/confirm
export function confirmIntent(
  store: Store,
  { params: [id = ""], form }: Ctx,
): Answer<Stripe.PaymentIntent | StripeErrorBody> {
  const intent = store.intent(id);
  if (intent.status !== "requires_payment_method" && intent.status !== "requires_confirmation") {
    throw invalid(`This PaymentIntent's status is ${intent.status}; it cannot be confirmed.`, {
      code: "payment_intent_unexpected_state",
      payment_intent: intent,
    });
  }
  const token = str(form, "payment_method");
  if (token) intent.payment_method = resolveMethod(store, token);
  return attempt(store, intent, form);
}

// POST /v1/payment_intents/:id/cancel
export function cancelIntent(store: Store, { params: [id = ""], form }: Ctx): Answer<Stripe.PaymentIntent> {
  const intent = store.intent(id);
  const cancellable = [
    "requires_payment_method",
    "requires_capture",
    "requires_confirmation",
    "requires_action",
    "processing",
  ];
  if (!cancellable.includes(intent.status)) {
    throw invalid(
      `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancellable.join(", ")}.`,
      { code: "payment_intent_unexpected_state", payment_intent: intent },
    );
  }
  intent.status = "canceled";
  intent.canceled_at = store.clock.seconds();
  intent.cancellation_reason =
    (str(form, "cancellation_reason") as Stripe.PaymentIntent.CancellationReason | undefined) ?? null;
  intent.next_action = null;
  store.events.emit("payment_intent.canceled", intent);
  return ok(intent);
}

// GET /v1/payment_intents
export function listIntents(store: Store, ctx: Ctx): Answer<Stripe.ApiList<Stripe.PaymentIntent>> {
  const customer = str(ctx.query, "customer");
  const gte = int(obj(ctx.query, "created") ?? {}, "gte");
  const intents = [...store.intents.values()]
    .filter((intent) => (!customer || intent.customer === customer) && (gte === undefined || intent.created >= gte))
    .reverse();
  return ok(listPage(intents, ctx, "/v1/payment_intents"));
}

// GET /v1/payment_intents/search
export function searchIntents(store: Store, { query }: Ctx): Answer<Stripe.ApiSearchResult<Stripe.PaymentIntent>> {
  const text = str(query, "query") ?? "";
  const data = [...store.intents.values()].filter((intent) =>
    matchesQuery(text, intent.metadata, {
      customer: typeof intent.customer === "string" ? intent.customer : null,
      status: intent.status,
    }),
  );
  return ok(searchResult(data, "/v1/payment_intents/search"));
}

/** The cardholder's step on the 3-D Secure page: the payment succeeds, or fails authentication. */
export function finishAuthentication(store: Store, id: string, succeeded: boolean): Stripe.PaymentIntent {
  const intent = store.intent(id);
  if (intent.status !== "requires_action") throw new Error(`${id} is ${intent.status}, not requires_action`);
  if (succeeded) succeed(store, intent);
  else {
    decline(store, intent, {
      type: "invalid_request_error",
      code: "payment_intent_authentication_failure",
      message:
        "The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.",
    });
  }
  return intent;
}

/** A processing payment settles (a bank debit clearing, or failing). */
export function settleProcessing(store: Store, id: string, succeeded: boolean): Stripe.PaymentIntent {
  const intent = store.intent(id);
  if (intent.status !== "processing") throw new Error(`${id} is ${intent.status}, not processing`);
  if (succeeded) succeed(store, intent);
  else
    decline(store, intent, {
      code: "card_declined",
      decline_code: "generic_decline",
      message: "Your card was declined.",
    });
  return intent;
}

/** One confirmation attempt with the intent's card, as Stripe runs it. */
function attempt(
  store: Store,
  intent: Stripe.PaymentIntent,
  form: FormObject,
): Answer<Stripe.PaymentIntent | StripeErrorBody> {
  const offSession = bool(form, "off_session") ?? false;
  const returnUrl = str(form, "return_url");
  const methodId = methodIdOf(intent);
  if (!methodId)
    throw invalid("You cannot confirm this PaymentIntent because it's missing a payment method.", {
      code: "payment_intent_unexpected_state",
    });
  const { card, method } = store.method(methodId);
  const charge = card.expired ? { code: "expired_card", message: "Your card has expired." } : card.charge;
  intent.last_payment_error = null;
  if (charge === "succeeded") {
    succeed(store, intent);
    return ok(intent);
  }
  if (charge === "processing") {
    intent.status = "processing";
    store.events.emit("payment_intent.processing", intent);
    return ok(intent);
  }
  if (charge === "authentication_required") {
    if (!offSession) {
      if (!returnUrl) {
        throw invalid("A return_url is needed to confirm this PaymentIntent: it requires authentication.", {
          param: "return_url",
        });
      }
      intent.status = "requires_action";
      const url = `${store.baseUrl}/_pages/3ds/${intent.id}?return_url=${encodeURIComponent(returnUrl)}`;
      intent.next_action = { type: "redirect_to_url", redirect_to_url: { return_url: returnUrl, url } };
      store.events.emit("payment_intent.requires_action", intent);
      return ok(intent);
    }
    return cardError(
      store,
      intent,
      {
        code: "authentication_required",
        decline_code: "authentication_required",
        message: "Your card was declined. This transaction requires authentication.",
      },
      method,
    );
  }
  return cardError(store, intent, charge, method);
}

function methodIdOf(intent: Stripe.PaymentIntent): string | undefined {
  return typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
}

/** The payment succeeds with a Charge; on a disputing test card, its dispute then opens. */
function succeed(store: Store, intent: Stripe.PaymentIntent): void {
  intent.status = "succeeded";
  intent.amount_received = intent.amount;
  const charge = chargeIntent(store, intent);
  intent.next_action = null;
  intent.last_payment_error = null;
  store.events.emit("payment_intent.succeeded", intent);
  const methodId = methodIdOf(intent);
  if (methodId && store.methods.get(methodId)?.card.disputes) openDispute(store, charge);
}

function decline(store: Store, intent: Stripe.PaymentIntent, error: Decline): void {
  intent.status = "requires_payment_method";
  intent.next_action = null;
  const methodId = methodIdOf(intent);
  intent.last_payment_error = {
    type: error.type ?? "card_error",
    code: error.code as Stripe.PaymentIntent.LastPaymentError.Code,
    decline_code: error.decline_code,
    message: error.message,
    payment_method: methodId ? store.method(methodId).method : undefined,
  };
  store.events.emit("payment_intent.payment_failed", intent);
}

/** A declined attempt: the intent exists, left needing a payment method, and the answer is 402. */
function cardError(
  store: Store,
  intent: Stripe.PaymentIntent,
  error: Decline,
  method: Stripe.PaymentMethod,
): Answer<StripeErrorBody> {
  decline(store, intent, error);
  return {
    status: 402,
    body: {
      error: {
        type: "card_error",
        code: error.code,
        decline_code: error.decline_code,
        message: error.message,
        charge: stripeId("ch"),
        doc_url: `https://stripe.com/docs/error-codes/${error.code.replace(/_/g, "-")}`,
        payment_method: method,
        payment_intent: intent,
        request_log_url: null,
      },
    },
  };
}
