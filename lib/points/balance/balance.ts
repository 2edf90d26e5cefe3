import { sql } from "drizzle-orm";
import { BUNDLES } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { rowsOf } from "@/lib/db/rows";
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

/** Lots with Points left that expire within this long are listed on the balance. */
export const EXPIRING_WITHIN_MS = 60 * 24 * 60 * 60 * 1000;
const MAX_EXPIRING = 10;

/** Points left in lots that expire soon, soonest first. */
export interface ExpiringPoints {
  points: number;
  category: "paid" | "promotional";
  expiresAt: Date;
}

/** An organisation's balance, its limits as they stand, and when the rate limits let a purchase through. */
export interface Balance {
  /** Spendable Points: the lots' Points left, read in one statement with their split. */
  pointsBalance: number;
  /** The same Points by category; paid + promotional = pointsBalance. */
  pointsByCategory: { paid: number; promotional: number };
  /** Lots with Points left that expire within 60 days, soonest first, at most 10. */
  expiring: ExpiringPoints[];
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
  const lots = await readLots(db, organization.id, now);
  const keyDaily = key && key.dailyPointsCap !== null ? await readKeyDailyState(db, key, now) : null;
  const organizationNext = nextPurchaseAt(limits, SMALLEST_BUNDLE, now).getTime();
  const keyNext = keyDaily ? dailyFreeAt(keyDaily, SMALLEST_BUNDLE, now) : now.getTime();
  return {
    pointsBalance: lots.paid + lots.promotional,
    pointsByCategory: { paid: lots.paid, promotional: lots.promotional },
    expiring: lots.expiring,
    pointsHeld: organization.heldPoints,
    limits,
    keyDaily,
    nextPurchaseAt: new Date(Math.max(organizationNext, keyNext)),
  };
}

interface LotsRow {
  paid: string | number;
  promotional: string | number;
  expiring: Array<{ points: number; category: "paid" | "promotional"; expires_at: string }> | string;
}

/**
 * The organisation's lots as the balance says them, in one statement (one snapshot): the Points left
 * by category, and the lots that expire within 60 days, in the order they are used.
 */
export async function readLots(
  db: Db,
  organizationId: string,
  now: Date,
): Promise<{ paid: number; promotional: number; expiring: ExpiringPoints[] }> {
  const horizon = new Date(now.getTime() + EXPIRING_WITHIN_MS);
  const [row] = rowsOf<LotsRow>(
    await db.execute(sql`
      with l as (
        select category, remaining, expires_at, created_at, id from point_lots
        where organization_id = ${organizationId} and remaining > 0
      ), soon as (
        select * from l where expires_at > ${now.toISOString()} and expires_at <= ${horizon.toISOString()}
        order by expires_at, (category = 'paid'), created_at, id limit ${MAX_EXPIRING}
      )
      select
        coalesce((select sum(remaining) from l where category = 'paid'), 0) as paid,
        coalesce((select sum(remaining) from l where category = 'promotional'), 0) as promotional,
        coalesce((select jsonb_agg(jsonb_build_object('points', remaining, 'category', category,
          'expires_at', expires_at) order by expires_at, (category = 'paid'), created_at, id) from soon), '[]'::jsonb)
          as expiring`),
  );
  const expiring = typeof row?.expiring === "string" ? JSON.parse(row.expiring) : (row?.expiring ?? []);
  return {
    paid: Number(row?.paid ?? 0),
    promotional: Number(row?.promotional ?? 0),
    expiring: (expiring as Array<{ points: number; category: "paid" | "promotional"; expires_at: string }>).map(
      (lot) => ({ points: lot.points, category: lot.category, expiresAt: new Date(lot.expires_at) }),
    ),
  };
}
