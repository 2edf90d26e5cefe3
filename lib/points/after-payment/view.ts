import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { organizations, pointsLedger, type Refund, refunds, type TopUp, topUps } from "@/lib/db/schema";
import { formatMoney, formatPoints } from "@/lib/format";
import { disputeOf } from "../api/json";

/*
 * What happened to a paid purchase after its payment (refunds, a dispute), read for the dashboard
 * and said in words. Only reads: the movements themselves are lib/points/after-payment/refunds.ts and disputes.ts.
 */

/** One line per thing that happened after payment, for the History row: "Refunded 250 Points (€22.00)". */
export function afterPaymentNotes(topUp: TopUp): string[] {
  const notes: string[] = [];
  if (topUp.refundedPoints > 0 || topUp.refundedAmount > 0) {
    notes.push(
      `Refunded ${formatPoints(topUp.refundedPoints)} Points (${formatMoney(topUp.refundedAmount, topUp.currency)})`,
    );
  }
  const dispute = disputeOf(topUp);
  if (dispute) {
    const outcome = dispute.status === "won" ? " (won)" : dispute.status === "lost" ? " (lost)" : "";
    notes.push(`Disputed: ${formatPoints(dispute.points)} Points ${dispute.points_state}${outcome}`);
  }
  return notes;
}

export type AfterPaymentTone = "neutral" | "warning" | "good" | "bad";

/** One movement of the purchase after payment, in words. */
export interface AfterPaymentEntry {
  at: Date;
  title: string;
  details: string[];
  tone: AfterPaymentTone;
}

/** A ledger row of the purchase other than its credit: a refund's debit or a step of its dispute. */
export interface AfterPaymentMovement {
  kind: string;
  delta: number;
  heldDelta: number;
  shortfall: number;
  causeId: string | null;
  createdAt: Date;
}

/**
 * The purchase's movements after payment, oldest first: each refund that returned money or is
 * returning it (Points, money, who made it, its reason, Points already spent), then the dispute's
 * opening, each step of its Points (held, removed, released) and its outcome. Refunds that moved no
 * money (refused or canceled by the provider, or not answered yet) are the operator's business,
 * in the command's output and the log, and are not said here. `provider.displayName` says where a
 * refund made elsewhere was made.
 */
export function describeAfterPayment(
  topUp: TopUp,
  refundRows: Refund[],
  movements: AfterPaymentMovement[],
  provider: { displayName: string },
): AfterPaymentEntry[] {
  const entries: AfterPaymentEntry[] = [];
  const money = (amount: number) => formatMoney(amount, topUp.currency);

  for (const refund of refundRows.filter(movedMoney)) {
    const ledger = refund.providerRefundId
      ? movements.find((row) => row.kind === "refund" && row.causeId === refund.providerRefundId)
      : undefined;
    const details = [
      refund.source === "operator" ? "Made by an operator of this service." : `Made at ${provider.displayName}.`,
    ];
    if (refund.reason) details.push(`Reason: ${refund.reason}`);
    const what = `${formatPoints(refund.points)} Points (${money(refund.amount)})`;
    if (refund.status === "succeeded") {
      if (ledger && ledger.shortfall > 0) {
        details.push(
          `${formatPoints(ledger.shortfall)} of these Points had been spent already, so the balance went down by ${formatPoints(-ledger.delta)}.`,
        );
      }
      entries.push({ at: refund.appliedAt ?? refund.createdAt, title: `Refunded ${what}`, details, tone: "neutral" });
    } else {
      details.push("The money is on its way back; the Points are taken back once the refund completes.");
      entries.push({ at: refund.createdAt, title: `Refund of ${what} in progress`, details, tone: "warning" });
    }
  }

  const dispute = disputeOf(topUp);
  if (dispute) {
    const points = formatPoints(dispute.points);
    if (topUp.disputeOpenedAt) {
      entries.push({
        at: topUp.disputeOpenedAt,
        title: "The cardholder disputed this payment",
        details: [`The dispute covers ${points} Points.`],
        tone: "warning",
      });
    }
    for (const row of movements) {
      if (row.kind === "dispute_hold") {
        const details = ["They stay your organisation's but cannot be spent until the dispute is settled."];
        if (row.shortfall > 0) details.push(`${formatPoints(row.shortfall)} of these Points had been spent already.`);
        entries.push({
          at: row.createdAt,
          title: `${formatPoints(row.heldDelta)} Points held`,
          details,
          tone: "warning",
        });
      } else if (row.kind === "dispute_loss") {
        entries.push({
          at: row.createdAt,
          title: `${formatPoints(-row.heldDelta)} Points removed`,
          details: ["The disputed money was taken back from this organisation, and the Points with it."],
          tone: "bad",
        });
      } else if (row.kind === "dispute_release") {
        entries.push({
          at: row.createdAt,
          title: `${formatPoints(row.delta)} Points released`,
          details: ["The money came back, so the Points are spendable again."],
          tone: "good",
        });
      }
    }
    if (dispute.status !== "open" && topUp.disputeClosedAt) {
      entries.push({
        at: topUp.disputeClosedAt,
        title: dispute.status === "won" ? "Dispute won" : "Dispute lost",
        details: [
          dispute.status === "won"
            ? `The ${points} Points are yours to spend.`
            : `The ${points} Points are gone for good.`,
        ],
        tone: dispute.status === "won" ? "good" : "bad",
      });
    }
  }
  // Stable: entries at the same instant keep the order they were said in (opened before held).
  return entries.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** A refund the provider made (succeeded) or accepted and is making (pending). */
function movedMoney(refund: Refund): boolean {
  return refund.status === "succeeded" || refund.status === "pending";
}

/** What the purchase page shows under "After payment"; empty when nothing happened after payment. */
export async function loadAfterPayment(
  db: Db,
  topUp: TopUp,
  provider: { displayName: string },
): Promise<AfterPaymentEntry[]> {
  if (topUp.status !== "paid") return [];
  const [refundRows, movements] = await Promise.all([
    db.select().from(refunds).where(eq(refunds.topUpId, topUp.id)).orderBy(asc(refunds.createdAt), asc(refunds.id)),
    db
      .select({
        kind: pointsLedger.kind,
        delta: pointsLedger.delta,
        heldDelta: pointsLedger.heldDelta,
        shortfall: pointsLedger.shortfall,
        causeId: pointsLedger.causeId,
        createdAt: pointsLedger.createdAt,
      })
      .from(pointsLedger)
      .where(
        and(
          eq(pointsLedger.topUpId, topUp.id),
          inArray(pointsLedger.kind, ["refund", "dispute_hold", "dispute_loss", "dispute_release"]),
        ),
      )
      .orderBy(asc(pointsLedger.createdAt), asc(pointsLedger.id)),
  ]);
  return describeAfterPayment(topUp, refundRows, movements, provider);
}

/** The spendable balance, and the Points open disputes hold apart from it (with how many disputes). */
export interface Balances {
  pointsBalance: number;
  heldPoints: number;
  heldDisputes: number;
}

export async function getBalances(db: Db, organizationId: string): Promise<Balances> {
  const [org] = await db
    .select({ pointsBalance: organizations.pointsBalance, heldPoints: organizations.heldPoints })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  if (!org) return { pointsBalance: 0, heldPoints: 0, heldDisputes: 0 };
  if (org.heldPoints <= 0) return { ...org, heldDisputes: 0 };
  const [held] = await db
    .select({ n: count() })
    .from(topUps)
    // 'held' in the text, not a parameter, so a generic plan still matches top_ups_organization_held_idx.
    .where(and(eq(topUps.organizationId, organizationId), sql`${topUps.disputePointsState} = 'held'`));
  return { ...org, heldDisputes: held?.n ?? 0 };
}

/** "7,500 Points held by a dispute", for the Overview. */
export function heldPointsText(balances: Pick<Balances, "heldPoints" | "heldDisputes">): string {
  const by = balances.heldDisputes > 1 ? `${balances.heldDisputes} disputes` : "a dispute";
  return `${formatPoints(balances.heldPoints)} Points held by ${by}`;
}
