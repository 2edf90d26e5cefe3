import { and, eq, inArray, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { BillingProvider } from "@/lib/billing/provider";
import type { Db } from "@/lib/db/client";
import { type TopUp, topUps } from "@/lib/db/schema";
import { UNRESOLVED_STATUSES } from "../limits";
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
export function assertLeaseCoversProvider(leaseMs: number, provider: Pick<BillingProvider, "name" | "callBudgetMs">): void {
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
export async function takeLease(tx: Db, topUpId: string, lockToken: string, now: Date, leaseMs: number): Promise<TopUp | null> {
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

export async function releaseLease(db: Db, topUpId: string, lockToken: string): Promise<void> {
  try {
    await db
      .update(topUps)
      .set({ lockToken: null, lockedUntil: null })
      .where(and(eq(topUps.id, topUpId), eq(topUps.lockToken, lockToken)));
  } catch (error) {
    // The lease runs out by itself; a retry after that resumes the purchase.
    console.error(`Could not release the lease on ${topUpId}:`, errorSummary(error));
  }
}
