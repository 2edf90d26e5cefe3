import { and, eq } from "drizzle-orm";
import type { ProviderDispute } from "@/lib/billing/provider";
import type { Db } from "@/lib/db/client";
import { pointsLedger, topUps } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { recordMovement } from "@/lib/points/balance/ledger";
import { deferRecharge } from "@/lib/points/recharge/auto-recharge";
import { pauseAutoRecharge } from "@/lib/points/recharge/auto-recharge-pause";
import type { Services } from "@/lib/points/services";
import { emitTopUpEvent } from "../events/events";
import { paidTopUpOfPayment } from "./paid-top-up";
import { pointsForDisputedAmount } from "./proportion";

export type DisputeStatus = "open" | "won" | "lost";
/** Where a disputed top-up's Points stand: they follow the money. */
export type DisputePointsState = "held" | "removed" | "released";

/** What is known of a dispute, merged from every answer and event seen. */
export interface DisputeFacts {
  status: DisputeStatus;
  fundsWithdrawn: boolean;
  fundsReinstated: boolean;
}

/**
 * Merges what was known with what the provider says now, so that no order of answers can undo a
 * fact: a decision (won, lost) is never reopened, and money once withdrawn or reinstated stays so.
 * The merge is commutative and idempotent, which is why any order of events, duplicates and
 * replays ends in the same state.
 */
export function mergeDisputeFacts(known: DisputeFacts | null, seen: DisputeFacts): DisputeFacts {
  if (!known) return seen;
  return {
    status: known.status !== "open" ? known.status : seen.status,
    fundsWithdrawn: known.fundsWithdrawn || seen.fundsWithdrawn,
    fundsReinstated: known.fundsReinstated || seen.fundsReinstated,
  };
}

/**
 * Where the Points should stand: released once the dispute is won or the money reinstated;
 * removed once it is lost or the money withdrawn; held while it is open and the money still here.
 */
export function targetPointsState(facts: DisputeFacts): DisputePointsState {
  if (facts.status === "won" || facts.fundsReinstated) return "released";
  if (facts.status === "lost" || facts.fundsWithdrawn) return "removed";
  return "held";
}

export type DisputeStep = "dispute_hold" | "dispute_loss" | "dispute_release";

/**
 * The movements from one state to a later one; a state never goes back (released is final, and
 * removed can only be released, when the money comes back).
 */
export function disputeSteps(from: DisputePointsState | null, to: DisputePointsState): DisputeStep[] {
  const order: Record<DisputePointsState, number> = { held: 0, removed: 1, released: 2 };
  if (from !== null && order[to] <= order[from]) return [];
  const steps: DisputeStep[] = [];
  if (from === null) steps.push("dispute_hold");
  if (to === "removed") steps.push("dispute_loss");
  if (to === "released") steps.push("dispute_release");
  return steps;
}

/**
 * A dispute was opened, moved money or closed (an event said so, or an operator settled it in test
 * mode): asks the provider for the dispute as it stands, merges that into what the top-up knows and
 * moves the Points to where the money is, each step once:
 * - hold: the disputed Points leave the spendable balance for the held one (as many as are left:
 *   the rest had been spent, a shortfall recorded and reported);
 * - loss: the held Points are removed;
 * - release: they come back to the spendable balance (after a loss too, when the money comes back).
 */
export async function syncDispute(
  services: Services,
  disputeId: string,
  eventId: string | null,
  options: { waitMs?: number } = {},
): Promise<{ result: "handled" | "unmatched" | "deferred"; detail: string }> {
  const dispute = await services.provider.retrieveDispute(disputeId);
  if (!dispute) return { result: "unmatched", detail: `the provider has no dispute ${disputeId}` };
  const found = await paidTopUpOfPayment(services, dispute.paymentId, options);
  if (found.kind !== "paid") return { result: found.kind, detail: found.reason };
  let rechargeDue = false;
  const synced = await services.db.transaction(async (tx) => {
    const [topUp] = await tx.select().from(topUps).where(eq(topUps.id, found.topUp.id)).for("update");
    if (!topUp) throw new Error(`Top-up ${found.topUp.id} vanished while applying a dispute.`);
    if (topUp.disputeId && topUp.disputeId !== disputeId) {
      return { result: "unmatched" as const, detail: `top-up ${topUp.id} is already disputed as ${topUp.disputeId}` };
    }
    const now = services.clock.now();
    const known: DisputeFacts | null = topUp.disputeStatus
      ? {
          status: topUp.disputeStatus as DisputeStatus,
          fundsWithdrawn: topUp.disputeFundsWithdrawn,
          fundsReinstated: topUp.disputeFundsReinstated,
        }
      : null;
    const facts = mergeDisputeFacts(known, factsOf(dispute));
    const from = (topUp.disputePointsState as DisputePointsState | null) ?? null;
    const to = targetPointsState(facts);
    const points =
      topUp.disputePoints ?? pointsForDisputedAmount(topUp, dispute.amount, topUp.points - topUp.refundedPoints);
    const held = await heldByHold(tx, disputeId);
    let stillHeld = held ?? 0;
    let shortfall = 0;
    for (const step of disputeSteps(from, to)) {
      const base = {
        organizationId: topUp.organizationId,
        topUpId: topUp.id,
        kind: step,
        causeId: disputeId,
        eventId,
        now,
      };
      if (step === "dispute_hold") {
        const moved = await recordMovement(tx, { ...base, take: points, toHeld: true });
        stillHeld = moved.heldDelta;
        shortfall = moved.shortfall;
        rechargeDue = moved.rechargeDue;
      } else if (step === "dispute_loss") {
        await recordMovement(tx, { ...base, unhold: stillHeld });
      } else {
        // Released from the hold, or given back after a loss: the Points the hold took either way.
        const lost = from === "removed" || (await stepTaken(tx, "dispute_loss", disputeId));
        await recordMovement(tx, { ...base, give: stillHeld, unhold: lost ? 0 : stillHeld });
      }
    }
    if (shortfall > 0) {
      log().warn(
        {
          event: "dispute_shortfall",
          dispute_id: disputeId,
          top_up_id: topUp.id,
          organization_id: topUp.organizationId,
          shortfall,
        },
        `points: dispute ${disputeId} of top-up ${topUp.id} (organisation ${topUp.organizationId}) could hold ${points - shortfall} of ${points} Points: ${shortfall} had been spent already (shortfall).`,
      );
    }
    const closed = facts.status !== "open";
    const [disputed] = await tx
      .update(topUps)
      .set({
        disputeId,
        disputeStatus: facts.status,
        disputeFundsWithdrawn: facts.fundsWithdrawn,
        disputeFundsReinstated: facts.fundsReinstated,
        disputePoints: points,
        disputePointsState: from !== null && disputeSteps(from, to).length === 0 ? from : to,
        disputeOpenedAt: topUp.disputeOpenedAt ?? dispute.created,
        disputeClosedAt: closed ? (topUp.disputeClosedAt ?? now) : null,
        updatedAt: now,
      })
      .where(eq(topUps.id, topUp.id))
      .returning();
    if (known === null) await emitTopUpEvent(tx, topUp, "top_up.dispute_opened", now);
    // The cardholder refuses the recharge's charge: auto-recharge stops charging that card. A
    // crossing the hold made in this transaction is then answered without a purchase.
    if (known === null && disputed && topUp.source === "auto_recharge") {
      await pauseAutoRecharge(tx, { organizationId: topUp.organizationId, reason: "disputed", topUp: disputed, now });
    }
    if (closed && (known === null || known.status === "open")) {
      await emitTopUpEvent(tx, topUp, "top_up.dispute_closed", now);
    }
    return {
      result: "handled" as const,
      detail: `top-up ${topUp.id}: dispute ${facts.status}, ${points} Points ${to}`,
    };
  });
  if (rechargeDue) deferRecharge(services, found.topUp.organizationId);
  return synced;
}

function factsOf(dispute: ProviderDispute): DisputeFacts {
  return { status: dispute.status, fundsWithdrawn: dispute.fundsWithdrawn, fundsReinstated: dispute.fundsReinstated };
}

/** The Points the dispute's hold took into the held balance, or null before it. */
async function heldByHold(tx: Db, disputeId: string): Promise<number | null> {
  const [row] = await tx
    .select({ heldDelta: pointsLedger.heldDelta })
    .from(pointsLedger)
    .where(and(eq(pointsLedger.kind, "dispute_hold"), eq(pointsLedger.causeId, disputeId)));
  return row ? row.heldDelta : null;
}

async function stepTaken(tx: Db, kind: DisputeStep, disputeId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: pointsLedger.id })
    .from(pointsLedger)
    .where(and(eq(pointsLedger.kind, kind), eq(pointsLedger.causeId, disputeId)));
  return row !== undefined;
}
