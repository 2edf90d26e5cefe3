import { TEST_CARD_CHOICES } from "./payment-details";

/**
 * What a simulated test card does when charged ("Declined (402)"), for the dashboard beside the
 * card's label; undefined for a real card. The texts are those the Add test card form offers, so
 * there is one description per kind. The API's `label` stays "Visa •••• 0002" (CONTRACT §2).
 */
export function testCardBehaviour(kind: string | undefined): string | undefined {
  if (!kind) return undefined;
  return TEST_CARD_CHOICES.find((choice) => choice.kind === kind)?.behaviour;
}
