import { and, asc, inArray, lt } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { type TopUp, topUps } from "@/lib/db/schema";

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
