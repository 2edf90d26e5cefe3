import { and, asc, eq, gt, isNotNull, isNull, lte, sql } from "drizzle-orm";
import { organizations, pointLots } from "@/lib/db/schema";
import { recordMovement } from "../balance/ledger";
import { emitEvent } from "../events/events";
import { DAY_MS } from "../limits/limits";
import { deferRecharge } from "../recharge/auto-recharge";
import type { Services } from "../services";

/*
 * Expiry (docs/contract.md §10): what is left of a lot at its `expires_at` leaves the balance once,
 * however many instances run this (the ledger's unique (kind, cause) and the lot's lock decide it),
 * with `points.expired`; and `points.expiring` says so 30 and 7 days before, once per lot and lead.
 */

/** Lots taken per query; a run takes as many batches as are due, each lot in its own transaction. */
export const EXPIRY_BATCH = 200;
/** A run stops after this many batches, so one instance never holds the loop: the next run goes on. */
const MAX_BATCHES = 50;
/** Lead times of `points.expiring`, longest first. */
export const EXPIRING_LEADS_DAYS = [30, 7] as const;

type Due = { organizationId: string; id: string };

/**
 * Takes what is left of every lot past its expiry out of the balance: one `expiry` ledger row and
 * one `points.expired` event per lot. Answers how many lots it expired.
 */
export async function expireDueLots(
  services: Services,
  options: { batch?: number; stopping?: () => boolean } = {},
): Promise<number> {
  const batch = options.batch ?? EXPIRY_BATCH;
  let expired = 0;
  for (let round = 0; round < MAX_BATCHES; round++) {
    const now = services.clock.now();
    const due: Due[] = await services.db
      .select({ organizationId: pointLots.organizationId, id: pointLots.id })
      .from(pointLots)
      .where(and(gt(pointLots.remaining, 0), isNotNull(pointLots.expiresAt), lte(pointLots.expiresAt, now)))
      .orderBy(asc(pointLots.expiresAt))
      .limit(batch);
    for (const lot of due) {
      if (options.stopping?.()) return expired;
      if (await expireLot(services, lot)) expired++;
    }
    if (due.length < batch) break;
  }
  return expired;
}

/** One lot expired, under its organisation's lock; false when another instance or a spend got there first. */
async function expireLot(services: Services, lot: Due): Promise<boolean> {
  const now = services.clock.now();
  const moved = await services.db.transaction(async (tx) => {
    await tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.id, lot.organizationId))
      .for("update");
    const [row] = await tx
      .select()
      .from(pointLots)
      .where(and(eq(pointLots.organizationId, lot.organizationId), eq(pointLots.id, lot.id)))
      .for("update");
    if (!row || row.remaining === 0 || !row.expiresAt || row.expiresAt > now) return null;
    const result = await recordMovement(tx, {
      organizationId: lot.organizationId,
      topUpId: row.topUpId,
      kind: "expiry",
      causeId: row.id,
      emptyLot: row.id,
      now,
    });
    await emitEvent(
      tx,
      lot.organizationId,
      "points.expired",
      {
        points: -result.delta,
        category: row.category,
        expires_at: row.expiresAt.toISOString(),
        points_balance: result.pointsBalance,
      },
      now,
    );
    return result;
  });
  if (moved?.rechargeDue) deferRecharge(services, lot.organizationId);
  return moved !== null;
}

/**
 * `points.expiring` for each lot with Points left that came within 30 days of its expiry, and again
 * within 7: once per lot and lead time (a lot made with 7 days or less left is announced once).
 * Answers how many it sent.
 */
export async function announceExpiringLots(services: Services, options: { batch?: number } = {}): Promise<number> {
  const batch = options.batch ?? EXPIRY_BATCH;
  let sent = 0;
  for (const lead of EXPIRING_LEADS_DAYS) {
    const notified = lead === 30 ? pointLots.notified30At : pointLots.notified7At;
    for (let round = 0; round < MAX_BATCHES; round++) {
      const now = services.clock.now();
      const due: Due[] = await services.db
        .select({ organizationId: pointLots.organizationId, id: pointLots.id })
        .from(pointLots)
        .where(
          and(
            gt(pointLots.remaining, 0),
            gt(pointLots.expiresAt, now),
            lte(pointLots.expiresAt, new Date(now.getTime() + lead * DAY_MS)),
            isNull(notified),
          ),
        )
        .orderBy(asc(pointLots.expiresAt))
        .limit(batch);
      for (const lot of due) if (await announceLot(services, lot, lead)) sent++;
      if (due.length < batch) break;
    }
  }
  return sent;
}

/** One lot's notice: marked and announced in one transaction, so one instance sends it. */
async function announceLot(services: Services, lot: Due, lead: number): Promise<boolean> {
  const now = services.clock.now();
  const within7 = new Date(now.getTime() + 7 * DAY_MS);
  return services.db.transaction(async (tx) => {
    // The organisation's row first, as every writer of its lots and events takes it.
    await tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.id, lot.organizationId))
      .for("update");
    const where = and(
      eq(pointLots.organizationId, lot.organizationId),
      eq(pointLots.id, lot.id),
      gt(pointLots.remaining, 0),
    );
    // The 30-day notice of a lot already within 7 days is its only one.
    const [marked] = await tx
      .update(pointLots)
      .set(
        lead === 30
          ? {
              notified30At: now,
              notified7At: sql`case when ${pointLots.expiresAt} <= ${within7.toISOString()} then ${now.toISOString()}::timestamptz else ${pointLots.notified7At} end`,
            }
          : { notified7At: now },
      )
      .where(and(where, isNull(lead === 30 ? pointLots.notified30At : pointLots.notified7At)))
      .returning({ remaining: pointLots.remaining, expiresAt: pointLots.expiresAt });
    if (!marked?.expiresAt) return false;
    await emitEvent(
      tx,
      lot.organizationId,
      "points.expiring",
      { points: marked.remaining, expires_at: marked.expiresAt.toISOString() },
      now,
    );
    return true;
  });
}
