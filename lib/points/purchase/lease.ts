import { and, eq, inArray, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { BillingProvider } from "@/lib/billing/provider";
import type { Db } from "@/lib/db/client";
import { type TopUp, topUps } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { UNRESOLVED_STATUSES } from "../limits/limits";
import { errorSummary } from "./outcome";

export const DEFAULT_LEASE_MS = 90_000;

/**
 * One settlement makes at most two provider calls (a lookup, then a charge or a cancellation),
 * each cut off at the provider's budget; the lease must outlast both with room for the database,
 * or a second request could take over while the first may still send a charge.
 */
export function minimumLeaseMs(provider: Pick<BillingProvider, "callBudgetMs">): number {
  return 2 * provider.callBudgetMs + 5_000;
}

/** Startup refuses a lease the provider's calls could outlive (POINTS_LEASE_SECONDS). */
export function assertLeaseCoversProvider(
  leaseMs: number,
  provider: Pick<BillingProvider, "name" | "callBudgetMs">,
): void {
  const minimum = minimumLeaseMs(provider);
  if (leaseMs < minimum) {
    throw new Error(
      `POINTS_LEASE_SECONDS=${leaseMs / 1000} is shorter than the ${provider.name} provider's calls may take: ` +
        `set it to at least ${Math.ceil(minimum / 1000)}.`,
    );
  }
}

/** A lease nobody holds now: never taken, released, or run out. */
export function leaseIsFree(now: Date): SQL | undefined {
  return or(isNull(topUps.lockedUntil), lte(topUps.lockedUntil, now));
}

/**
 * Takes the lease on an unresolved purchase, atomically: the condition is in the UPDATE itself, so
 * of two requests that both saw the lease run out, Postgres lets exactly one match (the other
 * re-checks the row after the first commits and matches nothing). Null when it was not free.
 */
export async function takeLease(
  tx: Db,
  topUpId: string,
  lockToken: string,
  now: Date,
  leaseMs: number,
): Promise<TopUp | null> {
  const [taken] = await tx
    .update(topUps)
    .set({
      lockToken,
      lockedUntil: new Date(now.getTime() + leaseMs),
      attempts: sql`${topUps.attempts} + 1`,
      updatedAt: now,
    })
    .where(and(eq(topUps.id, topUpId), inArray(topUps.status, [...UNRESOLVED_STATUSES]), leaseIsFree(now)))
    .returning();
  return taken ?? null;
}

/** Between a failed release and the next try: short at first, as a restarting database is back in seconds. */
export const RELEASE_RETRY_DELAYS_MS = [
  250, 500, 1_000, 2_000, 2_000, 4_000, 4_000, 8_000, 8_000, 15_000, 15_000, 30_000,
];

/**
 * Gives the lease up, so the purchase's next retry can take it at once. A release the database
 * cannot take now (it is restarting) is tried again in the background until it is done, the token
 * no longer holds the lease, or the tries run out (the lease runs out by itself by then); the
 * answer to the request is not held for it. Never rejects.
 */
export async function releaseLease(
  db: Db,
  topUpId: string,
  lockToken: string,
  retryDelaysMs: readonly number[] = RELEASE_RETRY_DELAYS_MS,
): Promise<void> {
  if (await releaseOnce(db, topUpId, lockToken, 1)) return;
  void retryRelease(db, topUpId, lockToken, retryDelaysMs);
}

async function retryRelease(db: Db, topUpId: string, lockToken: string, delaysMs: readonly number[]): Promise<void> {
  for (const [index, delayMs] of delaysMs.entries()) {
    await new Promise((resolve) => setTimeout(resolve, delayMs).unref?.());
    if (await releaseOnce(db, topUpId, lockToken, index + 2)) {
      log().info({ event: "lease_released", top_up_id: topUpId, attempt: index + 2 }, "lease released after a retry");
      return;
    }
  }
  log().error(
    { event: "lease_release_failed", top_up_id: topUpId },
    "could not release the lease; it runs out by itself",
  );
}

/** One try; true when the lease is no longer this token's (released now, or taken over since). */
async function releaseOnce(db: Db, topUpId: string, lockToken: string, attempt: number): Promise<boolean> {
  try {
    await db
      .update(topUps)
      .set({ lockToken: null, lockedUntil: null })
      .where(and(eq(topUps.id, topUpId), eq(topUps.lockToken, lockToken)));
    return true;
  } catch (error) {
    log().warn(
      { event: "lease_release_retry", top_up_id: topUpId, attempt, error: errorSummary(error) },
      "could not release the lease yet; trying again",
    );
    return false;
  }
}
