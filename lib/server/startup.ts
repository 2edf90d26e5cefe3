import path from "node:path";
import { authSecret } from "@/lib/auth/secret";
import { type Env, env } from "@/lib/env";
import { log } from "@/lib/observability/log";
import { demoPasswordWorks } from "@/lib/points/accounts/seed";
import { pruneEvents } from "@/lib/points/events/events";
import { announceExpiringLots, expireDueLots } from "@/lib/points/expiry/expiry";
import { retryDeferredEvents } from "@/lib/points/intake/billing-events";
import { deliverPendingEvents } from "@/lib/points/intake/provider-events";
import { reconcileTopUps } from "@/lib/points/purchase";
import { rechargeDueOrganizations } from "@/lib/points/recharge/auto-recharge";
import { webhookTargets } from "@/lib/webhooks/endpoints";
import { WebhookSender } from "@/lib/webhooks/sender";
import { checkBillingCredentials, printBanner } from "./banner";
import { adoptHttpServers, connectionSettings } from "./http-servers";
import { onClose, shutdown, startBackgroundLoop } from "./lifecycle";
import { getRuntime, type Runtime } from "./runtime";

const RECONCILE_EVERY_MS = 60_000;
/** The simulated provider's queued webhooks are handed over this often, as Stripe's arrive within seconds. */
const DELIVER_EVENTS_EVERY_MS = 1_000;
/** Leaves a purchase to its own client's retry for this long before the reconciler steps in. */
const RECONCILE_MIN_AGE_MS = 60_000;
/** A balancer checking /readyz every second or two marks the instance down within this. */
export const DEFAULT_SHUTDOWN_DELAY_SECONDS = 5;
/** With the delay, within Kubernetes' default 30 s between SIGTERM and SIGKILL, with room to close the database. */
export const DEFAULT_DRAIN_MS = 20_000;

/** Where scripts/graceful-shutdown.mjs finds the shutdown to run on SIGTERM (or SIGINT), given the signal's name. */
const SHUTDOWN = Symbol.for("points.shutdown");

/**
 * Opens and migrates the database (seeding the demo organisation on the embedded default),
 * prints how to call the API, and starts the reconciler. A failure is fatal on purpose: Next
 * would otherwise keep serving 500s.
 */
export async function startServer(): Promise<void> {
  try {
    // First: in production a missing or short secret stops the server before it serves anything.
    authSecret({
      onGenerated: (file) =>
        log().info(
          { event: "dev_auth_secret_generated" },
          `Generated a development AUTH_SECRET in ${path.relative(process.cwd(), file)} (set AUTH_SECRET to deploy).`,
        ),
    });
    const settings = connectionSettings(env());
    const runtime = await getRuntime();
    const { delayMs, drainMs } = shutdownTimings(runtime.leaseMs);
    const servers = adoptHttpServers(settings);
    onClose("the database", () => runtime.database.close());
    // Ctrl-C (SIGINT) is a person at a terminal, with no balancer to tell: no delay.
    (globalThis as unknown as { [SHUTDOWN]?: (signal: string) => Promise<unknown> })[SHUTDOWN] = (signal) =>
      shutdown({ delayMs: signal === "SIGINT" ? 0 : delayMs, drainMs, servers });
    printBanner(runtime, runtime.demo ? await demoPasswordWorks(runtime.db, runtime.demo).catch(() => true) : true);
    // Not awaited: a slow provider must not hold the server's start.
    void checkBillingCredentials(runtime);
    startReconciler(runtime);
    startLotExpiry(runtime);
    startEventDelivery(runtime);
    startWebhookSender(runtime);
  } catch (error) {
    log().fatal(
      { event: "startup_failed" },
      `The Points service could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
}

export interface ShutdownTimings {
  /** How long the listener stays open after readiness turns 503 (POINTS_SHUTDOWN_DELAY_SECONDS). */
  delayMs: number;
  /** How long purchases in flight then get to finish (POINTS_DRAIN_SECONDS). */
  drainMs: number;
}

/**
 * POINTS_SHUTDOWN_DELAY_SECONDS and POINTS_DRAIN_SECONDS, refused unless together shorter than the
 * lease: a purchase that starts at the end of the delay may run until the end of the drain, and one
 * still running when its lease ran out could be taken over by another instance while this one still
 * sends its charge. The drain is 20 s by default, or half the lease if less.
 */
export function shutdownTimings(
  leaseMs: number,
  values: Pick<Env, "POINTS_SHUTDOWN_DELAY_SECONDS" | "POINTS_DRAIN_SECONDS"> = env(),
): ShutdownTimings {
  const delayMs = (values.POINTS_SHUTDOWN_DELAY_SECONDS ?? DEFAULT_SHUTDOWN_DELAY_SECONDS) * 1000;
  const drainSeconds = values.POINTS_DRAIN_SECONDS;
  const drainMs = drainSeconds === undefined ? Math.min(DEFAULT_DRAIN_MS, leaseMs / 2) : drainSeconds * 1000;
  if (drainMs >= leaseMs) {
    throw new Error(
      `POINTS_DRAIN_SECONDS=${drainMs / 1000} must be shorter than a purchase's lease (${leaseMs / 1000} s, POINTS_LEASE_SECONDS).`,
    );
  }
  if (delayMs + drainMs >= leaseMs) {
    throw new Error(
      `POINTS_SHUTDOWN_DELAY_SECONDS=${delayMs / 1000} plus the drain (${drainMs / 1000} s, POINTS_DRAIN_SECONDS) must be shorter than a purchase's lease (${leaseMs / 1000} s, POINTS_LEASE_SECONDS).`,
    );
  }
  return { delayMs, drainMs };
}

/**
 * Every instance settles, once a minute, the purchases nobody came back for (a crashed request,
 * a client that gave up), so "it will resolve" holds without a retry. Instances can run it at
 * once: each purchase is taken under its lease. A shutdown stops it between purchases.
 */
function startReconciler(runtime: Runtime): void {
  if (env().POINTS_RECONCILE === "off") return;
  startBackgroundLoop("Reconciler run", RECONCILE_EVERY_MS, async (stopping) => {
    const settled = await reconcileTopUps(runtime, {
      leaseMs: runtime.leaseMs,
      minAgeMs: RECONCILE_MIN_AGE_MS,
      stopping,
    });
    if (settled.length > 0) {
      log().info(
        { event: "reconciled", count: settled.length },
        `Reconciler: ${settled.map((result) => `${result.topUp.id} ${result.topUp.status}`).join(", ")}`,
      );
    }
    // Crossings whose recharge did not run after their commit (a crash) or has not settled yet.
    await rechargeDueOrganizations(runtime);
    await pruneEvents(runtime.db, runtime.clock.now());
    const deferred = await retryDeferredEvents(runtime, { stopping });
    if (deferred.applied.length > 0) {
      log().info(
        { events: deferred.applied.map((receipt) => `${receipt.eventId} ${receipt.result}`) },
        "Reconciler: deferred events applied",
      );
    }
  });
}

/** How often each instance expires lots past their time: their Points leave within this of it. */
const EXPIRE_LOTS_EVERY_MS = 30_000;

/**
 * Every instance expires lots and announces the ones coming up (lib/points/expiry): each lot is
 * taken under its organisation's lock, so instances running it at once expire it once.
 */
function startLotExpiry(runtime: Runtime): void {
  const deferring: Runtime = { ...runtime, defer: (task) => void task() };
  startBackgroundLoop("Lot expiry", EXPIRE_LOTS_EVERY_MS, async (stopping) => {
    const expired = await expireDueLots(deferring, { stopping });
    const announced = await announceExpiringLots(deferring);
    if (expired > 0 || announced > 0) {
      log().info(
        { event: "lots_expired", expired, announced },
        `Lot expiry: ${expired} lots expired, ${announced} expiring announced`,
      );
    }
  });
}

/**
 * A provider without webhooks (the simulated one) queues its events; every instance hands them
 * over each second, through the same handling as Stripe's webhook. Two instances taking the same
 * event move nothing twice (events are deduplicated, each movement is unique).
 */
function startEventDelivery(runtime: Runtime): void {
  if (!runtime.provider.testMode?.pendingEvents) return;
  // A recharge a refund or a dispute makes due starts as soon as its event is handled.
  const deferring: Runtime = { ...runtime, defer: (task) => void task() };
  startBackgroundLoop("Event delivery", DELIVER_EVENTS_EVERY_MS, async () => {
    await deliverPendingEvents(deferring);
  });
}

/** How often each instance looks for events to send: a delivery leaves within this of its commit. */
const SEND_WEBHOOKS_EVERY_MS = 200;

/**
 * Every instance sends webhooks: each delivery is claimed by one sender at a time (lib/webhooks),
 * so more instances only add senders. A shutdown stops claiming and waits for the sends in flight
 * (each ends within its 15 s deadline, inside the drain).
 */
function startWebhookSender(runtime: Runtime): void {
  if (env().POINTS_WEBHOOKS === "off") return;
  const sender = new WebhookSender(runtime, webhookTargets());
  startBackgroundLoop(
    "Webhook delivery",
    SEND_WEBHOOKS_EVERY_MS,
    () => sender.tick(),
    () => sender.idle(),
  );
}
