import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const PROVIDER_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40];

function createMetrics() {
  const registry = new Registry();
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: histogram(
      "points_http_request_duration_seconds",
      "Time to answer an HTTP request, by route template (never the raw path) and status.",
      ["method", "route", "status"],
      SECONDS_BUCKETS,
    ),
    purchases: counter(
      "points_purchases_total",
      "Purchase requests (API and dashboard) by how they ended: paid_now, paid (replayed), failed, awaiting_payment, unresolved, reference_conflict, purchase_in_progress.",
      ["source", "outcome"],
    ),
    purchaseTransitions: counter(
      "points_purchase_transitions_total",
      "Purchase state changes (created as pending, then processing, paid, failed, awaiting_payment).",
      ["from", "to"],
    ),
    providerDuration: histogram(
      "points_provider_call_duration_seconds",
      "Time of one billing provider call, by operation and outcome (ok or error).",
      ["provider", "operation", "outcome"],
      PROVIDER_BUCKETS,
    ),
    providerErrors: counter(
      "points_provider_call_errors_total",
      "Billing provider calls that threw, by operation and kind (unavailable, refused, other).",
      ["provider", "operation", "kind"],
    ),
    openPurchases: gauge(
      "points_purchases_open",
      "Purchases not settled yet: unresolved (pending or processing) and awaiting_payment (the cardholder).",
      ["state"],
    ),
    oldestOpenAge: gauge(
      "points_purchases_oldest_open_age_seconds",
      "Age of the oldest purchase in each open state (0 when there is none).",
      ["state"],
    ),
    reconcilerRuns: counter("points_reconciler_runs_total", "Reconciler runs, by result (ok or failed).", ["result"]),
    reconcilerPurchases: counter(
      "points_reconciler_purchases_total",
      "Purchases the reconciler took up, by the state it left them in (or error).",
      ["result"],
    ),
    reconcilerDuration: histogram(
      "points_reconciler_run_duration_seconds",
      "Time of one reconciler run.",
      [],
      PROVIDER_BUCKETS,
    ),
    dbInUse: gauge(
      "points_db_pool_connections_in_use",
      "Postgres connections busy with a query or a transaction (PGlite: not counted, 0).",
      [],
    ),
    dbMax: gauge("points_db_pool_connections_max", "Connections the pool may open (PGlite: 1).", []),
    dbInFlight: gauge(
      "points_db_queries_in_flight",
      "Queries outside a transaction, and transactions, under way (past the pool's size they share or wait for connections).",
      [],
    ),
    eventsPending: gauge(
      "points_billing_events_pending",
      "Provider events received or queued but not yet handled (the simulated provider's queue; Stripe's webhooks are handled as they arrive).",
      [],
    ),
    eventsLag: gauge(
      "points_billing_events_oldest_pending_age_seconds",
      "Age of the oldest event not yet handled (0 when there is none).",
      [],
    ),
    eventsRecorded: gauge(
      "points_billing_events_recorded",
      "Provider events handled and recorded, by result (handled, ignored, deferred, unmatched: money this service cannot place).",
      ["result"],
    ),
    eventFailures: counter(
      "points_billing_event_failures_total",
      "Provider events whose handling failed (to be delivered again), by provider.",
      ["provider"],
    ),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

// Next loads a module once per bundle (the startup hook and each route): one registry per process.
const globalForMetrics = globalThis as unknown as { pointsMetrics?: Metrics };

export function metrics(): Metrics {
  globalForMetrics.pointsMetrics ??= createMetrics();
  return globalForMetrics.pointsMetrics;
}

/** Seconds since `start` (a performance.now() reading). */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}
