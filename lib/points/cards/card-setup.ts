import type { FinishedCardSetup } from "@/lib/billing/provider";
import { newId } from "@/lib/ids";
import { requestContext, runAsUser } from "@/lib/observability/context";
import { getOrganization, requireOrganization } from "../accounts/organizations";
import { PointsError } from "../errors";
import type { Services } from "../services";
import { billingProblemOf } from "./billing-problems";
import { announceCardAdded } from "./payment-method-events";
import { makeFirstCardDefault } from "./payment-methods";

/**
 * Adding a card with a provider that saves cards on its own page (Stripe Checkout in setup mode):
 * where to send the admin. They come back to /dashboard/payment-details/added. The provider keeps
 * who started (`startedBy`, a user id), so the card is audited as theirs even if only its webhook
 * comes back.
 */
export async function startAddingCard(
  services: Services,
  organizationId: string,
  origin: string,
  startedBy?: string,
): Promise<string> {
  const start = services.provider.startCardSetup?.bind(services.provider);
  if (!start) throw new PointsError("forbidden", "With the simulated billing provider, add a test card instead.");
  const organization = await requireOrganization(services.db, organizationId);
  const { url } = await start(organization.billingCustomerId, {
    successUrl: `${origin}/dashboard/payment-details/added?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${origin}/dashboard/payment-details`,
    startedBy,
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
  const finished = await finish(organization.billingCustomerId, sessionId);
  if (!finished) return false;
  await announceCardSaved(services, organization.id, finished, "starter or actor");
  await makeFirstCardDefault(services, organization);
  return true;
}

/**
 * A card saved on the provider's page, announced once (lib/points/cards/payment-method-events.ts) and
 * audited once, however often its return page is loaded and whichever of it and the provider's
 * webhook comes first. The entry is the admin's who started saving it, when the provider kept who
 * that was; otherwise, with "starter or actor", whoever acts now (the admin back on the return
 * page), and with "starter only" (a webhook, where no one acts) there is none.
 */
export async function announceCardSaved(
  services: Services,
  organizationId: string,
  finished: FinishedCardSetup,
  audit: "starter or actor" | "starter only",
): Promise<void> {
  const { paymentMethodId, startedBy } = finished;
  const audited = () =>
    announceCardAdded(services, organizationId, paymentMethodId, {
      action: "payment_method.added",
      target: paymentMethodId,
      once: true,
    });
  if (startedBy) {
    const requestId = requestContext()?.requestId ?? newId("request");
    await runAsUser({ userId: startedBy, organizationId }, requestId, audited);
  } else if (audit === "starter or actor") {
    await audited();
  } else {
    await announceCardAdded(services, organizationId, paymentMethodId);
  }
}
