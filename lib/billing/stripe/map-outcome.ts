import type Stripe from "stripe";
import type { ChargeOutcome } from "@/lib/billing/provider";

const AUTHENTICATION_REQUIRED_MESSAGE =
  "The card issuer requires the cardholder to authenticate this payment before it can complete.";

/** Stripe's codes where ours say the same thing in the words docs/contract.md and the simulated provider use. */
const failureCodes: Record<string, string> = {
  generic_decline: "card_declined",
  payment_intent_authentication_failure: "authentication_failed",
};

/**
 * The failure code a person can act on: the issuer's decline_code when it says more than "declined"
 * (insufficient_funds, lost_card), else Stripe's code (card_declined, expired_card).
 */
export function failureCode(error: { code?: string | null; decline_code?: string | null }): string {
  const raw = error.decline_code ?? error.code ?? "card_declined";
  return failureCodes[raw] ?? raw;
}

function needsAuthentication(error: { code?: string | null; decline_code?: string | null }): boolean {
  // Some integrations see code card_declined with decline_code authentication_required: either counts.
  return error.code === "authentication_required" || error.decline_code === "authentication_required";
}

/**
 * What a PaymentIntent's state means for a purchase (docs/contract.md §8's table). An off-session
 * intent that needed 3-D Secure is left in requires_payment_method with an authentication error:
 * that is "awaiting the cardholder", not a failure.
 */
export function outcomeOfPaymentIntent(intent: Stripe.PaymentIntent): ChargeOutcome {
  switch (intent.status) {
    case "succeeded":
      return { status: "succeeded", paymentId: intent.id };
    case "requires_action":
      return {
        status: "requires_action",
        paymentId: intent.id,
        code: "authentication_required",
        message: AUTHENTICATION_REQUIRED_MESSAGE,
      };
    case "canceled":
      return {
        status: "failed",
        paymentId: intent.id,
        code: "canceled",
        message: "The payment was cancelled before it completed; nothing was charged.",
      };
    case "requires_payment_method": {
      const error = intent.last_payment_error;
      // Never attempted: with confirm=true this does not happen; say "unknown" rather than guess.
      if (!error) return { status: "processing", paymentId: intent.id };
      if (needsAuthentication(error)) {
        return {
          status: "requires_action",
          paymentId: intent.id,
          code: "authentication_required",
          message: AUTHENTICATION_REQUIRED_MESSAGE,
        };
      }
      return {
        status: "failed",
        paymentId: intent.id,
        code: failureCode(error),
        message: error.message ?? "The card was declined.",
      };
    }
    default:
      // processing (bank debits), or requires_confirmation/requires_capture, which this code never asks for.
      return { status: "processing", paymentId: intent.id };
  }
}

export { needsAuthentication };
