import { count, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { topUps } from "@/lib/db/schema";
import { dailyPointsFilter, frequencyWindowFilter, type LimitSettings, pendingPoints } from "./limits";


/** An organisation's limits (null: none set) and how much of each is in use right now. */
export interface LimitUsage {
  maxPointsPerTopUp: number | null;
  balance: {
    limit: number | null;
    pointsBalance: number;
    /** Points of unresolved purchases: they may still be credited, so they count against the cap. */
    pendingPoints: number;
    used: number;
  };
  frequency: {
    limit: { count: number; windowSeconds: number } | null;
    /** Purchases (failed ones too) in the current window; null when no window is set. */
    used: number | null;
  };
  daily: {
    limit: number | null;
    /** Points bought in the last 24 hours, failed purchases excluded. */
    used: number;
  };
}

/**
 * What the Limits page shows. The counts use the same filters as assertWithinLimits
 * (lib/points/limits.ts), so "used" here is exactly what the next purchase is checked against.
 */
export async function getLimitUsage(db: Db, organization: LimitSettings, now: Date): Promise<LimitUsage> {
  const frequencyLimit =
    organization.frequencyLimitCount !== null && organization.frequencyLimitWindowSeconds !== null
      ? { count: organization.frequencyLimitCount, windowSeconds: organization.frequencyLimitWindowSeconds }
      : null;
  const [pending, purchasesInWindow, dailyPoints] = await Promise.all([
    pendingPoints(db, organization.id),
    frequencyLimit ? countPurchasesSince(db, organization.id, now, frequencyLimit.windowSeconds) : null,
    pointsInLastDay(db, organization.id, now),
  ]);
  return {
    maxPointsPerTopUp: organization.maxPointsPerTopUp,
    balance: {
      limit: organization.maxPointsBalance,
      pointsBalance: organization.pointsBalance,
      pendingPoints: pending,
      used: organization.pointsBalance + pending,
    },
    frequency: { limit: frequencyLimit, used: purchasesInWindow },
    daily: { limit: organization.dailyPointsLimit, used: dailyPoints },
  };
}

async function countPurchasesSince(db: Db, organizationId: string, now: Date, windowSeconds: number): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(topUps)
    .where(frequencyWindowFilter(organizationId, new Date(now.getTime() - windowSeconds * 1000)));
  return Number(row?.total ?? 0);
}

async function pointsInLastDay(db: Db, organizationId: string, now: Date): Promise<number> {
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${topUps.points}), 0)` })
    .from(topUps)
    .where(dailyPointsFilter(organizationId, now));
  return Number(row?.total ?? 0);
}
