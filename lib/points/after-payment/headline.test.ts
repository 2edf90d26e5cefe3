import { describe, expect, it } from "vitest";
import { purchaseHeadline } from "./headline";

const paid = {
  status: "paid",
  points: 1000,
  refundedPoints: 0,
  disputeStatus: null,
  disputePoints: null,
  disputePointsState: null,
} as const;

describe("a purchase's headline says its state as it is now", () => {
  it("paid, untouched", () => {
    expect(purchaseHeadline(paid)).toEqual({ title: "Paid", tone: "good" });
  });

  it("paid, then refunded in part or in full", () => {
    expect(purchaseHeadline({ ...paid, refundedPoints: 100 })).toEqual({
      title: "Paid · 100 Points refunded",
      tone: "neutral",
    });
    expect(purchaseHeadline({ ...paid, refundedPoints: 1000 }).title).toBe("Paid · all 1,000 Points refunded");
  });

  it("paid, with Points held by an open dispute", () => {
    expect(
      purchaseHeadline({ ...paid, disputeStatus: "open", disputePoints: 1000, disputePointsState: "held" }),
    ).toEqual({ title: "Paid · 1,000 Points held by a dispute", tone: "warning" });
    expect(
      purchaseHeadline({
        ...paid,
        refundedPoints: 250,
        disputeStatus: "open",
        disputePoints: 750,
        disputePointsState: "held",
      }).title,
    ).toBe("Paid · 250 Points refunded · 750 Points held by a dispute");
  });

  it("a dispute lost, or its money withdrawn before it closed", () => {
    expect(
      purchaseHeadline({ ...paid, disputeStatus: "lost", disputePoints: 1000, disputePointsState: "removed" }),
    ).toEqual({ title: "Dispute lost: 1,000 Points removed", tone: "bad" });
    expect(
      purchaseHeadline({ ...paid, disputeStatus: "open", disputePoints: 1000, disputePointsState: "removed" }).title,
    ).toBe("Disputed: 1,000 Points removed");
  });

  it("a dispute won gives the Points back", () => {
    expect(
      purchaseHeadline({ ...paid, disputeStatus: "won", disputePoints: 1000, disputePointsState: "released" }),
    ).toEqual({ title: "Paid · dispute won", tone: "good" });
  });

  it("the purchases that are not paid", () => {
    expect(purchaseHeadline({ ...paid, status: "failed" }).title).toBe("Payment declined");
    expect(purchaseHeadline({ ...paid, status: "awaiting_payment" }).title).toBe(
      "Your bank needs you to confirm this payment",
    );
    expect(purchaseHeadline({ ...paid, status: "processing" }).title).toBe("Payment being confirmed");
    expect(purchaseHeadline({ ...paid, status: "pending" }).title).toBe("Payment being confirmed");
  });
});
