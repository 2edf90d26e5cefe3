import type Stripe from "stripe";
import type { ChargeOutcome, ProviderPaymentMethod } from "@/lib/billing/provider";
import { stripeErrorType } from "./client";
import { failureCode, outcomeOfPaymentIntent } from "./map-outcome";
import { stripeTestCardKind } from "./test-cards";

/* Stripe's answers and errors, read as the provider interface's terms (provider.ts asks; these read). */

/**
 * A charge that threw. A card error carries the PaymentIntent Stripe created (it exists, left in
 * requires_payment_method): its state decides. A request Stripe refused before executing (the
 * method was detached, say) is a failure with nothing charged. Anything else is unknown: rethrown.
 */
export function declineOutcome(error: unknown): ChargeOutcome {
  const type = stripeErrorType(error);
  const details = error as Partial<
    Pick<Stripe.errors.StripeError, "code" | "decline_code" | "message" | "payment_intent">
  >;
  if (type === "StripeCardError") {
    if (details.payment_intent) return outcomeOfPaymentIntent(details.payment_intent);
    return {
      status: "failed",
      paymentId: null,
      code: failureCode(details),
      message: details.message ?? "The card was declined.",
    };
  }
  if (type === "StripeInvalidRequestError") {
    return {
      status: "failed",
      paymentId: details.payment_intent?.id ?? null,
      code: "invalid_payment_method",
      message: "The payment method can no longer be charged; nothing was charged.",
    };
  }
  throw error;
}

/** A 5xx that Stripe replayed from an idempotency key's stored response. */
export function isPoisonedKeyReplay(error: unknown): boolean {
  if (stripeErrorType(error) !== "StripeAPIError") return false;
  const details = error as { statusCode?: number; headers?: Record<string, string> };
  return (details.statusCode ?? 0) >= 500 && details.headers?.["idempotent-replayed"] === "true";
}

export function toProviderMethod(
  method: Stripe.PaymentMethod,
  card: Stripe.PaymentMethod.Card,
  defaultId: string | null,
): ProviderPaymentMethod {
  return {
    id: method.id,
    type: "card",
    brand: card.display_brand ?? card.brand,
    last4: card.last4,
    expMonth: card.exp_month,
    expYear: card.exp_year,
    isDefault: method.id === defaultId,
    kind: stripeTestCardKind({ brand: card.brand, last4: card.last4, livemode: method.livemode }),
  };
}
