import { log } from "./log";
import { metrics } from "./metrics";

/** A purchase's state change (docs/contract.md §3): one log line, one count. `from` null: just created. */
export function purchaseTransition(
  topUp: { id: string; organizationId: string; source: string; status: string },
  from: string | null,
): void {
  if (from === topUp.status) return;
  metrics().purchaseTransitions.inc({ from: from ?? "none", to: topUp.status });
  log().info(
    {
      event: "purchase_phase",
      top_up_id: topUp.id,
      organization_id: topUp.organizationId,
      source: topUp.source,
      from,
      to: topUp.status,
    },
    "purchase phase",
  );
}

/** How a purchase request ended (PurchaseOutcome), API or dashboard. */
export function purchaseAnswered(source: string, outcome: string): void {
  metrics().purchases.inc({ source, outcome });
}

/** One reconciler run: the purchases it took up and what became of them, or why it failed. */
export function reconcilerRun(run: {
  durationMs: number;
  due: number;
  results: Record<string, number>;
  error?: unknown;
}): void {
  const m = metrics();
  m.reconcilerRuns.inc({ result: run.error ? "failed" : "ok" });
  m.reconcilerDuration.observe(run.durationMs / 1000);
  for (const [result, count] of Object.entries(run.results)) m.reconcilerPurchases.inc({ result }, count);
  const fields = {
    event: "reconciler_run",
    duration_ms: Math.round(run.durationMs),
    due: run.due,
    results: run.results,
  };
  if (run.error) {
    log().error(
      { ...fields, error: run.error instanceof Error ? run.error.message : String(run.error) },
      "reconciler run failed",
    );
  } else {
    log().info(fields, "reconciler run");
  }
}
