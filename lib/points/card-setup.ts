import { billingProblemOf } from "./billing-problems";
import { PointsError } from "./errors";
import { getOrganization, requireOrganization } from "./organizations";
import { announceCardAdded } from "./payment-method-events";
import { makeFirstCardDefault } from "./payment-methods";
import type { Services } from "./services";

/**
 * Adding a card with a provider that saves cards on its own page (Stripe Checkout in setup mode):
 * where to send the admin. They come back to /dashboard/payment-details/added.
 */
export async function startAddingCard(services: Services, organizationId: string, origin: string): Promise<string> {
  const start = services.provider.startCardSetup?.bind(services.provider);
  if (!start) throw new PointsError("forbidden", "With the simulated billing provider, add a test card instead.");
  const organization = await requireOrganization(services.db, organizationId);
  const { url } = await start(organization.billingCustomerId, {
    successUrl: `${origin}/dashboard/payment-details/added?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${origin}/dashboard/payment-details`,
  }).catch((error: unknown) => {
    throw billingProblemOf(services.provider, error, organization.id) ?? error;
  });
  return url;
}

/**
 * Back from the provider's page: the card is saved already (the provider attached it), and
 * audited as the admin's; the organisation's first card becomes its default. The provider's
 * webhooks (checkout.session.completed, payment_method.attached) report the same, so whichever
 * comes first, the result is one card, one default, and one event for each.
 */
export async function finishAddingCard(
  services: Services,
  organizationId: string,
  sessionId: string,
): Promise<boolean> {
  const finish = services.provider.finishCardSetup?.bind(services.provider);
  const organization = await getOrganization(services.db, organizationId);
  if (!finish || !organization) return false;
  const methodId = await finish(organization.billingCustomerId, sessionId);
  if (!methodId) return false;
  // The admin who comes back is the one who saved it, however often the page is loaded.
  await announceCardAdded(services, organization.id, methodId, {
    action: "payment_method.added",
    target: methodId,
    once: true,
  });
  await makeFirstCardDefault(services, organization);
  return true;
}
