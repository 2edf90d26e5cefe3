import { eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { organizations, pointsLedger } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { emitEvent } from "./events";

/** What moves Points, as the ledger names it (points_ledger.kind). */
export type LedgerKind = "purchase" | "refund" | "dispute_hold" | "dispute_release" | "dispute_loss" | "usage";

/**
 * One movement after a purchase, in words of the balance it touches:
 * - `take`: Points to take from the spendable balance, as many as it has; what it lacks (spent
 *   already) is the shortfall, recorded on the row, since the balance never goes below zero;
 * - `toHeld`: the taken Points are held (a dispute's hold) rather than gone;
 * - `give`: Points back to the spendable balance;
 * - `unhold`: Points leaving the held balance (released back, or lost).
 */
export interface Movement {
  organizationId: string;
  topUpId: string | null;
  kind: Exclude<LedgerKind, "purchase">;
  /** The provider's refund or dispute behind it: a (kind, cause) pair moves Points at most once. */
  causeId: string | null;
  eventId?: string | null;
  take?: number;
  toHeld?: boolean;
  give?: number;
  unhold?: number;
  now: Date;
}

export interface MovementResult {
  /** Change to the spendable balance. */
  delta: number;
  /**
   * True when this movement took the balance below the auto-recharge level while it is on and not
   * paused: the crossing was counted, and its purchase is due once the transaction commits.
   */
  rechargeDue: boolean;
  heldDelta: number;
  shortfall: number;
  pointsBalance: number;
  heldPoints: number;
}

/**
 * Writes one movement: the organisation's row locked, its balances changed and the ledger row
 * appended, in the caller's transaction, so the balances always equal the ledger's sums.
 */
export async function recordMovement(tx: Db, movement: Movement): Promise<MovementResult> {
  const [org] = await tx
    .select({
      pointsBalance: organizations.pointsBalance,
      heldPoints: organizations.heldPoints,
      lowBalanceThreshold: organizations.lowBalanceThreshold,
      autoRechargeEnabled: organizations.autoRechargeEnabled,
      autoRechargeBelow: organizations.autoRechargeBelow,
      autoRechargePausedReason: organizations.autoRechargePausedReason,
    })
    .from(organizations)
    .where(eq(organizations.id, movement.organizationId))
    .for("update");
  if (!org) throw new Error(`Organisation ${movement.organizationId} vanished while moving Points.`);
  const wanted = movement.take ?? 0;
  const taken = Math.min(wanted, org.pointsBalance);
  const unheld = Math.min(movement.unhold ?? 0, org.heldPoints);
  const delta = (movement.give ?? 0) - taken;
  const heldDelta = (movement.toHeld ? taken : 0) - unheld;
  const after = org.pointsBalance + delta;
  const crosses = (level: number | null) => level !== null && org.pointsBalance >= level && after < level;
  const rechargeDue =
    org.autoRechargeEnabled && org.autoRechargePausedReason === null && crosses(org.autoRechargeBelow);
  const result: MovementResult = {
    delta,
    rechargeDue,
    heldDelta,
    shortfall: wanted - taken,
    pointsBalance: org.pointsBalance + delta,
    heldPoints: org.heldPoints + heldDelta,
  };
  await tx
    .update(organizations)
    .set({
      pointsBalance: result.pointsBalance,
      heldPoints: result.heldPoints,
      updatedAt: movement.now,
      ...(rechargeDue ? { autoRechargeCrossings: sql`${organizations.autoRechargeCrossings} + 1` } : {}),
    })
    .where(eq(organizations.id, movement.organizationId));
  await tx.insert(pointsLedger).values({
    id: newId("ledger"),
    organizationId: movement.organizationId,
    topUpId: movement.topUpId,
    kind: movement.kind,
    delta,
    heldDelta,
    balanceAfter: result.pointsBalance,
    shortfall: result.shortfall,
    causeId: movement.causeId,
    eventId: movement.eventId ?? null,
    reason: movement.kind,
    createdAt: movement.now,
  });
  if (crosses(org.lowBalanceThreshold)) {
    await emitEvent(
      tx,
      movement.organizationId,
      "balance.low",
      { points_balance: result.pointsBalance, threshold: org.lowBalanceThreshold },
      movement.now,
    );
  }
  return result;
}

/**
 * A purchase's credit, the one balance change written as SQL (purchase/settle.ts records the
 * provider's answer and the credit in one statement): two CTEs, `credited` (the organisation's row
 * updated, its balance bumped by the Points of a purchase now paid, returning the new balance and
 * event sequence) and `ledger` (the ledger's purchase row, whose unique top_up_id makes a second
 * credit fail instead of doubling Points), so the balance always equals the ledger's sum as
 * recordMovement keeps it. `purchases` names a CTE of top_ups rows just updated; only those now
 * `paid` are credited. `ledgerId` and `now` are SQL expressions (parameters) for the ledger row's
 * id and the time; `alsoSet` more assignments to the organisation's row (`o`), such as the event
 * sequence (events.ts).
 */
export function purchaseCreditSql(names: {
  purchases: string;
  ledgerId: string;
  now: string;
  alsoSet?: string;
}): string {
  const { purchases, ledgerId, now, alsoSet } = names;
  const kind: LedgerKind = "purchase";
  return `credited as (
  update organizations o
  set points_balance = o.points_balance + case when u.status = 'paid' then u.points else 0 end, updated_at = ${now}${alsoSet ? `, ${alsoSet}` : ""}
  from ${purchases} u where o.id = u.organization_id
  returning o.points_balance, o.event_sequence
),
ledger as (
  insert into points_ledger (id, organization_id, top_up_id, kind, delta, balance_after, reason, created_at)
  select ${ledgerId}, u.organization_id, u.id, '${kind}', u.points, c.points_balance, 'top_up', ${now}
  from ${purchases} u cross join credited c where u.status = 'paid'
)`;
}

export async function getPointsBalance(db: Db, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ pointsBalance: organizations.pointsBalance })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return row?.pointsBalance ?? 0;
}
