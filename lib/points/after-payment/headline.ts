import type { TopUp } from "@/lib/db/schema";
import { formatPoints } from "@/lib/format";

/** How a purchase's headline reads: its colour on the page, and in words for whoever cannot see it. */
export type HeadlineTone = "good" | "neutral" | "warning" | "bad" | "pending";

export interface PurchaseHeadline {
  title: string;
  tone: HeadlineTone;
}

type HeadlineFacts = Pick<
  TopUp,
  "status" | "points" | "refundedPoints" | "disputeStatus" | "disputePoints" | "disputePointsState"
>;

/**
 * A purchase's state as it is now, in one line: "Paid", "Paid · 100 Points refunded", "Paid · 1,000
 * Points held by a dispute", "Dispute lost: 1,000 Points removed". What happened after payment is
 * part of the state: a disputed purchase is not headed "Payment successful".
 */
export function purchaseHeadline(topUp: HeadlineFacts): PurchaseHeadline {
  if (topUp.status === "failed") return { title: "Payment declined", tone: "bad" };
  if (topUp.status === "awaiting_payment")
    return { title: "Your bank needs you to confirm this payment", tone: "warning" };
  if (topUp.status !== "paid") return { title: "Payment being confirmed", tone: "pending" };

  const refunded =
    topUp.refundedPoints <= 0
      ? null
      : topUp.refundedPoints >= topUp.points
        ? `all ${formatPoints(topUp.points)} Points refunded`
        : `${formatPoints(topUp.refundedPoints)} Points refunded`;
  const dispute = topUp.disputeStatus && topUp.disputePointsState ? topUp : null;
  const disputed = formatPoints(topUp.disputePoints ?? 0);
  const parts = (...more: (string | null)[]) => more.filter((part): part is string => part !== null).join(" · ");

  if (dispute?.disputePointsState === "removed") {
    const lead = dispute.disputeStatus === "lost" ? "Dispute lost" : "Disputed";
    return { title: parts(`${lead}: ${disputed} Points removed`, refunded), tone: "bad" };
  }
  if (dispute?.disputePointsState === "held") {
    return { title: parts("Paid", refunded, `${disputed} Points held by a dispute`), tone: "warning" };
  }
  if (dispute?.disputeStatus === "won")
    return { title: parts("Paid", refunded, "dispute won"), tone: refunded ? "neutral" : "good" };
  return { title: parts("Paid", refunded), tone: refunded ? "neutral" : "good" };
}

/** Whether anything happened to a paid purchase after its payment: a refund or a dispute. */
export function changedAfterPayment(topUp: Pick<TopUp, "refundedPoints" | "disputeStatus">): boolean {
  return topUp.refundedPoints > 0 || topUp.disputeStatus !== null;
}
