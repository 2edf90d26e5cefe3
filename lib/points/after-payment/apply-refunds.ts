import { and, eq, or } from "drizzle-orm";
import type { ProviderRefund } from "@/lib/billing/provider";
import type { Db } from "@/lib/db/client";
import { type Refund, refunds, type TopUp, topUps } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { log } from "@/lib/observability/log";
import { recordMovement } from "@/lib/points/balance/ledger";
import type { Services } from "@/lib/points/services";
import { emitTopUpEvent } from "../events/events";
import { deferRecharge } from "../recharge/auto-recharge";
import { pointsForRefundedAmount } from "./proportion";

/**
 * Applies what the provider says of a top-up's refunds, whoever made them: this service's own
 * (matched by the request id they carry), or ones made at the provider (Stripe's dashboard),
 * whose Points follow their money by the rule in proportion.ts. A refund's Points are debited,
 * in the transaction that records it, when it has succeeded, once: its (refund, provider refund
 * id) is unique, and so is the ledger's (kind, cause).
 */
export async function applyRefunds(
  services: Services,
  topUpId: string,
  provided: ProviderRefund[],
  eventId: string | null,
): Promise<{ applied: number; shortfall: number }> {
  let applied = 0;
  let shortfall = 0;
  let rechargeDue: string | null = null;
  const now = services.clock.now();
  for (const refund of [...provided].sort((a, b) => a.created.getTime() - b.created.getTime())) {
    const moved = await services.db.transaction((tx) => applyRefund(tx, topUpId, refund, eventId, now));
    if (moved) {
      applied += 1;
      shortfall += moved.shortfall;
      if (moved.rechargeDue) rechargeDue = moved.organizationId;
    }
  }
  if (rechargeDue) deferRecharge(services, rechargeDue);
  return { applied, shortfall };
}

/**
 * One refund the provider reports, in its own transaction under the top-up's lock: recorded, and
 * when it has succeeded and was not applied before, its Points debited. Null when no Points moved.
 */
async function applyRefund(
  tx: Db,
  topUpId: string,
  refund: ProviderRefund,
  eventId: string | null,
  now: Date,
): Promise<{ shortfall: number; rechargeDue: boolean; organizationId: string } | null> {
  const [topUp] = await tx.select().from(topUps).where(eq(topUps.id, topUpId)).for("update");
  if (!topUp) throw new Error(`Top-up ${topUpId} vanished while refunding.`);
  const known = await knownRefund(tx, topUpId, refund);
  if (known?.appliedAt) {
    warnIfUndoneAfterDebit(topUpId, known, refund);
    return null;
  }
  if (refund.status !== "succeeded") {
    await recordUnsettledRefund(tx, topUp, known, refund, now);
    return null;
  }
  const points = pointsOfRefund(topUp, known, refund);
  const moved = await recordMovement(tx, {
    organizationId: topUp.organizationId,
    topUpId: topUp.id,
    kind: "refund",
    causeId: refund.refundId,
    eventId,
    take: points,
    now,
  });
  await recordAppliedRefund(tx, topUp, known, refund, points, now);
  await emitTopUpEvent(tx, topUp, "top_up.refunded", now);
  if (moved.shortfall > 0) {
    log().warn(
      {
        event: "refund_shortfall",
        refund_id: refund.refundId,
        top_up_id: topUp.id,
        organization_id: topUp.organizationId,
        shortfall: moved.shortfall,
      },
      `points: refund ${refund.refundId} of top-up ${topUp.id} (organisation ${topUp.organizationId}) took ${points - moved.shortfall} of ${points} Points: ${moved.shortfall} had been spent already (shortfall).`,
    );
  }
  return { shortfall: moved.shortfall, rechargeDue: moved.rechargeDue, organizationId: topUp.organizationId };
}

/** Our record of a refund the provider reports: matched by the provider's id, or by the request id an operator's refund carries. */
async function knownRefund(tx: Db, topUpId: string, refund: ProviderRefund): Promise<Refund | undefined> {
  const [known] = await tx
    .select()
    .from(refunds)
    .where(
      and(
        eq(refunds.topUpId, topUpId),
        refund.requestId
          ? or(eq(refunds.providerRefundId, refund.refundId), eq(refunds.id, refund.requestId))
          : eq(refunds.providerRefundId, refund.refundId),
      ),
    );
  return known;
}

/** A refund already debited that the provider now says failed or was canceled: the Points stay taken; an operator decides. */
function warnIfUndoneAfterDebit(topUpId: string, known: Refund, refund: ProviderRefund): void {
  if (refund.status !== "failed" && refund.status !== "canceled") return;
  log().warn(
    { event: "refund_undone_after_debit", refund_id: refund.refundId, top_up_id: topUpId, status: refund.status },
    `points: refund ${refund.refundId} of top-up ${topUpId} is ${refund.status} at the provider after its ${known.points} Points were taken back; the money stayed with the merchant, so an operator should decide whether to give the Points back.`,
  );
}

/** A refund not (yet) succeeded: its status kept, no Points moved. */
async function recordUnsettledRefund(
  tx: Db,
  topUp: TopUp,
  known: Refund | undefined,
  refund: ProviderRefund,
  now: Date,
): Promise<void> {
  const status = refund.status === "pending" ? "pending" : refund.status;
  if (known) {
    await tx
      .update(refunds)
      .set({ status, providerRefundId: refund.refundId, updatedAt: now })
      .where(eq(refunds.id, known.id));
  } else {
    await tx.insert(refunds).values(providerRefundRow(topUp, refund, 0, status, now));
  }
}

/**
 * The Points a succeeded refund takes: an operator's refund those it asked for; one made at the
 * provider those its money is worth (proportion.ts); never more than are left, net of a dispute.
 */
function pointsOfRefund(topUp: TopUp, known: Refund | undefined, refund: ProviderRefund): number {
  const disputed = topUp.disputePointsState && topUp.disputePointsState !== "released" ? (topUp.disputePoints ?? 0) : 0;
  const left = Math.max(0, topUp.points - topUp.refundedPoints - disputed);
  return known?.source === "operator"
    ? Math.min(known.points, left)
    : pointsForRefundedAmount(
        topUp,
        refund.amount,
        { points: topUp.refundedPoints, amount: topUp.refundedAmount },
        left,
      );
}

/** The refund recorded as applied, and the top-up's refunded Points and money counted up. */
async function recordAppliedRefund(
  tx: Db,
  topUp: TopUp,
  known: Refund | undefined,
  refund: ProviderRefund,
  points: number,
  now: Date,
): Promise<void> {
  if (known) {
    await tx
      .update(refunds)
      .set({
        status: "succeeded",
        providerRefundId: refund.refundId,
        points,
        amount: refund.amount,
        appliedAt: now,
        updatedAt: now,
      })
      .where(eq(refunds.id, known.id));
  } else {
    await tx.insert(refunds).values({ ...providerRefundRow(topUp, refund, points, "succeeded", now), appliedAt: now });
  }
  await tx
    .update(topUps)
    .set({
      refundedPoints: topUp.refundedPoints + points,
      refundedAmount: Math.min(topUp.amount, topUp.refundedAmount + refund.amount),
      updatedAt: now,
    })
    .where(eq(topUps.id, topUp.id));
}

function providerRefundRow(topUp: TopUp, refund: ProviderRefund, points: number, status: Refund["status"], now: Date) {
  return {
    id: newId("refund"),
    organizationId: topUp.organizationId,
    topUpId: topUp.id,
    source: "provider" as const,
    providerRefundId: refund.refundId,
    points,
    amount: refund.amount,
    currency: topUp.currency,
    status,
    createdAt: now,
    updatedAt: now,
  };
}
