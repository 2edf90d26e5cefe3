import { BUNDLES } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import type { Organization } from "@/lib/db/schema";
import {
  dailyFreeAt,
  type KeyCap,
  type LimitState,
  nextPurchaseAt,
  readKeyDailyState,
  readLimitState,
} from "../limits/limits";

/** The smallest bundle: when it may be bought is when any purchase may be. */
const SMALLEST_BUNDLE = Math.min(...BUNDLES);

/** An organisation's balance, its limits as they stand, and when the rate limits let a purchase through. */
export interface Balance {
  pointsBalance: number;
  /** Points a dispute holds: not spendable until the dispute is settled. */
  pointsHeld: number;
  limits: LimitState;
  /** The asking key's own daily cap as it stands, when it has one. */
  keyDaily: LimitState["daily"] | null;
  /** Now, or the earliest time the frequency and daily limits (and the key's cap) let the smallest bundle through. */
  nextPurchaseAt: Date;
}

/**
 * GET /v3/points/balance. The limits come from readLimitState and the time from nextPurchaseAt,
 * the very functions a purchase is checked with, so a 429's Retry-After names this same time.
 */
export async function getBalance(db: Db, organization: Organization, now: Date, key?: KeyCap): Promise<Balance> {
  const limits = await readLimitState(db, organization, now);
  const keyDaily = key && key.dailyPointsCap !== null ? await readKeyDailyState(db, key, now) : null;
  const organizationNext = nextPurchaseAt(limits, SMALLEST_BUNDLE, now).getTime();
  const keyNext = keyDaily ? dailyFreeAt(keyDaily, SMALLEST_BUNDLE, now) : now.getTime();
  return {
    pointsBalance: organization.pointsBalance,
    pointsHeld: organization.heldPoints,
    limits,
    keyDaily,
    nextPurchaseAt: new Date(Math.max(organizationNext, keyNext)),
  };
}
