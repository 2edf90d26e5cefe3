import { isTestCardKind, type TestCardKind } from "@/lib/billing/simulated";

/**
 * What each simulated test card does when charged: offered by the Add test card form, and shown in
 * the dashboard beside a saved card's label. The API's `label` stays "Visa •••• 0002" (CONTRACT §2).
 */
export const TEST_CARD_BEHAVIOUR: Record<TestCardKind, string> = {
  visa: "Succeeds",
  mastercard: "Succeeds",
  declined: "Declined (402)",
  insufficient_funds: "Insufficient funds (402)",
  authentication_required: "Needs authentication (402 until completed)",
  processing: "Unresolved at first (409), paid when retried",
  expired: "Expired: never listed, refused (422)",
};

/** What a saved card does when charged, when it is a simulated test card; undefined for a real card. */
export function testCardBehaviour(kind: string | undefined): string | undefined {
  return kind && isTestCardKind(kind) ? TEST_CARD_BEHAVIOUR[kind] : undefined;
}
