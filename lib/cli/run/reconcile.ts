import { retryRequestedRefunds } from "@/lib/points/after-payment/refunds";
import { retryDeferredEvents } from "@/lib/points/intake/billing-events";
import { deliverPendingEvents } from "@/lib/points/intake/provider-events";
import { reconcileTopUps, unresolvedChargedElsewhere } from "@/lib/points/purchase";
import { chargedBy, chargedElsewhereMessage } from "@/lib/points/purchase/charged-by";
import { rechargeDueOrganizations } from "@/lib/points/recharge/auto-recharge";
import {
  listDeferredEvents,
  listPurchasesNeedingAttention,
  listUnansweredRefunds,
  listUnmatchedEvents,
} from "@/lib/points/views/attention";
import type { Runtime } from "@/lib/server/runtime";
import type { PointsCommand } from "../commands";
import { type CliIo, printJson, settledJson } from "../output";

export async function reconcile(
  command: Extract<PointsCommand, { kind: "reconcile" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  if (command.report) {
    await reportAttention(command.json, runtime, io);
    return;
  }
  // An operator asking now means now: purchases waiting out their backoff are asked too.
  const results = await reconcileTopUps(runtime, { leaseMs: runtime.leaseMs, ignoreBackoff: true });
  // And whatever a provider without webhooks has queued (the simulated provider's disputes and
  // refunds), and refunds whose answer was lost, re-sent under their own key.
  await deliverPendingEvents(runtime);
  // Refund and dispute events that waited for a purchase the lines above may have settled.
  await retryDeferredEvents(runtime);
  // Auto-recharges due and not yet bought (a crash between the crossing and the charge).
  await rechargeDueOrganizations(runtime);
  const refundsRetried = await retryRequestedRefunds(runtime, { minAgeMs: 0 });
  for (const retried of refundsRetried) {
    io.stderr(`Refund ${retried.refund.id} of ${retried.topUp.id}: ${retried.outcome}.\n`);
  }
  // Never asked about here: another provider charged them.
  const skipped = (await unresolvedChargedElsewhere(runtime)).map((topUp) => ({
    top_up_id: topUp.id,
    organization_id: topUp.organizationId,
    status: topUp.status,
    charged_by: chargedBy(topUp),
    reason: chargedElsewhereMessage(topUp, "settle"),
  }));
  for (const row of skipped) io.stderr(`Skipped ${row.top_up_id} (${row.status}): ${row.reason}\n`);
  if (command.json) {
    printJson(io, { settled: settledJson(results), skipped });
    return;
  }
  if (results.length === 0) {
    io.stdout("No unresolved purchases needed reconciling.\n");
    return;
  }
  io.stdout(
    [
      `Reconciled ${results.length} purchase${results.length === 1 ? "" : "s"}:`,
      ...settledJson(results).map(
        (row) => `  ${row.top_up_id}  ${row.organization_id}  ${row.reference}  -> ${row.status}`,
      ),
      "",
    ].join("\n"),
  );
}

/** `reconcile --report`: what has been unresolved for over an hour, for a person to look into. */
async function reportAttention(json: boolean, runtime: Runtime, io: CliIo): Promise<void> {
  const now = runtime.clock.now();
  const rows = (await listPurchasesNeedingAttention(runtime.db, now)).map((topUp) => ({
    top_up_id: topUp.id,
    organization_id: topUp.organizationId,
    reference: topUp.reference,
    status: topUp.status,
    points: topUp.points,
    amount: topUp.amount,
    currency: topUp.currency,
    provider_payment_id: topUp.providerPaymentId,
    attempts: topUp.attempts,
    created_at: topUp.createdAt.toISOString(),
    next_attempt_at: topUp.nextAttemptAt?.toISOString() ?? null,
    unresolved_minutes: Math.floor((now.getTime() - topUp.createdAt.getTime()) / 60_000),
  }));
  const unmatched = (await listUnmatchedEvents(runtime.db)).map((event) => ({
    event_id: event.id,
    type: event.type,
    detail: event.detail,
    received_at: event.receivedAt.toISOString(),
  }));
  const deferred = (await listDeferredEvents(runtime.db)).map((event) => ({
    event_id: event.id,
    type: event.type,
    detail: event.detail,
    attempts: event.attempts,
    first_deferred_at: event.firstDeferredAt.toISOString(),
  }));
  const unanswered = (await listUnansweredRefunds(runtime.db)).map((refund) => ({
    refund_id: refund.id,
    top_up_id: refund.topUpId,
    points: refund.points,
    amount: refund.amount,
    currency: refund.currency,
    created_at: refund.createdAt.toISOString(),
  }));
  if (json) {
    printJson(io, {
      needs_attention: rows,
      unmatched_events: unmatched,
      deferred_events: deferred,
      unanswered_refunds: unanswered,
    });
    return;
  }
  const after = [
    ...(unmatched.length
      ? [
          `${unmatched.length} refund or dispute event${unmatched.length === 1 ? "" : "s"} about money no purchase here follows:`,
          ...unmatched.map(
            (event) => `  ${event.event_id}  ${event.type}  ${event.received_at}  ${event.detail ?? ""}`,
          ),
        ]
      : []),
    ...(deferred.length
      ? [
          `${deferred.length} refund or dispute event${deferred.length === 1 ? " waits" : "s wait"} for a purchase to settle (reconcile applies ${deferred.length === 1 ? "it" : "them"} once it does):`,
          ...deferred.map(
            (event) =>
              `  ${event.event_id}  ${event.type}  since ${event.first_deferred_at}  ${event.attempts} tries  ${event.detail}`,
          ),
        ]
      : []),
    ...(unanswered.length
      ? [
          `${unanswered.length} refund${unanswered.length === 1 ? "" : "s"} the provider has not answered (reconcile re-sends them under their key):`,
          ...unanswered.map(
            (refund) => `  ${refund.refund_id}  ${refund.top_up_id}  ${refund.points} Points  ${refund.created_at}`,
          ),
        ]
      : []),
  ];
  if (after.length) io.stdout(`${after.join("\n")}\n`);
  if (rows.length === 0) {
    io.stdout("No purchase has been unresolved for more than an hour.\n");
    return;
  }
  io.stdout(
    [
      `${rows.length} purchase${rows.length === 1 ? " has" : "s have"} been unresolved for more than an hour (the reconciler keeps asking the provider):`,
      ...rows.map(
        (row) =>
          `  ${row.top_up_id}  ${row.organization_id}  ${row.reference}  ${row.status}  ${row.points} Points  ` +
          `${row.unresolved_minutes} min  payment ${row.provider_payment_id ?? "unknown"}  next try ${row.next_attempt_at ?? "now"}`,
      ),
      "",
    ].join("\n"),
  );
}
