import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { hotQuery, type RawRow, rowReader, sqlTime } from "@/lib/db/hot";
import { type Spend, spends } from "@/lib/db/schema";
import { newId, newOrderedId } from "@/lib/ids";
import { toSpendJson } from "../api/json";
import { invalidQuery } from "../api/query-params";
import type { SpendListQuery, SpendRequest } from "../api/spend-request";
import { auditSource, insertAuditSql } from "../audit";
import { crossingSql, insertLedgerSql } from "../balance/ledger";
import { PointsError } from "../errors";
import { insertEventsSql } from "../events/events";
import { deferRecharge } from "../recharge/auto-recharge";
import type { Services } from "../services";

/** Where a spend came from: an API key, or the operator command. */
export type SpendSource = "api" | "operator";

export interface SpendResult {
  spend: Spend;
  /** The spendable balance now. */
  pointsBalance: number;
  /** True when the reference had spent already with the same terms: nothing was spent again. */
  replayed: boolean;
  /** True when this spend took the balance below the auto-recharge level: run runDueRecharge after it. */
  rechargeDue: boolean;
}

const readSpend = rowReader(spends);
const crossing = crossingSql("f", "f.points_balance", "f.points_balance - $3::int");

/**
 * A spend in one statement. The organisation's row is locked first (as every writer of its
 * balance does), so its spends are decided one after another. When the reference has not spent
 * and the balance allows, it takes the Points (counting an auto-recharge crossing), writes the
 * spend, its ledger row, `points.spent` (then `balance.low` when it crossed that threshold) and its
 * audit entry. It answers one row: `spent`, `replay` (the earlier spend), `short` (the balance) or
 * none (no such organisation). A spend with this reference that committed while the statement
 * waited for the lock is not in its snapshot: the unique index refuses the second, and it is asked
 * again (spendPoints), when it answers the replay.
 */
const SPEND_SQL = `with o as (
  select * from organizations where id = $1 for update
), earlier as (
  select s.* from spends s where s.organization_id = $1 and s.reference = $2
), f as (
  select o.* from o where not exists (select 1 from earlier) and o.points_balance >= $3::int
), upd as (
  update organizations u set points_balance = f.points_balance - $3::int,
    event_sequence = u.event_sequence + 1 + (case when ${crossing.low} then 1 else 0 end),
    auto_recharge_crossings = u.auto_recharge_crossings + (case when ${crossing.recharge} then 1 else 0 end),
    updated_at = $9::timestamptz
  from f where u.id = f.id
  returning u.points_balance, u.event_sequence, ${crossing.low} as low, ${crossing.recharge} as recharge,
    f.low_balance_threshold, f.points_balance as balance_before
), sp as (
  insert into spends (organization_id, id, reference, points, description, source, api_key_id, balance_after, created_at)
  select $1, $7, $2, $3::int, $4, $5, $6, upd.points_balance, $9::timestamptz from upd
  returning *
), drawn as (
  select points_lots_take($1, $3::int, null, false) as lots from upd
), led as (
  ${insertLedgerSql({
    id: "$8",
    organizationId: "$1",
    topUpId: "null",
    kind: "'usage'",
    delta: "-$3::int",
    heldDelta: "0",
    balanceAfter: "upd.points_balance",
    shortfall: "0",
    causeId: "$7",
    eventId: "null",
    reason: "'usage'",
    createdAt: "$9::timestamptz",
    lots: "drawn.lots",
    from: "upd cross join drawn",
  })}
), ev as (
  ${insertEventsSql([
    {
      organizationId: "$1",
      sequence: "upd.event_sequence - (case when upd.low then 1 else 0 end)",
      id: "$10",
      type: "'points.spent'",
      data: `jsonb_build_object('spend', jsonb_build_object('id', $7::text, 'reference', $2::text, 'points', $3::int,
      'description', $4::text, 'created_at', $11::text), 'points_balance', upd.points_balance)`,
      createdAt: "$9::timestamptz",
      from: "upd",
    },
    {
      organizationId: "$1",
      sequence: "upd.event_sequence",
      id: "$12",
      type: "'balance.low'",
      data: "jsonb_build_object('points_balance', upd.points_balance, 'threshold', upd.low_balance_threshold)",
      createdAt: "$9::timestamptz",
      from: "upd",
      where: "upd.low",
    },
  ])}
), aud as (
  ${insertAuditSql({
    organizationId: "$1",
    id: "$13",
    at: "$9::timestamptz",
    actorType: "$14",
    actorId: "$15",
    action: "'points.spent'",
    target: "$7",
    before: "jsonb_build_object('points_balance', upd.balance_before)",
    after: "jsonb_build_object('points_balance', upd.points_balance, 'points', $3::int, 'reference', $2::text)",
    requestId: "$16",
    from: "upd",
  })}
)
select 'spent' as outcome, upd.points_balance as balance, o.held_points as held, upd.recharge, sp.*
  from upd cross join sp cross join o
union all
select 'replay', o.points_balance, o.held_points, false, earlier.* from earlier cross join o
union all
select 'short', o.points_balance, o.held_points, false, null, null, null, null, null, null, null, null, null
  from o where not exists (select 1 from earlier) and o.points_balance < $3::int`;

/**
 * Spends Points, idempotently by reference, in one statement (SPEND_SQL): the spend, its ledger row,
 * its event and its audit entry are written together or not at all; a refusal changes nothing.
 */
export async function spendPoints(
  services: Services,
  input: { organizationId: string; request: SpendRequest; source: SpendSource; apiKeyId?: string },
): Promise<SpendResult> {
  const { organizationId, request } = input;
  const now = services.clock.now();
  const { actor, requestId } = auditSource();
  const params = () => [
    organizationId,
    request.reference,
    request.points,
    request.description ?? null,
    input.source,
    input.apiKeyId ?? null,
    newId("spend"),
    newId("ledger"),
    sqlTime(now),
    newId("event"),
    now.toISOString(),
    newId("event"),
    newOrderedId("auditEntry"),
    actor.type,
    actor.id,
    requestId,
  ];
  let row: RawRow | undefined;
  try {
    [row] = await hotQuery(services.db, SPEND_SQL, params());
  } catch (error) {
    if (!isUniqueViolation(error, "spends_reference_idx")) throw error;
    [row] = await hotQuery(services.db, SPEND_SQL, params());
  }
  if (!row) throw new PointsError("not_found", `No organisation ${organizationId}.`);
  const pointsBalance = Number(row.balance);
  if (row.outcome === "short") {
    throw new PointsError(
      "insufficient_points",
      `The organisation has ${pointsBalance} Points to spend, not ${request.points} (held Points cannot be spent); nothing was spent.`,
      { details: { points_balance: pointsBalance, held_points: Number(row.held), points: request.points } },
    );
  }
  const spend = readSpend(row);
  if (row.outcome === "replay") return replay(spend, request, pointsBalance);
  const rechargeDue = row.recharge === true;
  if (rechargeDue) deferRecharge(services, organizationId);
  return { spend, pointsBalance, replayed: false, rechargeDue };
}

/** The same reference again: the same spend when the terms match, else a conflict. */
function replay(earlier: Spend, request: SpendRequest, pointsBalance: number): SpendResult {
  const differs: string[] = [];
  if (earlier.points !== request.points) differs.push("points");
  if ((earlier.description ?? null) !== (request.description ?? null)) differs.push("description");
  if (differs.length > 0) {
    throw new PointsError(
      "reference_conflict",
      `A spend with this reference already exists with other ${differs.join(" and ")}; use a new reference for a new spend.`,
      { details: { spend: toSpendJson(earlier), points_balance: pointsBalance, fields: differs } },
    );
  }
  return { spend: earlier, pointsBalance, replayed: true, rechargeDue: false };
}

/**
 * One page of the organisation's spends, newest first. A cursor names a spend of this
 * organisation: another's, or an unknown one, is a bad parameter, in the same words.
 */
export async function listSpends(
  db: Db,
  organizationId: string,
  query: SpendListQuery,
): Promise<{ spends: Spend[]; hasMore: boolean }> {
  const cursorName =
    query.startingAfter !== undefined ? "starting_after" : query.endingBefore !== undefined ? "ending_before" : null;
  let cursor: Spend | undefined;
  if (cursorName) {
    [cursor] = await db
      .select()
      .from(spends)
      .where(
        and(eq(spends.organizationId, organizationId), eq(spends.id, query.startingAfter ?? query.endingBefore ?? "")),
      );
    if (!cursor) throw invalidQuery({ [cursorName]: "is not the ID of one of the organisation's spends" });
  }
  const newer = cursorName === "ending_before";
  const position = cursor ? sql`(${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id})` : undefined;
  const rows = await db
    .select()
    .from(spends)
    .where(
      and(
        eq(spends.organizationId, organizationId),
        query.reference !== undefined ? eq(spends.reference, query.reference) : undefined,
        position
          ? newer
            ? sql`(${spends.createdAt}, ${spends.id}) > ${position}`
            : sql`(${spends.createdAt}, ${spends.id}) < ${position}`
          : undefined,
      ),
    )
    .orderBy(newer ? sql`${spends.createdAt} asc, ${spends.id} asc` : sql`${spends.createdAt} desc, ${spends.id} desc`)
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  return { spends: newer ? page.reverse() : page, hasMore: rows.length > query.limit };
}
