import type Stripe from "stripe";
import { type FormObject, str } from "./form";
import type { WirePrice } from "./objects";

/*
 * What a route is given (Ctx) and what it gives back (Answer), and Stripe's error answers. Every
 * body is typed with the SDK's own types, so the compiler holds each route to Stripe's shapes.
 */

/** One request as a route sees it: `params` are the path's captured ids, decoded. */
export interface Ctx {
  method: string;
  path: string;
  query: FormObject;
  form: FormObject;
  params: string[];
}

/** The API objects this server stores and answers. */
export type StripeObject =
  | Stripe.Customer
  | Stripe.DeletedCustomer
  | Stripe.PaymentMethod
  | Stripe.Product
  | WirePrice
  | Stripe.PaymentIntent
  | Stripe.Checkout.Session
  | Stripe.SetupIntent
  | Stripe.Charge
  | Stripe.Refund
  | Stripe.Dispute
  | Stripe.Event;

/**
 * Stripe's error object. `request_log_url` is null here (this server keeps no dashboard), where the
 * SDK's type allows only a string.
 */
export type StripeErrorBody = {
  error: Omit<
    Stripe.StripeRawError,
    "request_log_url" | "headers" | "statusCode" | "requestId" | "detail" | "exception"
  > & {
    request_log_url?: string | null;
  };
};

export type StripeBody =
  | StripeObject
  | Stripe.ApiList<StripeObject>
  | Stripe.ApiSearchResult<StripeObject>
  | StripeErrorBody;

export interface Answer<T = StripeBody> {
  status: number;
  body: T;
  /** Not stored under an idempotency key (validation errors, as Stripe documents). */
  transient?: boolean;
}

/** What the server does with an API request: answer it, or drop the connection without a word. */
export type Reply = (Answer & { headers?: Record<string, string> }) | "drop";

export function ok<T extends StripeBody>(body: T): Answer<T> {
  return { status: 200, body };
}

/** Stripe's error answers, thrown from deep inside a route and turned into its Answer by the server. */
export class StripeFakeError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
    readonly transient: boolean,
  ) {
    super(String(body.error.message));
  }
}

export const invalid = (message: string, extra: StripeErrorBody["error"] = {}) =>
  new StripeFakeError(400, { error: { type: "invalid_request_error", message, ...extra } }, true);

export const missing = (kind: string, id: string, param = "id") =>
  new StripeFakeError(
    404,
    { error: { type: "invalid_request_error", code: "resource_missing", param, message: `No such ${kind}: '${id}'` } },
    true,
  );

/** A required string parameter, or Stripe's 400 naming it. */
export function required(form: FormObject, param: string): string {
  const value = str(form, param);
  if (!value) throw invalid(`Missing required param: ${param}.`, { code: "parameter_missing", param });
  return value;
}
