import { type Answer, type Ctx, ok, StripeFakeError } from "./answers";
import { listPage } from "./lists";
import { retrieveCharge } from "./resources/charges";
import { createSession, retrieveSession, retrieveSetupIntent } from "./resources/checkout";
import {
  createCustomer,
  deleteCustomer,
  listCustomers,
  retrieveCustomer,
  searchCustomers,
  updateCustomer,
} from "./resources/customers";
import { listDisputes, retrieveDispute, updateDispute } from "./resources/disputes";
import {
  cancelIntent,
  confirmIntent,
  createIntent,
  listIntents,
  retrieveIntent,
  searchIntents,
} from "./resources/payment-intents";
import {
  attach,
  detach,
  listCustomerMethods,
  listMethodsOfCustomer,
  retrieveMethod,
  updateMethod,
} from "./resources/payment-methods";
import {
  createPrice,
  createProduct,
  listPrices,
  retrievePrice,
  retrieveProduct,
  updatePrice,
} from "./resources/prices";
import { createRefund, listRefunds, retrieveRefund } from "./resources/refunds";
import type { Store } from "./store";

/*
 * The Stripe API this server answers: one line per route, first match wins (so /search comes
 * before /:id). Each handler takes the store and the request and gives back Stripe's answer.
 */

type Handler = (store: Store, ctx: Ctx) => Answer;

const routes: [method: string, pattern: RegExp, handler: Handler][] = [
  ["POST", /^\/v1\/customers$/, createCustomer],
  ["GET", /^\/v1\/customers$/, listCustomers],
  ["GET", /^\/v1\/customers\/search$/, searchCustomers],
  ["GET", /^\/v1\/customers\/([^/]+)$/, retrieveCustomer],
  ["POST", /^\/v1\/customers\/([^/]+)$/, updateCustomer],
  ["DELETE", /^\/v1\/customers\/([^/]+)$/, deleteCustomer],
  ["GET", /^\/v1\/customers\/([^/]+)\/payment_methods$/, listCustomerMethods],
  ["GET", /^\/v1\/payment_methods$/, listMethodsOfCustomer],
  ["GET", /^\/v1\/payment_methods\/([^/]+)$/, retrieveMethod],
  ["POST", /^\/v1\/payment_methods\/([^/]+)\/attach$/, attach],
  ["POST", /^\/v1\/payment_methods\/([^/]+)\/detach$/, detach],
  ["POST", /^\/v1\/payment_methods\/([^/]+)$/, updateMethod],
  ["POST", /^\/v1\/products$/, createProduct],
  ["GET", /^\/v1\/products\/([^/]+)$/, retrieveProduct],
  ["POST", /^\/v1\/prices$/, createPrice],
  ["GET", /^\/v1\/prices$/, listPrices],
  ["GET", /^\/v1\/prices\/([^/]+)$/, retrievePrice],
  ["POST", /^\/v1\/prices\/([^/]+)$/, updatePrice],
  ["POST", /^\/v1\/payment_intents$/, createIntent],
  ["GET", /^\/v1\/payment_intents$/, listIntents],
  ["GET", /^\/v1\/payment_intents\/search$/, searchIntents],
  ["GET", /^\/v1\/payment_intents\/([^/]+)$/, retrieveIntent],
  ["POST", /^\/v1\/payment_intents\/([^/]+)\/confirm$/, confirmIntent],
  ["POST", /^\/v1\/payment_intents\/([^/]+)\/cancel$/, cancelIntent],
  ["GET", /^\/v1\/charges\/([^/]+)$/, retrieveCharge],
  ["POST", /^\/v1\/refunds$/, createRefund],
  ["GET", /^\/v1\/refunds$/, listRefunds],
  ["GET", /^\/v1\/refunds\/([^/]+)$/, retrieveRefund],
  ["GET", /^\/v1\/disputes$/, listDisputes],
  ["GET", /^\/v1\/disputes\/([^/]+)$/, retrieveDispute],
  ["POST", /^\/v1\/disputes\/([^/]+)$/, updateDispute],
  ["POST", /^\/v1\/checkout\/sessions$/, createSession],
  ["GET", /^\/v1\/checkout\/sessions\/([^/]+)$/, retrieveSession],
  ["GET", /^\/v1\/setup_intents\/([^/]+)$/, retrieveSetupIntent],
  ["GET", /^\/v1\/events$/, (store, ctx) => ok(listPage(store.events.all().reverse(), ctx, "/v1/events"))],
  ["GET", /^\/v1\/events\/([^/]+)$/, (store, { params: [id = ""] }) => ok(store.event(id))],
];

/** Runs the request's route; Stripe's errors, thrown anywhere inside, become their answer. */
export function route(store: Store, ctx: Ctx): Answer {
  try {
    for (const [method, pattern, handler] of routes) {
      if (method !== ctx.method) continue;
      const match = pattern.exec(ctx.path);
      if (match) return handler(store, { ...ctx, params: match.slice(1).map(decodeURIComponent) });
    }
    throw new StripeFakeError(
      404,
      { error: { type: "invalid_request_error", message: `Unrecognized request URL (${ctx.method}: ${ctx.path}).` } },
      true,
    );
  } catch (error) {
    if (!(error instanceof StripeFakeError)) throw error;
    return { status: error.status, body: error.body, transient: error.transient };
  }
}
