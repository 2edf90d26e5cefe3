import { and, asc, desc, eq, getTableColumns, gt, inArray, ne, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { type Organization, organizations, pointLots, pointsLedger, topUps } from "@/lib/db/schema";
import { PointsError } from "../errors";

/** Statuses whose Points may still be credited: they count against the balance cap and the daily limit. */
export const UNRESOLVED_STATUSES = ["pending", "processing", "awaiting_payment"] as const;
const UNRESOLVED: ReadonlySet<string> = new Set(UNRESOLVED_STATUSES);

/** Whether a purchase in this status may still be credited (or fail). */
export function isUnresolved(status: string): boolean {
  return UNRESOLVED.has(status);
}
export const DAY_MS = 24 * 60 * 60 * 1000;

/*
 * The counting rules, shared by the checks below and by the dashboard's usage view
 * (lib/points/limits/limit-usage.ts), so that what the Limits page shows is what a purchase is held to.
 */

/** Purchases that count toward the frequency limit: every one, failed ones too, created after windowStart. */
export function frequencyWindowFilter(organizationId: string, windowStart: Date): SQL | undefined {
  return and(eq(topUps.organizationId, organizationId), gt(topUps.createdAt, windowStart));
}

/** Purchases whose Points count toward the daily limit: not failed, created in the 24 hours before now. */
export function dailyPointsFilter(organizationId: string, now: Date): SQL | undefined {
  return and(
    eq(topUps.organizationId, organizationId),
    ne(topUps.status, "failed"),
    gt(topUps.createdAt, new Date(now.getTime() - DAY_MS)),
  );
}

/** Purchases made with one API key whose Points count toward its own daily cap: the same rule, per key. */
export function keyDailyPointsFilter(apiKeyId: string, now: Date): SQL | undefined {
  return and(
    eq(topUps.apiKeyId, apiKeyId),
    ne(topUps.status, "failed"),
    gt(topUps.createdAt, new Date(now.getTime() - DAY_MS)),
  );
}

/** The key a purchase is made with, as its daily cap sees it; the dashboard's purchases have none. */
export interface KeyCap {
  id: string;
  dailyPointsCap: number | null;
}

/** The organisation settings the limits read. */
export type LimitSettings = Pick<
  Organization,
  | "id"
  | "pointsBalance"
  | "heldPoints"
  | "maxPointsPerTopUp"
  | "maxPointsBalance"
  | "frequencyLimitCount"
  | "frequencyLimitWindowSeconds"
  | "dailyPointsLimit"
>;

/**
 * Every limit an organisation can set, by its column, and what checking it takes:
 * - `counted`: past purchases or balances must be counted under the organisation's lock;
 * - `bundle`: only the bundle's Points are compared with it (no counting);
 * - a column name: a part of that limit (the frequency limit's window), set or cleared with it.
 * The one list "no limit to count" is built from, in TypeScript (nothingToCount) and in SQL
 * (nothingToCountSql, the one-statement purchase of purchase/start.ts). A new limit column must
 * be added here: limit-rules.test.ts fails for a limit column of organizations missing from it.
 */
export const ORGANIZATION_LIMITS = {
  maxPointsPerTopUp: "bundle",
  maxPointsBalance: "counted",
  frequencyLimitCount: "counted",
  frequencyLimitWindowSeconds: "frequencyLimitCount",
  dailyPointsLimit: "counted",
} as const satisfies Partial<Record<keyof Organization, "counted" | "bundle" | keyof Organization>>;

type LimitColumn = keyof typeof ORGANIZATION_LIMITS;
const LIMIT_COLUMNS = Object.keys(ORGANIZATION_LIMITS) as LimitColumn[];
const countedLimits = LIMIT_COLUMNS.filter((column) => ORGANIZATION_LIMITS[column] === "counted");
const bundleLimits = LIMIT_COLUMNS.filter((column) => ORGANIZATION_LIMITS[column] === "bundle");

/** Whether a purchase of `points` can be decided without counting anything: no counted limit set, the bundle within its limits. */
export function nothingToCount(org: Pick<Organization, LimitColumn>, points: number): boolean {
  return (
    countedLimits.every((column) => org[column] === null) &&
    bundleLimits.every((column) => {
      const limit = org[column];
      return limit === null || limit >= points;
    })
  );
}

/** nothingToCount as a SQL boolean over a row of organizations, `points` a SQL expression (a parameter). */
export function nothingToCountSql(points: string): string {
  const name = (column: LimitColumn) => getTableColumns(organizations)[column].name;
  const counted = countedLimits.map((column) => `${name(column)} is null`);
  const bundles = bundleLimits.map((column) => `(${name(column)} is null or ${name(column)} >= ${points})`);
  return `(${[...counted, ...bundles].join(" and ")})`;
}

/** The per-top-up limit: a larger bundle is refused here and not offered on the Buy page. */
export function exceedsPerTopUpLimit(org: Pick<Organization, "maxPointsPerTopUp">, points: number): boolean {
  return org.maxPointsPerTopUp !== null && points > org.maxPointsPerTopUp;
}

/**
 * What the limits count right now, read once: the one source of "used", "remaining" and "when a
 * purchase passes" for the purchase's checks (assertWithinLimits), the Limits page
 * (lib/points/limits/limit-usage.ts) and GET /v3/points/balance (lib/points/balance/balance.ts).
 */
export interface LimitState {
  maxPointsPerTopUp: number | null;
  balance: {
    limit: number | null;
    pointsBalance: number;
    /** Points of unresolved purchases: they may still be credited, so they count against the cap. */
    pendingPoints: number;
    /**
     * Points disputes took that may come back: held ones, and ones an open dispute removed with its
     * money (released if it is won). They count against the cap as unresolved purchases do.
     */
    disputedPoints: number;
    used: number;
    /** Points that may still be bought before the cap; null when no cap is set. */
    remaining: number | null;
  };
  frequency: {
    limit: { count: number; windowSeconds: number } | null;
    /** Purchases (failed ones too) in the current window; null when no window is set. */
    used: number | null;
    remaining: number | null;
    /** When the next purchase passes the frequency limit (ms since the epoch): now, or when a place frees. */
    freeAt: number;
  };
  daily: {
    limit: number | null;
    /** Points bought in the last 24 hours, failed purchases excluded. */
    used: number;
    remaining: number | null;
    /** The purchases behind `used`, oldest first: when each rolls out of the 24 hours. */
    purchases: { createdAt: Date; points: number }[];
  };
}

/**
 * Reads the counts every limit is held to. Inside a purchase, run it in the transaction holding the
 * row lock. `onlySet`: counts only what a set limit needs (a purchase's check); the counts of
 * limits that are not set then read as zero.
 */
export async function readLimitState(
  tx: Db,
  org: LimitSettings,
  now: Date,
  options: { onlySet?: boolean } = {},
): Promise<LimitState> {
  const count = org.frequencyLimitCount;
  const windowSeconds = org.frequencyLimitWindowSeconds;
  const frequencyLimit = count !== null && windowSeconds !== null ? { count, windowSeconds } : null;
  // One query after another: inside a transaction they share one connection.
  const countAll = !options.onlySet;
  const countBalance = countAll || org.maxPointsBalance !== null;
  const pending = countBalance ? await pendingPoints(tx, org.id) : 0;
  const promotional = countBalance ? await promotionalPoints(tx, org.id) : 0;
  const disputed = countBalance ? org.heldPoints + (await returnableDisputedPoints(tx, org.id)) : 0;
  const inWindow = frequencyLimit
    ? await tx
        .select({ createdAt: topUps.createdAt })
        .from(topUps)
        .where(frequencyWindowFilter(org.id, new Date(now.getTime() - frequencyLimit.windowSeconds * 1000)))
        .orderBy(desc(topUps.createdAt))
    : null;
  const daily =
    countAll || org.dailyPointsLimit !== null
      ? await tx
          .select({ createdAt: topUps.createdAt, points: topUps.points })
          .from(topUps)
          .where(dailyPointsFilter(org.id, now))
          .orderBy(asc(topUps.createdAt))
      : [];
  const balanceUsed = org.pointsBalance - promotional + pending + disputed;
  const dailyUsed = daily.reduce((sum, row) => sum + row.points, 0);
  return {
    maxPointsPerTopUp: org.maxPointsPerTopUp,
    balance: {
      limit: org.maxPointsBalance,
      pointsBalance: org.pointsBalance,
      pendingPoints: pending,
      disputedPoints: disputed,
      used: balanceUsed,
      remaining: org.maxPointsBalance === null ? null : Math.max(0, org.maxPointsBalance - balanceUsed),
    },
    frequency: {
      limit: frequencyLimit,
      used: inWindow ? inWindow.length : null,
      remaining: frequencyLimit && inWindow ? Math.max(0, frequencyLimit.count - inWindow.length) : null,
      freeAt: frequencyFreeAt(frequencyLimit, inWindow ?? [], now),
    },
    daily: {
      limit: org.dailyPointsLimit,
      used: dailyUsed,
      remaining: org.dailyPointsLimit === null ? null : Math.max(0, org.dailyPointsLimit - dailyUsed),
      purchases: daily,
    },
  };
}

/** A key's daily cap as it stands: the organisation's daily count, over this key's purchases only. */
export async function readKeyDailyState(tx: Db, key: KeyCap, now: Date): Promise<LimitState["daily"]> {
  const purchases = await tx
    .select({ createdAt: topUps.createdAt, points: topUps.points })
    .from(topUps)
    .where(keyDailyPointsFilter(key.id, now))
    .orderBy(asc(topUps.createdAt));
  const used = purchases.reduce((sum, row) => sum + row.points, 0);
  const limit = key.dailyPointsCap;
  return { limit, used, remaining: limit === null ? null : Math.max(0, limit - used), purchases };
}

/** The window frees a place when the oldest of the last COUNT purchases leaves it. */
function frequencyFreeAt(
  limit: { count: number; windowSeconds: number } | null,
  newestFirst: { createdAt: Date }[],
  now: Date,
): number {
  if (!limit) return now.getTime();
  const oldest = newestFirst[limit.count - 1];
  if (limit.count > 0 && !oldest) return now.getTime();
  return oldest ? oldest.createdAt.getTime() + limit.windowSeconds * 1000 : now.getTime() + limit.windowSeconds * 1000;
}

/**
 * When a purchase of `points` passes the daily limit (ms since the epoch): now, or when enough of the
 * oldest purchases have rolled out of the 24 hours; 24 hours from now if the bundle alone is too big.
 */
export function dailyFreeAt(daily: LimitState["daily"], points: number, now: Date): number {
  const { limit } = daily;
  if (limit === null || daily.used + points <= limit) return now.getTime();
  if (points > limit) return now.getTime() + DAY_MS;
  let used = daily.used;
  for (const row of daily.purchases) {
    used -= row.points;
    if (used + points <= limit) return row.createdAt.getTime() + DAY_MS;
  }
  return now.getTime() + DAY_MS;
}

/**
 * Steps 8 and 9 of docs/contract.md §4, in that order; last, the API key's own daily cap when it
 * has one. Must run inside the transaction that holds the organisation's row lock and inserts the
 * purchase, so concurrent purchases cannot both slip under a limit. Counts are read from top_ups in
 * Postgres, so every app instance shares them. A quote (lib/points/purchase/quote.ts) runs the same checks
 * without the lock, and writes nothing.
 */
export async function assertWithinLimits(
  tx: Db,
  org: LimitSettings,
  points: number,
  now: Date,
  key?: KeyCap,
): Promise<void> {
  if (exceedsPerTopUpLimit(org, points)) {
    throw new PointsError(
      "limit_exceeded",
      `This organisation can buy at most ${org.maxPointsPerTopUp} Points in one top-up; choose a smaller bundle.`,
      { details: { limit: "max_points_per_top_up", max_points_per_top_up: org.maxPointsPerTopUp, points } },
    );
  }
  const { balance, frequency, daily } = await readLimitState(tx, org, now, { onlySet: true });
  if (balance.limit !== null && balance.used + points > balance.limit) {
    throw new PointsError(
      "limit_exceeded",
      `This purchase would take the balance past the organisation's maximum of ${balance.limit} Points.`,
      {
        details: {
          limit: "max_points_balance",
          max_points_balance: balance.limit,
          points_balance: balance.pointsBalance,
          pending_points: balance.pendingPoints,
          disputed_points: balance.disputedPoints,
          points,
        },
      },
    );
  }
  if (frequency.limit && frequency.freeAt > now.getTime()) {
    const { count, windowSeconds } = frequency.limit;
    throw new PointsError(
      "frequency_limit_reached",
      `This organisation can make at most ${count} purchases in ${windowSeconds} seconds; retry after the time in Retry-After.`,
      {
        retryAfterSeconds: secondsUntil(frequency.freeAt, now),
        details: { limit: "frequency", max_purchases: count, window_seconds: windowSeconds },
      },
    );
  }
  const dailyAt = dailyFreeAt(daily, points, now);
  if (daily.limit !== null && dailyAt > now.getTime()) {
    throw new PointsError(
      "daily_limit_reached",
      `This organisation can buy at most ${daily.limit} Points in 24 hours; retry after the time in Retry-After or choose a smaller bundle.`,
      {
        retryAfterSeconds: secondsUntil(dailyAt, now),
        details: { limit: "daily_points", daily_points_limit: daily.limit, points_last_24h: daily.used, points },
      },
    );
  }
  if (key && key.dailyPointsCap !== null) await assertWithinKeyCap(tx, key, points, now);
}

/** The key's own cap: only this key is refused; the organisation's other keys may still buy. */
async function assertWithinKeyCap(tx: Db, key: KeyCap, points: number, now: Date): Promise<void> {
  const daily = await readKeyDailyState(tx, key, now);
  const freeAt = dailyFreeAt(daily, points, now);
  if (freeAt <= now.getTime()) return;
  throw new PointsError(
    "key_daily_limit_reached",
    `This API key can buy at most ${daily.limit} Points in 24 hours; retry after the time in Retry-After, choose a smaller bundle, or use another key.`,
    {
      retryAfterSeconds: secondsUntil(freeAt, now),
      details: {
        limit: "key_daily_points",
        key_daily_points_cap: daily.limit,
        key_points_last_24h: daily.used,
        points,
      },
    },
  );
}

/**
 * When the rate limits (frequency, then daily Points) let a purchase of `points` through: now, or
 * the earliest time both do. A 429's Retry-After is this time, in whole seconds from now.
 */
export function nextPurchaseAt(state: LimitState, points: number, now: Date): Date {
  return new Date(Math.max(state.frequency.freeAt, dailyFreeAt(state.daily, points, now)));
}

/** Points of purchases that may still be credited: they count against the balance cap. */
/**
 * Promotional Points left (grants): the balance cap limits Points bought, so they are not counted
 * (docs/contract.md §10).
 */
export async function promotionalPoints(tx: Db, organizationId: string): Promise<number> {
  const [row] = await tx
    .select({ total: sql<string>`coalesce(sum(${pointLots.remaining}), 0)` })
    .from(pointLots)
    .where(
      and(
        eq(pointLots.organizationId, organizationId),
        eq(pointLots.category, "promotional"),
        gt(pointLots.remaining, 0),
      ),
    );
  return Number(row?.total ?? 0);
}

export async function pendingPoints(tx: Db, organizationId: string): Promise<number> {
  const [row] = await tx
    .select({ total: sql<string>`coalesce(sum(${topUps.points}), 0)` })
    .from(topUps)
    .where(and(eq(topUps.organizationId, organizationId), inArray(topUps.status, [...UNRESOLVED_STATUSES])));
  return Number(row?.total ?? 0);
}

/**
 * Points an open dispute removed with its money, which come back if it is won: as many as its hold
 * took (lib/points/after-payment/disputes.ts releases exactly those).
 */
export async function returnableDisputedPoints(tx: Db, organizationId: string): Promise<number> {
  const [row] = await tx
    .select({ total: sql<string>`coalesce(sum(${pointsLedger.heldDelta}), 0)` })
    .from(topUps)
    .innerJoin(pointsLedger, and(eq(pointsLedger.kind, "dispute_hold"), eq(pointsLedger.causeId, topUps.disputeId)))
    .where(
      and(
        eq(topUps.organizationId, organizationId),
        eq(topUps.disputePointsState, "removed"),
        eq(topUps.disputeStatus, "open"),
      ),
    );
  return Number(row?.total ?? 0);
}

/** Whole seconds from now until `at`, at least 1: what a 429's Retry-After says. */
export function secondsUntil(at: number, now: Date): number {
  return Math.max(1, Math.ceil((at - now.getTime()) / 1000));
}
