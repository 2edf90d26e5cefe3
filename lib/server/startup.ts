import { authSecret } from "@/lib/auth/secret";
import { checkBillingCredentials, printBanner } from "./banner";
import { env } from "@/lib/env";
import { deliverPendingEvents } from "@/lib/points/provider-events";
import { reconcileTopUps } from "@/lib/points/purchase";
import { getRuntime, type Runtime } from "./runtime";

const RECONCILE_EVERY_MS = 60_000;
/** The simulated provider's queued webhooks are handed over this often, as Stripe's arrive within seconds. */
const DELIVER_EVENTS_EVERY_MS = 1_000;
/** Leaves a purchase to its own client's retry for this long before the reconciler steps in. */
const RECONCILE_MIN_AGE_MS = 60_000;

/**
 * Opens and migrates the database (seeding the demo organisation on the embedded default),
 * prints how to call the API, and starts the reconciler. A failure is fatal on purpose: Next
 * would otherwise keep serving 500s.
 */
export async function startServer(): Promise<void> {
  try {
    // First: in production a missing or short secret stops the server before it serves anything.
    authSecret();
    const runtime = await getRuntime();
    printBanner(runtime);
    // Not awaited: a slow provider must not hold the server's start.
    void checkBillingCredentials(runtime);
    startReconciler(runtime);
    startEventDelivery(runtime);
  } catch (error) {
    console.error("\nThe Points service could not start:", error instanceof Error ? error.message : error);
    process.exit(1);
  }
}

/**
 * Every instance settles, once a minute, the purchases nobody came back for (a crashed request,
 * a client that gave up), so "it will resolve" holds without a retry. Instances can run it at
 * once: each purchase is taken under its lease.
 */
function startReconciler(runtime: Runtime): void {
  if (env().POINTS_RECONCILE === "off") return;
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const settled = await reconcileTopUps(runtime, { leaseMs: runtime.leaseMs, minAgeMs: RECONCILE_MIN_AGE_MS });
      if (settled.length > 0) {
        console.log(`Reconciler: ${settled.map((result) => `${result.topUp.id} ${result.topUp.status}`).join(", ")}`);
      }
    } catch (error) {
      console.error("Reconciler run failed:", error instanceof Error ? error.message : error);
    } finally {
      running = false;
    }
  }, RECONCILE_EVERY_MS);
  timer.unref();
}

/**
 * A provider without webhooks (the simulated one) queues its events; every instance hands them
 * over each second, through the same handling as Stripe's webhook. Two instances taking the same
 * event move nothing twice (events are deduplicated, each movement is unique).
 */
function startEventDelivery(runtime: Runtime): void {
  if (!runtime.provider.testMode?.pendingEvents) return;
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await deliverPendingEvents(runtime);
    } catch (error) {
      console.error("Event delivery failed:", error instanceof Error ? error.message : error);
    } finally {
      running = false;
    }
  }, DELIVER_EVENTS_EVERY_MS);
  timer.unref();
}
