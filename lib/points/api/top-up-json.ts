import type { TopUp } from "@/lib/db/schema";
import { disputeOf } from "../after-payment/disputes";
import { receiptUrlOf } from "../views/receipts";
import type { TopUpJson } from "./schemas";

export type { TopUpJson };

/** The TopUp object of docs/contract.md §2, built field by field so nothing internal leaks. */
export function toTopUpJson(topUp: TopUp): TopUpJson {
  const hasFailure = topUp.status === "failed" || topUp.status === "awaiting_payment";
  return {
    id: topUp.id,
    reference: topUp.reference,
    points: topUp.points as TopUpJson["points"],
    currency: topUp.currency as TopUpJson["currency"],
    amount: topUp.amount,
    payment_source_id: topUp.paymentSourceId,
    status: topUp.status as TopUpJson["status"],
    failure: hasFailure && topUp.failureCode ? { code: topUp.failureCode, message: topUp.failureMessage ?? "" } : null,
    source: topUp.source as TopUpJson["source"],
    created_at: topUp.createdAt.toISOString(),
    paid_at: topUp.paidAt ? topUp.paidAt.toISOString() : null,
    refunded_points: topUp.refundedPoints,
    refunded_amount: topUp.refundedAmount,
    dispute: disputeOf(topUp),
    receipt_url: receiptUrlOf(topUp),
  };
}
