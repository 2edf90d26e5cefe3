import type { BillingProvider, TestMode } from "@/lib/billing/provider";
import { isTestCardKind, TEST_CARDS, type TestCardKind } from "@/lib/billing/test-cards";
import { paymentMethodLabel } from "../../billing/card-label";
import { listProvisionedPaymentMethods, requireOrganization } from "../accounts/organizations";
import { PointsError } from "../errors";
import type { Services } from "../services";
import { announceCardAdded } from "./payment-method-events";
import { isExpired, type PaymentMethod } from "./payment-methods";

/**
 * What each test card does when charged, in words for an admin: offered by the Add test card form,
 * and shown beside a saved test card's label whichever way it was saved, on either provider. The
 * API's `label` stays "Visa •••• 0002" (docs/contract.md §2).
 */
export const TEST_CARD_BEHAVIOUR: Record<TestCardKind, string> = {
  visa: "Succeeds",
  mastercard: "Succeeds",
  declined: "Declined",
  insufficient_funds: "Declined for insufficient funds",
  authentication_required: "Asks for authentication; paid once completed",
  processing: "Unresolved at first; paid when retried",
  expired: "Expired: never offered or charged",
  dispute: "Succeeds, then the cardholder disputes the charge",
};

/** What a saved card does when charged, when it is a test card; undefined for a real card. */
export function testCardBehaviour(kind: string | undefined): string | undefined {
  return kind && isTestCardKind(kind) ? TEST_CARD_BEHAVIOUR[kind] : undefined;
}

/**
 * The test mode that lets an admin add test cards here, or null when cards are saved on the
 * provider's own page (Stripe: its Checkout page). Removing a card is for any card, on any provider
 * (lib/points/cards/remove-card.ts).
 */
export function dashboardTestCards(provider: BillingProvider): TestMode | null {
  return provider.testMode && !provider.startCardSetup ? provider.testMode : null;
}

/** The test cards an admin can add with the simulated provider, with what each one does when charged. */
export const TEST_CARD_CHOICES: { kind: TestCardKind; label: string; behaviour: string }[] = (
  Object.keys(TEST_CARDS) as TestCardKind[]
).map((kind) => ({
  kind,
  label: paymentMethodLabel(TEST_CARDS[kind]).replace(" •••• ", " "),
  behaviour: TEST_CARD_BEHAVIOUR[kind],
}));

/**
 * Saves a simulated test card for the organisation. Only the simulated provider has test cards;
 * with Stripe, cards are added through a Checkout session in setup mode instead.
 */
export async function addTestCard(
  services: Services,
  organizationId: string,
  kind: string,
): Promise<PaymentMethod & { usable: boolean }> {
  const testMode = dashboardTestCards(services.provider);
  if (!testMode) {
    throw new PointsError("forbidden", "Test cards exist only with the simulated billing provider.");
  }
  if (!testMode.cardKinds().includes(kind)) {
    const message = `Choose one of the test cards: ${testMode.cardKinds().join(", ")}.`;
    throw new PointsError("invalid_request", message, { details: { fields: { kind: message } } });
  }
  const organization = await requireOrganization(services.db, organizationId);
  // One card of each kind: a second would look exactly like the first and behave the same.
  const saved = await listProvisionedPaymentMethods(services, organization);
  const twin = saved.find((method) => method.kind === kind);
  if (twin) {
    const message = `${twin.label} (${testCardBehaviour(kind)}) is already saved; each test card can be saved once.`;
    throw new PointsError("invalid_request", message, { details: { fields: { kind: message } } });
  }
  const [added] = await services.provider.addCards({ customerId: organization.billingCustomerId, kinds: [kind] });
  if (!added) throw new Error("The provider did not add the test card.");
  await announceCardAdded(services, organization.id, added.id, {
    action: "payment_method.added",
    target: added.id,
    after: { label: paymentMethodLabel(added) },
  });
  // An expired test card is saved like any other, but never listed by the API or charged.
  return { ...added, label: paymentMethodLabel(added), usable: !isExpired(added, services.clock.now()) };
}
