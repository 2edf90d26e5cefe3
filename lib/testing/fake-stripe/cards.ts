/**
 * Stripe's test PaymentMethod tokens (https://docs.stripe.com/testing), and what each does. Using a
 * token (in attach, or as a PaymentIntent's payment_method) makes a new pm_… backed by its card.
 *
 * `pm_card_fake_*` are this test server's own, for behaviours no Stripe test card has on a saved
 * card (docs/contract.md §6): Stripe itself answers them with resource_missing.
 */
export interface TestCard {
  brand: "visa" | "mastercard" | "amex";
  number: string;
  /** What attaching does: ok, or the decline Stripe answers (it runs a $0 check). */
  attach: "ok" | { code: string; decline_code?: string; message: string };
  /** What an off-session charge does. */
  charge:
    | "succeeded"
    | "processing"
    | "authentication_required"
    | { code: string; decline_code?: string; message: string };
  expired?: boolean;
  /** A processing payment on it succeeds once it is next retrieved (a debit that clears in between). */
  settlesWhenAsked?: boolean;
  /** Its charge succeeds, then the cardholder disputes it (a dispute opens, the amount withdrawn). */
  disputes?: boolean;
}

const declined = { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." };
const insufficient = {
  code: "card_declined",
  decline_code: "insufficient_funds",
  message: "Your card has insufficient funds.",
};

export const TEST_CARD_TOKENS: Record<string, TestCard> = {
  pm_card_visa: { brand: "visa", number: "4242424242424242", attach: "ok", charge: "succeeded" },
  pm_card_mastercard: { brand: "mastercard", number: "5555555555554444", attach: "ok", charge: "succeeded" },
  pm_card_amex: { brand: "amex", number: "378282246310005", attach: "ok", charge: "succeeded" },
  pm_card_chargeCustomerFail: { brand: "visa", number: "4000000000000341", attach: "ok", charge: declined },
  pm_card_authenticationRequired: {
    brand: "visa",
    number: "4000002760003184",
    attach: "ok",
    charge: "authentication_required",
  },
  pm_card_createDispute: {
    brand: "visa",
    number: "4000000000000259",
    attach: "ok",
    charge: "succeeded",
    disputes: true,
  },
  pm_card_chargeDeclined: { brand: "visa", number: "4000000000000002", attach: declined, charge: declined },
  pm_card_visa_chargeDeclined: { brand: "visa", number: "4000000000000002", attach: declined, charge: declined },
  pm_card_chargeDeclinedInsufficientFunds: {
    brand: "visa",
    number: "4000000000009995",
    attach: insufficient,
    charge: insufficient,
  },
  pm_card_visa_chargeDeclinedInsufficientFunds: {
    brand: "visa",
    number: "4000000000009995",
    attach: insufficient,
    charge: insufficient,
  },
  pm_card_chargeDeclinedExpiredCard: {
    brand: "visa",
    number: "4000000000000069",
    attach: { code: "expired_card", message: "Your card has expired." },
    charge: { code: "expired_card", message: "Your card has expired." },
  },
  pm_card_fake_processing: {
    brand: "visa",
    number: "4000000000001881",
    attach: "ok",
    charge: "processing",
    settlesWhenAsked: true,
  },
  pm_card_fake_insufficientFunds: { brand: "visa", number: "4000000000009995", attach: "ok", charge: insufficient },
  pm_card_fake_expired: { brand: "visa", number: "4000000000000069", attach: "ok", charge: "succeeded", expired: true },
};

/** The cards a person can pick on the hosted Checkout page. */
export const CHECKOUT_CARDS: { token: string; label: string }[] = [
  { token: "pm_card_visa", label: "Visa 4242 (succeeds)" },
  { token: "pm_card_mastercard", label: "Mastercard 4444 (succeeds)" },
  { token: "pm_card_authenticationRequired", label: "Visa 3184 (needs 3-D Secure)" },
  { token: "pm_card_chargeCustomerFail", label: "Visa 0341 (attaches, every charge declines)" },
  { token: "pm_card_createDispute", label: "Visa 0259 (succeeds, then disputed)" },
  { token: "pm_card_fake_processing", label: "Visa 1881 (test server only: processing)" },
];
