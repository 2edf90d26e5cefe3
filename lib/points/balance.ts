import type { Db } from "@/lib/db/client";
import type { Organization } from "@/lib/db/schema";
import { BUNDLES } from "./catalog";
import { type LimitState, nextPurchaseAt, readLimitState } from "./limits";
import type { BalanceJson } from "./schemas";

/** The smallest bundle: when it may be bought is when any purchase may be. */
const SMALLEST_BUNDLE = Math.min(...BUNDLES);

/** An organisation's balance, its limits as they stand, and when the rate limits let a purchase through. */
export interface Balance {
  pointsBalance: number;
  /** Points a dispute holds: not spendable until the dispute is settled. */
  pointsHeld: number;
  limits: LimitState;
  /** Now, or the earliest time the frequency and daily limits let the smallest bundle through. */
  nextPurchaseAt: Date;
}

/**
 * GET /v3/points/balance. The limits come from readLimitState and the time from nextPurchaseAt,
 * the very functions a purchase is checked with, so a 429's Retry-After names this same time.
 */
export async function getBalance(
  db: Db,
  organization: Organization,
  now: Date,
): Promise<Balance> {
  const limits = await readLimitState(db, organization, now);
  return {
    pointsBalance: organization.pointsBalance,
    pointsHeld: organization.heldPoints,
    limits,
    nextPurchaseAt: nextPurchaseAt(limits, SMALLEST_BUNDLE, now),
  };
}

/**
 * The balance as JSON. Only the limits an operator configured are listed; an unconfigured limit is
 * absent, so `limits` is `{}` for an organisation without any.
 */
export function toBalanceJson(balance: Balance): BalanceJson {
  const { balance: cap, frequency, daily, maxPointsPerTopUp } = balance.limits;
  const limits: BalanceJson["limits"] = {};
  if (maxPointsPerTopUp !== null) limits.max_points_per_top_up = { limit: maxPointsPerTopUp };
  if (cap.limit !== null) {
    limits.max_points_balance = { limit: cap.limit, used: cap.used, remaining: cap.remaining ?? 0 };
  }
  if (frequency.limit && frequency.used !== null) {
    limits.frequency_limit = {
      limit: frequency.limit.count,
      window_seconds: frequency.limit.windowSeconds,
      used: frequency.used,
      remaining: frequency.remaining ?? 0,
    };
  }
  if (daily.limit !== null) {
    limits.daily_points_limit = { limit: daily.limit, used: daily.used, remaining: daily.remaining ?? 0 };
  }
  return {
    points_balance: balance.pointsBalance,
    points_held: balance.pointsHeld,
    limits,
    next_purchase_at: balance.nextPurchaseAt.toISOString(),
  };
}
