import type { Db } from "@/lib/db/client";
import { type LimitSettings, readLimitState } from "./limits";

/** An organisation's limits (null: none set) and how much of each is in use right now. */
export interface LimitUsage {
  maxPointsPerTopUp: number | null;
  balance: {
    limit: number | null;
    pointsBalance: number;
    /** Points of unresolved purchases: they may still be credited, so they count against the cap. */
    pendingPoints: number;
    /** Points disputes hold, or removed and may give back: they count against the cap too. */
    disputedPoints: number;
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
 * What the Limits page shows. The counts come from readLimitState (lib/points/limits/limits.ts), the same
 * read assertWithinLimits checks a purchase against, so "used" here is exactly what the next
 * purchase is held to.
 */
export async function getLimitUsage(db: Db, organization: LimitSettings, now: Date): Promise<LimitUsage> {
  const { maxPointsPerTopUp, balance, frequency, daily } = await readLimitState(db, organization, now);
  return {
    maxPointsPerTopUp,
    balance: {
      limit: balance.limit,
      pointsBalance: balance.pointsBalance,
      pendingPoints: balance.pendingPoints,
      disputedPoints: balance.disputedPoints,
      used: balance.used,
    },
    frequency: { limit: frequency.limit, used: frequency.used },
    daily: { limit: daily.limit, used: daily.used },
  };
}
