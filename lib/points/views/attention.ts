import { and, asc, eq, inArray, lt } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { deferredBillingEvents, refunds, stripeEvents, type TopUp, topUps } from "@/lib/db/schema";

/** A purchase still unresolved this long after it was made is flagged for a person to look at. */
export const ATTENTION_AFTER_MS = 60 * 60 * 1000;

/**
 * Unresolved (pending or processing) for more than an hour: the provider has not told us for a
 * long time whether the money moved. The reconciler keeps asking; an operator should look too.
 * The dashboard shows these as "confirming with the bank".
 */
export function needsAttention(topUp: Pick<TopUp, "status" | "createdAt">, now: Date): boolean {
  return (
    (topUp.status === "pending" || topUp.status === "processing") &&
    now.getTime() - topUp.createdAt.getTime() > ATTENTION_AFTER_MS
  );
}

/** Every purchase needing attention, oldest first (`npm run points -- reconcile --report`). */
export async function listPurchasesNeedingAttention(db: Db, now: Date, limit = 500): Promise<TopUp[]> {
  return db
    .select()
    .from(topUps)
    .where(
      and(
        inArray(topUps.status, ["pending", "processing"]),
        lt(topUps.createdAt, new Date(now.getTime() - ATTENTION_AFTER_MS)),
      ),
    )
    .orderBy(asc(topUps.createdAt), asc(topUps.id))
    .limit(limit);
}

/**
 * Refund and dispute events about payments this service could not place (stored as `unmatched`):
 * money moved at the provider that no purchase here follows, for a person to look into.
 */
export async function listUnmatchedEvents(db: Db, limit = 500) {
  return db
    .select()
    .from(stripeEvents)
    .where(eq(stripeEvents.result, "unmatched"))
    .orderBy(asc(stripeEvents.receivedAt), asc(stripeEvents.id))
    .limit(limit);
}

/**
 * Refund and dispute events waiting for their purchase to settle here (its payment's outcome is
 * not known yet): the reconciler applies them once it is; an operator sees how long they waited.
 */
export async function listDeferredEvents(db: Db, limit = 500) {
  return db
    .select()
    .from(deferredBillingEvents)
    .orderBy(asc(deferredBillingEvents.firstDeferredAt), asc(deferredBillingEvents.id))
    .limit(limit);
}

/** Operators' refunds the provider has not answered yet; `reconcile` re-sends them under their key. */
export async function listUnansweredRefunds(db: Db, limit = 500) {
  return db.select().from(refunds).where(eq(refunds.status, "requested")).orderBy(asc(refunds.createdAt)).limit(limit);
}
