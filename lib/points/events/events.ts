import { and, desc, eq, getTableColumns, or, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { hotQuery, rowReader, selectColumns, textSql } from "@/lib/db/hot";
import { rowsOf } from "@/lib/db/rows";
import { auditLog, type EventRow, events, type Organization, organizations, type TopUp, topUps } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { type AuditInput, recordAudit } from "../audit";
import { PointsError } from "../errors";

/** docs/contract.md §8's event types. The last three arrive with spending and auto-recharge. */
export const EVENT_TYPES = [
  "top_up.paid",
  "top_up.failed",
  "top_up.awaiting_payment",
  "top_up.unresolved",
  "top_up.refunded",
  "top_up.dispute_opened",
  "top_up.dispute_closed",
  "payment_methods.updated",
  "settings.updated",
  "points.spent",
  "balance.low",
  "auto_recharge.failed",
  "points.expiring",
  "points.expired",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export type TopUpEventType = Extract<EventType, `top_up.${string}`>;

/** How long events are kept for the feed; an older `after` answers 410 events_expired. */
export const EVENTS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

export interface EventJson {
  id: string;
  type: EventType;
  sequence: number;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

/**
 * The event data of a top-up's event, as SQL: the purchase's row as written (`to_jsonb`) and the
 * balance. Every writer of a top-up's event uses this, and toEventJson turns it into the API's
 * TopUp, so a TopUp in an event is shaped by the same function as everywhere else.
 */
export function topUpEventDataSql(topUpAlias: string, balance: string): string {
  return `jsonb_build_object('top_up', to_jsonb(${topUpAlias}), 'points_balance', ${balance})`;
}

/**
 * The organisation's next sequence, as the SET clause of an update of its row (aliased `o`) that
 * the statement writing the event makes: under that row's lock, so numbers follow commit order.
 */
export function nextSequenceSql(when = "true"): string {
  return `event_sequence = o.event_sequence + case when ${when} then 1 else 0 end`;
}

/** An event's row as SQL expressions, selected `from` a statement's sources (`where` it applies). */
export interface EventRowSql {
  organizationId: string;
  sequence: string;
  id: string;
  type: string;
  data: string;
  createdAt: string;
  from: string;
  where?: string;
}

/**
 * The one insert into `events`, as SQL: each row a select over the statement's sources. Every
 * writer of an event uses it (emitEvent and emitTopUpEvent below, the purchase's outcome, the
 * one-statement spend), so an event's columns are written in one place.
 */
export function insertEventsSql(rows: EventRowSql[]): string {
  const selects = rows.map(
    (row) =>
      `select ${row.organizationId}, ${row.sequence}, ${row.id}, ${row.type}, ${row.data}, ${row.createdAt}
  from ${row.from}${row.where ? ` where ${row.where}` : ""}`,
  );
  return `insert into events (organization_id, sequence, id, type, data, created_at)
  ${selects.join("\n  union all\n  ")}`;
}

const EMIT_EVENT_SQL = `with o as (
  update organizations o set ${nextSequenceSql()} where id = $1 returning event_sequence
)
${insertEventsSql([
  {
    organizationId: "$1",
    sequence: "o.event_sequence",
    id: "$2",
    type: "$3",
    data: "$4::jsonb",
    createdAt: "$5",
    from: "o",
  },
])}
returning sequence`;

/**
 * Appends an event in the caller's transaction: the organisation's row is updated first (its
 * counter bumped, which takes its lock as every other writer does first), then the event written
 * with that number. Rolled back with the transaction, it leaves no event and no number.
 */
export async function emitEvent(
  tx: Db,
  organizationId: string,
  type: EventType,
  data: Record<string, unknown>,
  now: Date,
): Promise<number> {
  const result = await tx.execute(
    textSql(EMIT_EVENT_SQL, [organizationId, newId("event"), type, JSON.stringify(data), now.toISOString()]),
  );
  const [row] = rowsOf<{ sequence: string | number }>(result);
  if (!row) throw new Error(`Organisation ${organizationId} vanished while writing an event.`);
  return Number(row.sequence);
}

/**
 * A purchase's row as an event stores it (as `to_jsonb` writes it, for topUpEventDataSql's
 * readers): toEventJson turns it into the API's TopUp when the event is read.
 */
export function storedTopUp(topUp: TopUp): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(getTableColumns(topUps)).map(([key, column]) => {
      const value = topUp[key as keyof TopUp];
      return [column.name, value instanceof Date ? value.toISOString() : value];
    }),
  );
}

const EMIT_TOP_UP_EVENT_SQL = `with o as (
  update organizations o set ${nextSequenceSql()}
  where id = $1 and exists (select 1 from top_ups where id = $2)
  returning event_sequence, points_balance
)
${insertEventsSql([
  {
    organizationId: "$1",
    sequence: "o.event_sequence",
    id: "$3",
    type: "$4",
    data: topUpEventDataSql("t", "o.points_balance"),
    createdAt: "$5",
    from: "o cross join top_ups t",
    where: "t.id = $2",
  },
])}
returning sequence`;

/** A top-up's event, in the caller's transaction: the purchase as this transaction has written it, and the balance. */
export async function emitTopUpEvent(
  tx: Db,
  topUp: { id: string; organizationId: string },
  type: TopUpEventType,
  now: Date,
): Promise<number> {
  const result = await tx.execute(
    textSql(EMIT_TOP_UP_EVENT_SQL, [topUp.organizationId, topUp.id, newId("event"), type, now.toISOString()]),
  );
  const [row] = rowsOf<{ sequence: string | number }>(result);
  if (!row) throw new Error(`Top-up ${topUp.id} vanished while writing its event.`);
  return Number(row.sequence);
}

export const DEFAULT_EVENTS_LIMIT = 50;
export const MAX_EVENTS_LIMIT = 100;

export interface EventsPage {
  events: EventRow[];
  hasMore: boolean;
}

/**
 * The feed's one statement: the page of events after `after` and the organisation's counter, read
 * from one snapshot. Counter and event are written in one transaction, so in that snapshot every
 * event numbered up to the counter is either there or deleted: a gap means pruned, never "not yet".
 */
const EVENTS_PAGE_SQL = `select o.event_sequence as "counter", ${selectColumns(events, "e", "e_")}
from organizations o
left join lateral (
  select * from events where organization_id = o.id and sequence > $2 order by sequence limit $3
) e on true
where o.id = $1
order by e.sequence`;
const readEvent = rowReader(events, "e_");

/**
 * The organisation's events after a sequence number, oldest first. When events after `after` were
 * already deleted (older than 30 days), the receiver cannot fill its gap from here: 410
 * events_expired, with the oldest sequence still kept. Page and counter come from one statement,
 * so an event committed meanwhile is never mistaken for one that expired (on a replica too).
 */
export async function listEvents(
  db: Db,
  organizationId: string,
  query: { after: number; limit: number },
): Promise<EventsPage> {
  const raw = await hotQuery(db, EVENTS_PAGE_SQL, [organizationId, query.after, query.limit + 1]);
  const counter = Number(raw[0]?.counter ?? 0);
  const rows = raw.filter((row) => row.e_sequence !== null && row.e_sequence !== undefined).map(readEvent);
  const first = rows[0];
  if (first && first.sequence > query.after + 1) throw eventsExpired(first.sequence);
  if (!first && counter > query.after) throw eventsExpired(counter + 1);
  return { events: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

function eventsExpired(oldest: number): PointsError {
  return new PointsError(
    "events_expired",
    `Events are kept for 30 days and those after this sequence are gone; the oldest kept is ${oldest}. Read the current state (GET /v3/points/top-ups, /v3/points/balance) and continue from after=${oldest - 1}.`,
    { details: { oldest_sequence: oldest } },
  );
}

/** Deletes events older than 30 days, a bounded batch at a time (their deliveries go with them). */
export async function pruneEvents(db: Db, now: Date, batch = 1000): Promise<number> {
  const cutoff = new Date(now.getTime() - EVENTS_KEPT_MS);
  const result = await db.execute(sql`
    delete from events where (organization_id, sequence) in (
      select organization_id, sequence from events where created_at < ${cutoff.toISOString()} limit ${batch}
    ) returning 1`);
  return rowsOf(result).length;
}

/** The events of one organisation, newest first, for the dashboard and tests. */
export async function recentEvents(db: Db, organizationId: string, limit = 50): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(eq(events.organizationId, organizationId))
    .orderBy(desc(events.sequence))
    .limit(limit);
}

/**
 * When an announcement would repeat one already made (within the 30 days events are kept), so
 * its event is not written again:
 * - `anyOf`: an event of its type exists whose data contains one of these (a card is added once,
 *   and removed once: Stripe never attaches a detached card again);
 * - `latestOf`: the latest event of its type whose data contains this has the very same data (a
 *   default can go back to a card it was before, which is news again).
 */
export type Repeat = { anyOf: Record<string, unknown>[] } | { latestOf: Record<string, unknown> };

/** The audit entry of a person's (or a key's, an operator's) change; `once`: not again for the same action and target. */
export type AnnouncedAudit = Omit<AuditInput, "organizationId" | "at"> & { once?: boolean };

/**
 * A change made outside this database (at the billing provider: a card added, removed, made the
 * default) announced in a transaction of its own, once it is made. Several reports of the same
 * change (our own page, then the provider's webhook, in either order) write one event: see Repeat.
 * The audit entry records who made the change, so it is written even when the provider's webhook
 * announced the change first. Answers whether the event was written.
 */
export async function announce(
  services: { db: Db; clock: { now(): Date } },
  organizationId: string,
  type: EventType,
  data: Record<string, unknown>,
  options: { once?: Repeat; audit?: AnnouncedAudit } = {},
): Promise<boolean> {
  return services.db.transaction(async (tx) => {
    await tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .for("update");
    const now = services.clock.now();
    const repeated = options.once ? await isRepeat(tx, organizationId, type, data, options.once) : false;
    if (!repeated) await emitEvent(tx, organizationId, type, data, now);
    if (options.audit) {
      const { once: auditOnce, ...entry } = options.audit;
      if (!(auditOnce && (await isAudited(tx, organizationId, entry)))) {
        await recordAudit(tx, { ...entry, organizationId, at: now });
      }
    }
    return !repeated;
  });
}

async function isRepeat(
  tx: Db,
  organizationId: string,
  type: EventType,
  data: Record<string, unknown>,
  repeat: Repeat,
): Promise<boolean> {
  const contains = (pattern: Record<string, unknown>) => sql`${events.data} @> ${JSON.stringify(pattern)}::jsonb`;
  const ofType = and(eq(events.organizationId, organizationId), eq(events.type, type));
  if ("anyOf" in repeat) {
    if (repeat.anyOf.length === 0) return false;
    const [seen] = await tx
      .select({ sequence: events.sequence })
      .from(events)
      .where(and(ofType, or(...repeat.anyOf.map(contains))))
      .limit(1);
    return seen !== undefined;
  }
  const [latest] = await tx
    .select({ same: sql<boolean>`${events.data} = ${JSON.stringify(data)}::jsonb` })
    .from(events)
    .where(and(ofType, contains(repeat.latestOf)))
    .orderBy(desc(events.sequence))
    .limit(1);
  return latest?.same === true;
}

async function isAudited(
  tx: Db,
  organizationId: string,
  audit: Pick<AuditInput, "action" | "target">,
): Promise<boolean> {
  const [entry] = await tx
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.organizationId, organizationId),
        eq(auditLog.action, audit.action),
        eq(auditLog.target, audit.target),
      ),
    )
    .limit(1);
  return entry !== undefined;
}

/** An organisation's settings as `settings.updated` carries them: what an admin or an operator can change. */
export function settingsEventData(organization: Organization): Record<string, unknown> {
  return {
    settings: {
      api_purchases_enabled: organization.apiPurchasesEnabled,
      api_available: organization.apiAvailable,
      currency: organization.currency,
      max_points_per_top_up: organization.maxPointsPerTopUp,
      max_points_balance: organization.maxPointsBalance,
      frequency_limit:
        organization.frequencyLimitCount !== null && organization.frequencyLimitWindowSeconds !== null
          ? { count: organization.frequencyLimitCount, window_seconds: organization.frequencyLimitWindowSeconds }
          : null,
      daily_points_limit: organization.dailyPointsLimit,
      low_balance_threshold: organization.lowBalanceThreshold,
      auto_recharge: {
        enabled: organization.autoRechargeEnabled,
        below: organization.autoRechargeBelow,
        points: organization.autoRechargePoints,
        monthly_max: organization.autoRechargeMonthlyMax,
        paused_reason: organization.autoRechargePausedReason,
      },
    },
  };
}

/**
 * `settings.updated` and its audit entry in the caller's transaction, when the settings changed; returns
 * the organisation as it now is (its event counter moved).
 */
export async function emitSettingsChange(
  tx: Db,
  before: Organization,
  after: Organization,
  now: Date,
): Promise<Organization> {
  const data = settingsEventData(after);
  const was = settingsEventData(before);
  if (JSON.stringify(was) === JSON.stringify(data)) return after;
  const eventSequence = await emitEvent(tx, after.id, "settings.updated", data, now);
  await recordAudit(tx, {
    organizationId: after.id,
    action: "settings.updated",
    target: after.id,
    before: was.settings,
    after: data.settings,
    at: now,
  });
  return { ...after, eventSequence };
}
