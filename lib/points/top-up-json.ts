import type { TopUp } from "@/lib/db/schema";
import { disputeOf } from "./disputes";

/** The TopUp object of docs/contract.md §2, built field by field so nothing internal leaks. */
export function toTopUpJson(topUp: TopUp) {
  const hasFailure = topUp.status === "failed" || topUp.status === "awaiting_payment";
  return {
    id: topUp.id,
    reference: topUp.reference,
    points: topUp.points,
    currency: topUp.currency,
    amount: topUp.amount,
    payment_source_id: topUp.paymentSourceId,
    status: topUp.status,
    failure:
      hasFailure && topUp.failureCode
        ? { code: topUp.failureCode, message: topUp.failureMessage ?? "" }
        : null,
    source: topUp.source,
    created_at: topUp.createdAt.toISOString(),
    paid_at: topUp.paidAt ? topUp.paidAt.toISOString() : null,
    refunded_points: topUp.refundedPoints,
    refunded_amount: topUp.refundedAmount,
    dispute: disputeOf(topUp),
  };
}

export type TopUpJson = ReturnType<typeof toTopUpJson>;
