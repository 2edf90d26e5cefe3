import { withDeadline } from "@/lib/billing/deadline";
import { ProviderUnavailableError } from "@/lib/billing/provider";
import { log } from "@/lib/observability/log";
import { listProvisionedPaymentMethods, requireOrganization } from "../accounts/organizations";
import { PointsError } from "../errors";
import type { Services } from "../services";
import { billingProblemOf } from "./billing-problems";
import { announceCardRemoved } from "./payment-method-events";

const NOT_FOUND =
  "This card is no longer saved in this organisation (it may have been removed already). Reload the page to see the saved cards.";

/**
 * Removes one of the organisation's saved cards, on either provider, however it was saved: never
 * listed or charged again. If it was the default, the organisation has no default until an admin
 * chooses one (as Stripe leaves a customer whose default card is detached). Purchases already made
 * with it keep resolving through their stored payments, and keep the card's label they stored.
 */
export async function removeCard(
  services: Services,
  organizationId: string,
  paymentMethodId: string,
): Promise<{ label: string; wasDefault: boolean }> {
  const organization = await requireOrganization(services.db, organizationId);
  const { provider } = services;
  try {
    const saved = await listProvisionedPaymentMethods(services, organization);
    const card = saved.find((method) => method.id === paymentMethodId);
    // Another organisation's card is "not found", exactly like an unknown one.
    const removed =
      card !== undefined &&
      (await withDeadline(
        provider.removePaymentMethod(organization.billingCustomerId, card.id),
        provider.callBudgetMs,
      ));
    if (!card || !removed) throw new PointsError("not_found", NOT_FOUND);
    await announceCardRemoved(services, organization.id, card.id, {
      action: "payment_method.removed",
      target: card.id,
      before: { label: card.label, default: card.isDefault },
    });
    return { label: card.label, wasDefault: card.isDefault };
  } catch (error) {
    if (error instanceof PointsError) throw error;
    const problem = billingProblemOf(provider, error, organization.id);
    if (problem) throw problem;
    if (!(error instanceof ProviderUnavailableError))
      log().error({ event: "remove_card_failed", err: error }, "Removing a card failed");
    throw new PointsError(
      "payment_methods_unavailable",
      "The billing provider did not answer, so the card was not removed. Wait a moment and try again.",
      { retryAfterSeconds: 30 },
    );
  }
}
