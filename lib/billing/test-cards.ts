/**
 * The test cards of docs/contract.md §6, after Stripe's: what each one does when charged.
 * `expired` is a card whose expiry has passed, so it is never usable.
 */
export const TEST_CARDS = {
  visa: { brand: "visa", last4: "4242", charge: "succeeded" },
  mastercard: { brand: "mastercard", last4: "4444", charge: "succeeded" },
  declined: { brand: "visa", last4: "0002", charge: "card_declined" },
  insufficient_funds: { brand: "visa", last4: "9995", charge: "insufficient_funds" },
  authentication_required: { brand: "visa", last4: "3184", charge: "requires_action" },
  processing: { brand: "visa", last4: "1881", charge: "processing" },
  expired: { brand: "visa", last4: "0069", charge: "expired_card" },
  /** After Stripe's pm_card_createDispute: the charge succeeds, then the cardholder disputes it. */
  dispute: { brand: "visa", last4: "0259", charge: "succeeded" },
} as const;

export type TestCardKind = keyof typeof TEST_CARDS;

export function isTestCardKind(value: string): value is TestCardKind {
  return Object.hasOwn(TEST_CARDS, value);
}
