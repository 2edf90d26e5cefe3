import { describe, expect, it } from "vitest";
import type { Refund, TopUp } from "@/lib/db/schema";
import { type AfterPaymentMovement, afterPaymentNotes, describeAfterPayment, heldPointsText } from "./view";

const at = (minute: number) => new Date(Date.UTC(2026, 10, 24, 12, minute));

function topUp(overrides: Partial<TopUp> = {}): TopUp {
  return {
    id: "tu_1",
    organizationId: "org_1",
    reference: "order-1",
    points: 1000,
    currency: "EUR",
    amount: 7800,
    paymentSourceId: "pm_1",
    paymentMethodLabel: "Visa •••• 4242",
    pointsExpireAt: null,
    billingCustomerId: "cus_1",
    provider: "stripe",
    source: "api",
    apiKeyId: null,
    status: "paid",
    failureCode: null,
    failureMessage: null,
    providerIdempotencyKey: "topup_tu_1",
    providerPaymentId: "pi_1",
    chargeAttemptedAt: at(0),
    lockToken: null,
    lockedUntil: null,
    attempts: 1,
    nextAttemptAt: null,
    createdAt: at(0),
    updatedAt: at(0),
    paidAt: at(0),
    refundedPoints: 0,
    refundedAmount: 0,
    disputeId: null,
    disputeStatus: null,
    disputeFundsWithdrawn: false,
    disputeFundsReinstated: false,
    disputePoints: null,
    disputePointsState: null,
    disputeOpenedAt: null,
    disputeClosedAt: null,
    ...overrides,
  };
}

function refund(overrides: Partial<Refund> = {}): Refund {
  return {
    id: "rf_1",
    organizationId: "org_1",
    topUpId: "tu_1",
    source: "operator",
    requestKey: "points:250",
    providerIdempotencyKey: "refund_rf_1",
    providerRefundId: "re_1",
    points: 250,
    amount: 1950,
    currency: "EUR",
    status: "succeeded",
    reason: null,
    failureMessage: null,
    appliedAt: at(5),
    createdAt: at(5),
    updatedAt: at(5),
    ...overrides,
  };
}

const simulated = { name: "simulated", displayName: "the simulated billing provider" };
const stripe = { name: "stripe", displayName: "Stripe" };

describe("what happened after payment, in words", () => {
  it("says a refund's Points, money, who made it, why, and the Points already spent", () => {
    const movements: AfterPaymentMovement[] = [
      { kind: "refund", delta: -50, heldDelta: 0, shortfall: 200, causeId: "re_1", createdAt: at(5) },
    ];
    const [entry] = describeAfterPayment(topUp(), [refund({ reason: "Unused seats" })], movements, simulated);
    expect(entry).toMatchObject({
      title: "Refunded 250 Points (€19.50)",
      details: [
        "Made by an operator of this service.",
        "Reason: Unused seats",
        "200 of these Points had been spent already, so the balance went down by 50.",
      ],
    });
    const [madeInStripe] = describeAfterPayment(
      topUp(),
      [refund({ source: "provider", requestKey: null })],
      [],
      stripe,
    );
    expect(madeInStripe?.details[0]).toBe("Made at Stripe.");
  });

  it("says a refund still on its way moved no Points yet", () => {
    const entries = describeAfterPayment(
      topUp(),
      [refund({ id: "rf_1", status: "pending", appliedAt: null })],
      [],
      simulated,
    );
    expect(entries.map((entry) => entry.title)).toEqual(["Refund of 250 Points (€19.50) in progress"]);
    expect(entries[0]?.details).toContain(
      "The money is on its way back; the Points are taken back once the refund completes.",
    );
  });

  it("leaves out refunds that moved no money: refused or canceled by the provider, or never answered", () => {
    const rawError = "No such payment: 'pi_3Qx'; a similar object exists in test mode (resource_missing)";
    const entries = describeAfterPayment(
      topUp({ refundedPoints: 250, refundedAmount: 1950 }),
      [
        refund({
          id: "rf_refused",
          status: "failed",
          providerRefundId: null,
          appliedAt: null,
          failureMessage: rawError,
          updatedAt: at(2),
        }),
        refund({ id: "rf_canceled", status: "canceled", appliedAt: null, updatedAt: at(3) }),
        refund({ id: "rf_unanswered", status: "requested", providerRefundId: null, appliedAt: null, createdAt: at(4) }),
        refund({ id: "rf_done" }),
      ],
      [{ kind: "refund", delta: -250, heldDelta: 0, shortfall: 0, causeId: "re_1", createdAt: at(5) }],
      stripe,
    );
    expect(entries.map((entry) => entry.title)).toEqual(["Refunded 250 Points (€19.50)"]);
    const said = JSON.stringify(entries);
    for (const hidden of [rawError, "resource_missing", "failed", "canceled", "No money was returned"])
      expect(said).not.toContain(hidden);
  });

  it("tells a lost dispute from opening to its end, oldest first", () => {
    const disputed = topUp({
      disputeId: "du_1",
      disputeStatus: "lost",
      disputePoints: 1000,
      disputePointsState: "removed",
      disputeOpenedAt: at(10),
      disputeClosedAt: at(30),
    });
    const movements: AfterPaymentMovement[] = [
      { kind: "dispute_loss", delta: 0, heldDelta: -1000, shortfall: 0, causeId: "du_1", createdAt: at(30) },
      { kind: "dispute_hold", delta: -1000, heldDelta: 1000, shortfall: 0, causeId: "du_1", createdAt: at(10) },
    ];
    const entries = describeAfterPayment(
      disputed,
      [],
      [...movements].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()),
      stripe,
    );
    expect(entries.map((entry) => entry.title)).toEqual([
      "The cardholder disputed this payment",
      "1,000 Points held",
      "1,000 Points removed",
      "Dispute lost",
    ]);
    expect(afterPaymentNotes(disputed)).toEqual(["Disputed: 1,000 Points removed (lost)"]);
  });

  it("sums up a row for History, and held Points for the header", () => {
    expect(afterPaymentNotes(topUp())).toEqual([]);
    expect(
      afterPaymentNotes(
        topUp({
          refundedPoints: 250,
          refundedAmount: 1950,
          disputeId: "du_1",
          disputeStatus: "won",
          disputePoints: 750,
          disputePointsState: "released",
        }),
      ),
    ).toEqual(["Refunded 250 Points (€19.50)", "Disputed: 750 Points released (won)"]);
    expect(heldPointsText({ heldPoints: 7500, heldDisputes: 1 })).toBe("7,500 Points held by a dispute");
    expect(heldPointsText({ heldPoints: 8000, heldDisputes: 2 })).toBe("8,000 Points held by 2 disputes");
  });
});
