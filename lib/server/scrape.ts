import { count, inArray, isNull, min, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { simEvents, stripeEvents, topUps } from "@/lib/db/schema";
import { connectionsInUse, poolState } from "@/lib/observability/db-pool";
import { metrics } from "@/lib/observability/metrics";

const OPEN_STATES = { pending: "unresolved", processing: "unresolved", awaiting_payment: "awaiting_payment" } as const;

function ageSeconds(oldest: Date | null, now: Date): number {
  return oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0;
}

/**
 * The gauges read from the database at scrape time: open purchases and the oldest one's age, the
 * provider events not yet handled and their lag, the events handled by result; and the pool.
 * `kind` says which database: PGlite has one connection and its use is not counted.
 */
export async function refreshScrapeGauges(db: Db, now: Date, kind: "postgres" | "pglite"): Promise<void> {
  const m = metrics();
  const open = await db
    .select({ status: topUps.status, n: count(), oldest: min(topUps.createdAt) })
    .from(topUps)
    .where(inArray(topUps.status, Object.keys(OPEN_STATES)))
    .groupBy(topUps.status);
  for (const state of ["unresolved", "awaiting_payment"] as const) {
    const rows = open.filter((row) => OPEN_STATES[row.status as keyof typeof OPEN_STATES] === state);
    m.openPurchases.set(
      { state },
      rows.reduce((sum, row) => sum + Number(row.n), 0),
    );
    const oldest = rows.map((row) => row.oldest).filter((date): date is Date => date !== null);
    m.oldestOpenAge.set({ state }, ageSeconds(oldest.length ? new Date(Math.min(...oldest.map(Number))) : null, now));
  }

  // The simulated provider's queued webhooks; Stripe's are handled as they arrive (a failed one is
  // redelivered by Stripe and counted in points_billing_event_failures_total meanwhile).
  const [pending] = await db
    .select({ n: count(), oldest: min(simEvents.createdAt) })
    .from(simEvents)
    .where(isNull(simEvents.deliveredAt));
  m.eventsPending.set(Number(pending?.n ?? 0));
  m.eventsLag.set(ageSeconds(pending?.oldest ? new Date(pending.oldest) : null, now));

  const recorded = await db
    .select({ result: stripeEvents.result, n: sql<number>`count(*)::int` })
    .from(stripeEvents)
    .groupBy(stripeEvents.result);
  m.eventsRecorded.reset();
  for (const row of recorded) m.eventsRecorded.set({ result: row.result }, Number(row.n));

  const pool = poolState();
  m.dbMax.set(kind === "pglite" ? 1 : pool.max);
  m.dbInUse.set(kind === "pglite" ? 0 : connectionsInUse());
  m.dbInFlight.set(kind === "pglite" ? 0 : pool.inFlight);
}
