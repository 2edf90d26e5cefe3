import { and, eq } from "drizzle-orm";
import { topUps } from "@/lib/db/schema";
import { PointsError } from "../errors";
import type { Services } from "../services";
import { type PurchaseResult, resolveTopUp, resolveTopUpWhenFree } from "./";
import { assertChargedHere, chargedElsewhere, logChargedElsewhere } from "./charged-by";

/**
 * The cardholder's authentication step for a purchase awaiting payment, with the simulated
 * provider (Stripe's would happen on Stripe's page). The purchase is then settled at once,
 * so a paid one is credited now and a later retry with its reference answers 200.
 */
export async function completeSimulatedAuthentication(
  services: Services,
  input: { organizationId: string; topUpId: string; succeed: boolean },
): Promise<PurchaseResult> {
  const testMode = services.provider.testMode;
  if (!testMode?.completeAuthentication) {
    throw new PointsError("invalid_request", "Authentication is completed on the billing provider's own page.");
  }
  const { topUp, paymentId } = await awaitingPurchase(services, input);
  await testMode.completeAuthentication(paymentId, input.succeed);
  return settle(services, topUp.id);
}

/**
 * "Complete payment" with a provider whose cardholder step happens on its own page (Stripe's
 * 3-D Secure): confirms the SAME payment on-session and answers where to send the admin, who
 * comes back to returnUrl; or, when no step is needed any more, settles the purchase now.
 */
export async function beginAuthentication(
  services: Services,
  input: { organizationId: string; topUpId: string; returnUrl: string },
): Promise<{ redirectUrl: string } | { result: PurchaseResult }> {
  const begin = services.provider.beginAuthentication?.bind(services.provider);
  if (!begin)
    throw new PointsError(
      "invalid_request",
      "With the simulated provider, complete the authentication on the purchase's page.",
    );
  const { topUp, paymentId } = await awaitingPurchase(services, input);
  const started = await begin(paymentId, input.returnUrl);
  if ("redirectUrl" in started) return started;
  return { result: await settle(services, topUp.id) };
}

/**
 * This organisation's purchase awaiting payment, with the payment the cardholder must finish;
 * refused (billing_provider_mismatch) when another provider charged it.
 */
async function awaitingPurchase(services: Services, input: { organizationId: string; topUpId: string }) {
  const [topUp] = await services.db
    .select()
    .from(topUps)
    .where(and(eq(topUps.id, input.topUpId), eq(topUps.organizationId, input.organizationId)));
  if (topUp?.status !== "awaiting_payment" || !topUp.providerPaymentId) {
    throw new PointsError("not_found", "There is no purchase awaiting payment with that ID in this organisation.");
  }
  if (chargedElsewhere(services.provider, topUp)) logChargedElsewhere(services.provider, topUp, "complete payment");
  assertChargedHere(services.provider, topUp, "complete");
  return { topUp, paymentId: topUp.providerPaymentId };
}

/** Settles it now, as a retry with its reference would: a paid one is credited once. */
async function settle(services: Services, topUpId: string): Promise<PurchaseResult> {
  const result = await resolveTopUp(services, topUpId);
  if (!result) throw new PointsError("not_found", "The purchase vanished.");
  return result;
}

/**
 * The cardholder is back from the provider's page: settle this organisation's purchase as a retry
 * would. The provider's webhook often arrives first and holds the purchase for the moment it takes
 * to settle it; then this waits for it (up to waitMs), so the page shows the outcome rather than
 * "awaiting payment". Anything still unknown after that is the webhook's or the reconciler's.
 */
export async function settleOnReturn(
  services: Services,
  input: { organizationId: string; topUpId: string; leaseMs?: number; waitMs?: number },
): Promise<void> {
  const [topUp] = await services.db
    .select({ id: topUps.id, status: topUps.status })
    .from(topUps)
    .where(and(eq(topUps.id, input.topUpId), eq(topUps.organizationId, input.organizationId)));
  if (topUp?.status !== "awaiting_payment") return;
  await resolveTopUpWhenFree(services, topUp.id, { leaseMs: input.leaseMs, waitMs: input.waitMs });
}
