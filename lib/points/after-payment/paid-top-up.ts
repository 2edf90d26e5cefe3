import { and, eq, inArray, isNull } from "drizzle-orm";
import { type TopUp, topUps } from "@/lib/db/schema";
import { isUnresolved, UNRESOLVED_STATUSES } from "@/lib/points/limits/limits";
import { heldElsewhere, resolveTopUpWhenFree } from "@/lib/points/purchase/when-free";
import type { Services } from "@/lib/points/services";

/** The paid top-up a provider payment is for; or why there is none to move Points on. */
export type PaidTopUp =
  | { kind: "paid"; topUp: TopUp }
  | { kind: "unmatched"; reason: string }
  | { kind: "deferred"; reason: string };

/**
 * Finds the purchase a refunded or disputed payment paid for. A payment this service has not
 * learned yet (the charge's answer was lost) is bound only when the provider's own record of it is
 * the purchase's charge, and the purchase is then settled as a retry would settle it: a refund or
 * a dispute proves the money moved, but the Points follow only a paid purchase.
 */
export async function paidTopUpOfPayment(
  services: Services,
  paymentId: string,
  options: { waitMs?: number } = {},
): Promise<PaidTopUp> {
  let [topUp] = await services.db.select().from(topUps).where(eq(topUps.providerPaymentId, paymentId));
  if (!topUp) {
    const facts = await services.provider.describePayment(paymentId);
    if (!facts?.topUpId)
      return { kind: "unmatched", reason: `payment ${paymentId} is not a Points top-up this service knows` };
    [topUp] = await services.db.select().from(topUps).where(eq(topUps.id, facts.topUpId));
    const matches =
      topUp !== undefined &&
      (topUp.providerPaymentId === null || topUp.providerPaymentId === paymentId) &&
      facts.customerId === topUp.billingCustomerId &&
      facts.amount === topUp.amount &&
      facts.currency.toUpperCase() === topUp.currency;
    if (!topUp || !matches)
      return { kind: "unmatched", reason: `payment ${paymentId} does not match a top-up of this service` };
    await services.db
      .update(topUps)
      .set({ providerPaymentId: paymentId })
      .where(
        and(
          eq(topUps.id, topUp.id),
          isNull(topUps.providerPaymentId),
          inArray(topUps.status, [...UNRESOLVED_STATUSES]),
        ),
      );
  }
  if (isUnresolved(topUp.status) || topUp.status === "awaiting_payment") {
    const result = await resolveTopUpWhenFree(services, topUp.id, { waitMs: options.waitMs });
    if (!result || heldElsewhere(result))
      return { kind: "deferred", reason: `another request is settling top-up ${topUp.id}` };
    topUp = result.topUp;
  }
  if (isUnresolved(topUp.status)) {
    // The provider could not say how the payment ended (it timed out, or answered an error): the
    // purchase may yet be paid, so the Points must wait for it rather than be given up for good.
    return {
      kind: "deferred",
      reason: `top-up ${topUp.id} is still ${topUp.status}: its payment's outcome is not known here yet`,
    };
  }
  if (topUp.status !== "paid") return { kind: "unmatched", reason: `top-up ${topUp.id} is ${topUp.status}, not paid` };
  return { kind: "paid", topUp };
}
