/**
 * docs/contract.md §6: the test payment method Stripe attaches for each `--card KIND` in test mode.
 * Stripe refuses to attach its decline cards, so a saved card that declines is
 * pm_card_chargeCustomerFail (it attaches; every charge to it declines).
 */
export const STRIPE_TEST_CARD_TOKENS: Record<string, string> = {
  visa: "pm_card_visa",
  mastercard: "pm_card_mastercard",
  authentication_required: "pm_card_authenticationRequired",
  declined: "pm_card_chargeCustomerFail",
  /** Its charge succeeds, then the cardholder disputes it (a dispute opens, the amount withdrawn). */
  dispute: "pm_card_createDispute",
};

/**
 * Kinds no Stripe test card reproduces on a saved card. Only a Stripe-compatible test server
 * (STRIPE_API_URL, e.g. `npm run stripe:fake`) offers them, under names Stripe never uses.
 */
export const TEST_SERVER_ONLY_CARD_TOKENS: Record<string, string> = {
  processing: "pm_card_fake_processing",
  insufficient_funds: "pm_card_fake_insufficientFunds",
  expired: "pm_card_fake_expired",
};

/** The kinds this Stripe can attach: its own test cards, and a test server's extra ones. */
export function stripeTestCardKinds(testServer: boolean): string[] {
  return [...Object.keys(STRIPE_TEST_CARD_TOKENS), ...(testServer ? Object.keys(TEST_SERVER_ONLY_CARD_TOKENS) : [])];
}

/** The token for a kind, or a message saying why this Stripe cannot have it. */
export function stripeTestCardToken(kind: string, testServer: boolean): { token: string } | { refused: string } {
  const token = STRIPE_TEST_CARD_TOKENS[kind] ?? (testServer ? TEST_SERVER_ONLY_CARD_TOKENS[kind] : undefined);
  if (token) return { token };
  const offered = Object.keys(STRIPE_TEST_CARD_TOKENS).join(", ");
  return Object.hasOwn(TEST_SERVER_ONLY_CARD_TOKENS, kind)
    ? { refused: `Stripe's test cards cannot make a saved "${kind}" card; with Stripe use one of: ${offered}.` }
    : { refused: `Unknown test card "${kind}"; with Stripe use one of: ${offered}.` };
}

/**
 * The test card behind a saved card, by brand and last four digits, as each kind's token above
 * attaches it. It names a test-mode card whichever way it was saved (`--card`, or typed on the
 * Checkout page), so it behaves and is labelled alike; a live card has none.
 */
const TEST_CARD_KIND_BY_NUMBER: Record<string, string> = {
  "visa 4242": "visa",
  "mastercard 4444": "mastercard",
  "visa 0341": "declined",
  "visa 3184": "authentication_required",
  "visa 0259": "dispute",
  "visa 1881": "processing",
  "visa 9995": "insufficient_funds",
  "visa 0069": "expired",
};

export function stripeTestCardKind(card: { brand: string; last4: string; livemode: boolean }): string | undefined {
  return card.livemode ? undefined : TEST_CARD_KIND_BY_NUMBER[`${card.brand} ${card.last4}`];
}
