import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { textSql } from "@/lib/db/hot";
import { rowsOf } from "@/lib/db/rows";
import { organizations, pointLots, pointsLedger } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { emitEvent } from "../events/events";

/** What moves Points, as the ledger names it (points_ledger.kind). */
export type LedgerKind =
  | "purchase"
  | "refund"
  | "dispute_hold"
  | "dispute_release"
  | "dispute_loss"
  | "usage"
  | "grant"
  | "grant_void"
  | "expiry";

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
  /** A grant's promotional lot (`lot_<grant id>`) made with its Points; the grant is the movement's cause. */
  grantLot?: { points: number; expiresAt: Date | null };
  /** A lot emptied of what is left of it: a voided grant's, or an expired lot's. */
  emptyLot?: string;
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

/** A ledger row as SQL expressions, selected `from` a statement's sources (`where` it applies). */
export interface LedgerRowSql {
  id: string;
  organizationId: string;
  topUpId: string;
  kind: string;
  delta: string;
  heldDelta: string;
  balanceAfter: string;
  shortfall: string;
  causeId: string;
  eventId: string;
  reason: string;
  createdAt: string;
  /** The lots it changed, as jsonb ([{ lot_id, category, points }]); omitted: none recorded. */
  lots?: string;
  from?: string;
  where?: string;
}

/**
 * The one insert into `points_ledger`, as SQL: a select over the statement's sources. Every
 * writer of the ledger uses it (recordMovement, a purchase's credit, the one-statement spend), so a
 * row's columns are written in one place.
 */
export function insertLedgerSql(row: LedgerRowSql): string {
  return `insert into points_ledger (id, organization_id, top_up_id, kind, delta, held_delta, balance_after, shortfall, cause_id, event_id, reason, created_at, lots)
  select ${row.id}, ${row.organizationId}, ${row.topUpId}, ${row.kind}, ${row.delta}, ${row.heldDelta}, ${row.balanceAfter}, ${row.shortfall}, ${row.causeId}, ${row.eventId}, ${row.reason}, ${row.createdAt}, ${row.lots ?? "null"}${
    row.from
      ? `
  from ${row.from}`
      : ""
  }${row.where ? ` where ${row.where}` : ""}`;
}

const RECORD_MOVEMENT_SQL = insertLedgerSql({
  id: "$1",
  organizationId: "$2",
  topUpId: "$3",
  kind: "$4",
  delta: "$5::bigint",
  heldDelta: "$6::bigint",
  balanceAfter: "$7::bigint",
  shortfall: "$8::int",
  causeId: "$9",
  eventId: "$10",
  reason: "$4",
  createdAt: "$11::timestamptz",
  lots: "$12::jsonb",
});

/** What points_lots_take and points_lots_give answer: each lot changed, Points taken negative. */
export type LotChanges = Array<{ lot_id: string; category: string; points: number }>;

/**
 * Writes one movement: the organisation's row locked, its balances changed and the ledger row
 * appended, in the caller's transaction, so the balances always equal the ledger's sums.
 */
export async function recordMovement(tx: Db, movement: Movement): Promise<MovementResult> {
  const [org] = await tx
    .select({ pointsBalance: organizations.pointsBalance, heldPoints: organizations.heldPoints })
    .from(organizations)
    .where(eq(organizations.id, movement.organizationId))
    .for("update");
  if (!org) throw new Error(`Organisation ${movement.organizationId} vanished while moving Points.`);
  const wanted = movement.take ?? 0;
  // Refunds and disputes take paid Points only, their top-up's lot first; what is given back goes to
  // the lots its hold took from (docs/contract.md §10).
  const lots: LotChanges = [];
  if (wanted > 0)
    lots.push(
      ...(await lotsCall(tx, sql`points_lots_take(${movement.organizationId}, ${wanted}, ${movement.topUpId}, true)`)),
    );
  const taken = -lots.reduce((sum, lot) => sum + lot.points, 0);
  const given = movement.give ?? 0;
  if (given > 0) {
    const from = await heldFrom(tx, movement);
    lots.push(
      ...(await lotsCall(
        tx,
        sql`points_lots_give(${movement.organizationId}, ${given}, ${movement.topUpId}, ${from === null ? null : JSON.stringify(from)}::jsonb)`,
      )),
    );
  }
  const granted = await moveLot(tx, movement);
  lots.push(...granted.lots);
  const unheld = Math.min(movement.unhold ?? 0, org.heldPoints);
  const delta = given - taken + granted.delta;
  const heldDelta = (movement.toHeld ? taken : 0) - unheld;
  const pointsBalance = org.pointsBalance + delta;
  const heldPoints = org.heldPoints + heldDelta;
  const crossing = crossingSql("o", "$before", "$after");
  const bind = (text: string) =>
    sql.raw(text.replaceAll("$before", String(org.pointsBalance)).replaceAll("$after", String(pointsBalance)));
  const [flags] = rowsOf<{ low: boolean; recharge: boolean; threshold: number | null }>(
    await tx.execute(sql`
      update organizations o set points_balance = ${pointsBalance}, held_points = ${heldPoints},
        updated_at = ${movement.now.toISOString()},
        auto_recharge_crossings = o.auto_recharge_crossings + (case when ${bind(crossing.recharge)} then 1 else 0 end)
      where o.id = ${movement.organizationId}
      returning ${bind(crossing.low)} as low, ${bind(crossing.recharge)} as recharge,
        o.low_balance_threshold as threshold`),
  );
  await tx.execute(
    textSql(RECORD_MOVEMENT_SQL, [
      newId("ledger"),
      movement.organizationId,
      movement.topUpId,
      movement.kind,
      delta,
      heldDelta,
      pointsBalance,
      wanted - taken,
      movement.causeId,
      movement.eventId ?? null,
      movement.now.toISOString(),
      lots.length > 0 ? JSON.stringify(lots) : null,
    ]),
  );
  if (flags?.low) {
    await emitEvent(
      tx,
      movement.organizationId,
      "balance.low",
      { points_balance: pointsBalance, threshold: Number(flags.threshold) },
      movement.now,
    );
  }
  return {
    delta,
    rechargeDue: flags?.recharge === true,
    heldDelta,
    shortfall: wanted - taken,
    pointsBalance,
    heldPoints,
  };
}

/** A grant's lot made, or a lot emptied, in the caller's transaction under the organisation's row lock. */
async function moveLot(tx: Db, movement: Movement): Promise<{ delta: number; lots: LotChanges }> {
  if (movement.emptyLot) {
    const where = and(eq(pointLots.organizationId, movement.organizationId), eq(pointLots.id, movement.emptyLot));
    const [lot] = await tx
      .select({ remaining: pointLots.remaining, category: pointLots.category })
      .from(pointLots)
      .where(where)
      .for("update");
    const left = lot?.remaining ?? 0;
    if (!lot || left === 0) return { delta: 0, lots: [] };
    await tx.update(pointLots).set({ remaining: 0 }).where(where);
    return { delta: -left, lots: [{ lot_id: movement.emptyLot, category: lot.category, points: -left }] };
  }
  const change = movement.grantLot;
  if (!change || movement.causeId === null) return { delta: 0, lots: [] };
  const lotId = `lot_${movement.causeId}`;
  await tx.insert(pointLots).values({
    organizationId: movement.organizationId,
    id: lotId,
    category: "promotional",
    grantId: movement.causeId,
    points: change.points,
    remaining: change.points,
    expiresAt: change.expiresAt,
    createdAt: movement.now,
  });
  return { delta: change.points, lots: [{ lot_id: lotId, category: "promotional", points: change.points }] };
}

async function lotsCall(tx: Db, call: ReturnType<typeof sql>): Promise<LotChanges> {
  const [row] = rowsOf<{ lots: LotChanges | string }>(await tx.execute(sql`select ${call} as lots`));
  const lots = row?.lots ?? [];
  return typeof lots === "string" ? (JSON.parse(lots) as LotChanges) : lots;
}

/** The lots a dispute's hold took its Points from, for its release to give them back to. */
async function heldFrom(tx: Db, movement: Movement): Promise<LotChanges | null> {
  if (movement.kind !== "dispute_release" || movement.causeId === null) return null;
  const [hold] = await tx
    .select({ lots: pointsLedger.lots })
    .from(pointsLedger)
    .where(and(eq(pointsLedger.kind, "dispute_hold"), eq(pointsLedger.causeId, movement.causeId)));
  return hold?.lots ?? null;
}

/**
 * The two crossings a decrease of the spendable balance can make, as SQL over the organisation's
 * row `org` and the balance before and after (SQL expressions): `low`, from at or above the
 * low-balance threshold to below it (one `balance.low`); `recharge`, the same across the
 * auto-recharge level while auto-recharge is on and not paused (one crossing counted). The one
 * statement of the rule, for recordMovement and the spend's statement (spends.ts) alike.
 */
export function crossingSql(org: string, before: string, after: string): { low: string; recharge: string } {
  const crosses = (level: string) => `(${level} is not null and ${before} >= ${level} and ${after} < ${level})`;
  return {
    low: crosses(`${org}.low_balance_threshold`),
    recharge: `(${org}.auto_recharge_enabled and ${org}.auto_recharge_paused_reason is null and ${crosses(`${org}.auto_recharge_below`)})`,
  };
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
lot as (
  insert into point_lots (organization_id, id, category, top_up_id, points, remaining, expires_at, created_at)
  select u.organization_id, 'lot_' || u.id, 'paid', u.id, u.points, u.points, u.points_expire_at, ${now}
  from ${purchases} u where u.status = 'paid'
),
ledger as (
  ${insertLedgerSql({
    id: ledgerId,
    organizationId: "u.organization_id",
    topUpId: "u.id",
    kind: `'${kind}'`,
    delta: "u.points",
    heldDelta: "0",
    balanceAfter: "c.points_balance",
    shortfall: "0",
    causeId: "null",
    eventId: "null",
    reason: "'top_up'",
    createdAt: now,
    lots: "jsonb_build_array(jsonb_build_object('lot_id', 'lot_' || u.id, 'category', 'paid', 'points', u.points))",
    from: `${purchases} u cross join credited c`,
    where: "u.status = 'paid'",
  })}
)`;
}

export async function getPointsBalance(db: Db, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ pointsBalance: organizations.pointsBalance })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return row?.pointsBalance ?? 0;
}
