import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { failureCode, outcomeOfPaymentIntent } from "./map-outcome";

/** A PaymentIntent as Stripe sends it, with only the fields a test cares about changed. */
function intent(overrides: Partial<Stripe.PaymentIntent>): Stripe.PaymentIntent {
  const base = {
    id: "pi_123",
    object: "payment_intent",
    amount: 1000,
    currency: "usd",
    status: "succeeded",
    last_payment_error: null,
    next_action: null,
    metadata: {},
  };
  return { ...base, ...overrides } as Stripe.PaymentIntent;
}

type LastError = NonNullable<Stripe.PaymentIntent["last_payment_error"]>;
const lastError = (fields: Partial<LastError>) => ({ type: "card_error", ...fields }) as LastError;

describe("what a PaymentIntent's state means for a purchase", () => {
  it.each([
    ["succeeded", { status: "succeeded" }, { status: "succeeded", paymentId: "pi_123" }],
    ["processing", { status: "processing" }, { status: "processing", paymentId: "pi_123" }],
    [
      "requires_capture (never asked for)",
      { status: "requires_capture" },
      { status: "processing", paymentId: "pi_123" },
    ],
    [
      "requires_action (3-D Secure on-session)",
      { status: "requires_action" },
      { status: "requires_action", code: "authentication_required" },
    ],
    ["canceled", { status: "canceled" }, { status: "failed", code: "canceled" }],
    [
      "off-session authentication required (code)",
      { status: "requires_payment_method", last_payment_error: lastError({ code: "authentication_required" }) },
      { status: "requires_action", code: "authentication_required" },
    ],
    [
      "off-session authentication required (decline_code only)",
      {
        status: "requires_payment_method",
        last_payment_error: lastError({ code: "card_declined", decline_code: "authentication_required" }),
      },
      { status: "requires_action" },
    ],
    [
      "a generic decline",
      {
        status: "requires_payment_method",
        last_payment_error: lastError({
          code: "card_declined",
          decline_code: "generic_decline",
          message: "Your card was declined.",
        }),
      },
      { status: "failed", code: "card_declined", message: "Your card was declined." },
    ],
    [
      "insufficient funds",
      {
        status: "requires_payment_method",
        last_payment_error: lastError({ code: "card_declined", decline_code: "insufficient_funds" }),
      },
      { status: "failed", code: "insufficient_funds" },
    ],
    [
      "3-D Secure failed on the bank's page",
      {
        status: "requires_payment_method",
        last_payment_error: lastError({ type: "invalid_request_error", code: "payment_intent_authentication_failure" }),
      },
      { status: "failed", code: "authentication_failed" },
    ],
    ["never attempted", { status: "requires_payment_method" }, { status: "processing" }],
  ] as const)("%s", (_, fields, expected) => {
    expect(outcomeOfPaymentIntent(intent(fields as Partial<Stripe.PaymentIntent>))).toMatchObject(expected);
  });

  it("names a failure by the issuer's reason when it says more than 'declined'", () => {
    expect(failureCode({ code: "card_declined", decline_code: "lost_card" })).toBe("lost_card");
    expect(failureCode({ code: "expired_card" })).toBe("expired_card");
    expect(failureCode({ code: "card_declined", decline_code: "generic_decline" })).toBe("card_declined");
  });
});
