// POST /api/stripe/webhook – Stripe's events about payments and saved cards, verified by signature
import { deferredAfterAnswer } from "@/lib/http/api";
import { log } from "@/lib/observability/log";
import { metrics } from "@/lib/observability/metrics";
import { handleBillingEvent, isDeferredEvent } from "@/lib/points/intake/billing-events";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const runtime = await getRuntime();
  if (!runtime.provider.verifyWebhook) {
    return Response.json({ error: "Stripe is not this service's billing provider." }, { status: 404 });
  }
  const verdict = await runtime.provider.verifyWebhook(request, runtime.clock.now());
  if (verdict.kind === "refused") return Response.json({ error: verdict.message }, { status: verdict.status });
  if (verdict.kind === "ignored") {
    // Signed by Stripe, so a redelivery would fail the same way: acknowledge it, and leave a trace.
    log().warn({ event: "stripe_event_ignored", reason: verdict.reason }, `Stripe event ignored: ${verdict.reason}.`);
    return Response.json({ received: true, event_id: null, type: null, result: "ignored", detail: verdict.reason });
  }
  const { event } = verdict;
  try {
    // A recharge a refund or a dispute made due runs once Stripe has its answer.
    const receipt = await handleBillingEvent(deferredAfterAnswer(runtime), event);
    return Response.json({
      received: true,
      event_id: receipt.eventId,
      type: receipt.type,
      result: receipt.result,
      detail: receipt.detail ?? null,
    });
  } catch (error) {
    if (isDeferredEvent(error)) {
      // Kept until its purchase settles (the reconciler applies it then); Stripe delivers it again too.
      log().warn(
        { eventId: event.id, type: event.type, detail: error.detail },
        "Stripe event deferred until its purchase settles",
      );
      return Response.json(
        { error: "The event waits for its purchase to settle; it will be applied then." },
        { status: 500 },
      );
    }
    // Transient (the database, Stripe): a 500 makes Stripe deliver the event again later.
    metrics().eventFailures.inc({ provider: "stripe" });
    log().error(
      { event: "stripe_event_failed", event_id: event.id, type: event.type, err: error },
      `Stripe event ${event.id} (${event.type}) failed; Stripe will redeliver it: ${error instanceof Error ? error.message : String(error)}`,
    );
    return Response.json({ error: "The event could not be handled now; it will be retried." }, { status: 500 });
  }
}
