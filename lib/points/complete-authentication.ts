import { and, eq } from "drizzle-orm";
import { SimulatedBillingProvider } from "@/lib/billing/simulated";
import { topUps } from "@/lib/db/schema";
import { PointsError } from "./errors";
import { type PurchaseResult, resolveTopUp } from "./purchase";
import type { Services } from "./services";

/**
 * The cardholder's authentication step for a purchase awaiting payment, with the simulated
 * provider (Stripe's would happen on Stripe's page). The purchase is then settled at once,
 * so a paid one is credited now and a later retry with its reference answers 200.
 */
export async function completeSimulatedAuthentication(
  services: Services,
  input: { organizationId: string; topUpId: string; succeed: boolean },
): Promise<PurchaseResult> {
  if (!(services.provider instanceof SimulatedBillingProvider)) {
    throw new PointsError("invalid_request", "Authentication is completed on the billing provider's own page.");
  }
  const [topUp] = await services.db
    .select()
    .from(topUps)
    .where(and(eq(topUps.id, input.topUpId), eq(topUps.organizationId, input.organizationId)));
  if (topUp?.status !== "awaiting_payment" || !topUp.providerPaymentId) {
    throw new PointsError("not_found", "There is no purchase awaiting payment with that ID in this organisation.");
  }
  await services.provider.completeAuthentication(topUp.providerPaymentId, input.succeed);
  const result = await resolveTopUp(services, topUp.id);
  if (!result) throw new PointsError("not_found", "The purchase vanished.");
  return result;
}
