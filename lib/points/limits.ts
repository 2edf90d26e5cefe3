import { and, asc, desc, eq, gt, inArray, ne, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { type Organization, topUps } from "@/lib/db/schema";
import { PointsError } from "./errors";

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
 * (lib/points/limit-usage.ts), so that what the Limits page shows is what a purchase is held to.
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

/** The organisation settings the limits read. */
export type LimitSettings = Pick<
  Organization,
  | "id"
  | "pointsBalance"
  | "maxPointsPerTopUp"
  | "maxPointsBalance"
  | "frequencyLimitCount"
  | "frequencyLimitWindowSeconds"
  | "dailyPointsLimit"
>;

/** The per-top-up limit: a larger bundle is refused here and not offered on the Buy page. */
export function exceedsPerTopUpLimit(org: Pick<Organization, "maxPointsPerTopUp">, points: number): boolean {
  return org.maxPointsPerTopUp !== null && points > org.maxPointsPerTopUp;
}

/**
 * Steps 8 and 9 of docs/contract.md §4, in that order. Must run inside the transaction that holds the
 * organisation's row lock and inserts the purchase, so concurrent purchases cannot both slip under
 * a limit. Counts are read from top_ups in Postgres, so every app instance shares them.
 */
export async function assertWithinLimits(tx: Db, org: LimitSettings, points: number, now: Date): Promise<void> {
  if (exceedsPerTopUpLimit(org, points)) {
    throw new PointsError(
      "limit_exceeded",
      `This organisation can buy at most ${org.maxPointsPerTopUp} Points in one top-up; choose a smaller bundle.`,
      { details: { limit: "max_points_per_top_up", max_points_per_top_up: org.maxPointsPerTopUp, points } },
    );
  }
  if (org.maxPointsBalance !== null) {
    const pending = await pendingPoints(tx, org.id);
    if (org.pointsBalance + pending + points > org.maxPointsBalance) {
      throw new PointsError(
        "limit_exceeded",
        `This purchase would take the balance past the organisation's maximum of ${org.maxPointsBalance} Points.`,
        {
          details: {
            limit: "max_points_balance",
            max_points_balance: org.maxPointsBalance,
            points_balance: org.pointsBalance,
            pending_points: pending,
            points,
          },
        },
      );
    }
  }
  await assertFrequency(tx, org, now);
  await assertDailyPoints(tx, org, points, now);
}

/** Points of purchases that may still be credited: they count against the balance cap. */
export async function pendingPoints(tx: Db, organizationId: string): Promise<number> {
  const [row] = await tx
    .select({ total: sql<string>`coalesce(sum(${topUps.points}), 0)` })
    .from(topUps)
    .where(and(eq(topUps.organizationId, organizationId), inArray(topUps.status, [...UNRESOLVED_STATUSES])));
  return Number(row?.total ?? 0);
}

/** More than COUNT purchases (failed ones too) within WINDOW seconds is refused. */
async function assertFrequency(tx: Db, org: LimitSettings, now: Date): Promise<void> {
  const count = org.frequencyLimitCount;
  const windowSeconds = org.frequencyLimitWindowSeconds;
  if (count === null || windowSeconds === null) return;
  const windowStart = new Date(now.getTime() - windowSeconds * 1000);
  const recent = await tx
    .select({ createdAt: topUps.createdAt })
    .from(topUps)
    .where(frequencyWindowFilter(org.id, windowStart))
    .orderBy(desc(topUps.createdAt))
    .limit(count);
  const oldest = recent[count - 1];
  if (count > 0 && !oldest) return;
  // The window frees a place when the oldest of the last COUNT purchases leaves it.
  const freeAt = oldest ? oldest.createdAt.getTime() + windowSeconds * 1000 : now.getTime() + windowSeconds * 1000;
  throw new PointsError(
    "frequency_limit_reached",
    `This organisation can make at most ${count} purchases in ${windowSeconds} seconds; retry after the time in Retry-After.`,
    {
      retryAfterSeconds: secondsUntil(freeAt, now),
      details: { limit: "frequency", max_purchases: count, window_seconds: windowSeconds },
    },
  );
}

/** More than P Points in the last 24 hours (rolling; failed purchases excluded) is refused. */
async function assertDailyPoints(tx: Db, org: LimitSettings, points: number, now: Date): Promise<void> {
  const limit = org.dailyPointsLimit;
  if (limit === null) return;
  const rows = await tx
    .select({ createdAt: topUps.createdAt, points: topUps.points })
    .from(topUps)
    .where(dailyPointsFilter(org.id, now))
    .orderBy(asc(topUps.createdAt));
  const usedLast24h = rows.reduce((sum, row) => sum + row.points, 0);
  if (usedLast24h + points <= limit) return;
  let used = usedLast24h;
  // Retry when enough of the oldest purchases have rolled out of the 24 hours; never, if the bundle alone is too big.
  let freeAt = now.getTime() + DAY_MS;
  if (points <= limit) {
    for (const row of rows) {
      used -= row.points;
      if (used + points <= limit) {
        freeAt = row.createdAt.getTime() + DAY_MS;
        break;
      }
    }
  }
  throw new PointsError(
    "daily_limit_reached",
    `This organisation can buy at most ${limit} Points in 24 hours; retry after the time in Retry-After or choose a smaller bundle.`,
    {
      retryAfterSeconds: secondsUntil(freeAt, now),
      details: { limit: "daily_points", daily_points_limit: limit, points_last_24h: usedLast24h, points },
    },
  );
}

function secondsUntil(at: number, now: Date): number {
  return Math.max(1, Math.ceil((at - now.getTime()) / 1000));
}
