import { log } from "@/lib/observability/log";
import { metrics } from "@/lib/observability/metrics";
import type { Services } from "../services";
import { handleBillingEvent, isDeferredEvent } from "./billing-events";

const BATCH = 50;

/**
 * Hands over what a provider without webhooks has queued (the simulated provider plays Stripe's
 * webhooks this way), through the same handling as a Stripe webhook. An event is marked delivered
 * only once handled; one that fails or is deferred is offered again on the next call, as Stripe
 * redelivers. Returns how many were handled.
 */
export async function deliverPendingEvents(services: Services): Promise<number> {
  const { pendingEvents, markEventsDelivered } = services.provider.testMode ?? {};
  if (!pendingEvents || !markEventsDelivered) return 0;
  const events = await pendingEvents(BATCH);
  const delivered: string[] = [];
  for (const event of events) {
    try {
      const receipt = await handleBillingEvent(services, event);
      if (receipt.result !== "deferred") delivered.push(event.id);
    } catch (error) {
      // Kept in deferred_billing_events too; offered again here until its purchase settles.
      if (isDeferredEvent(error)) continue;
      metrics().eventFailures.inc({ provider: services.provider.name });
      log().error(
        { event: "simulated_event_failed", event_id: event.id, type: event.type },
        `billing: simulated event ${event.id} (${event.type}) failed; it is offered again later: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  await markEventsDelivered(delivered);
  return delivered.length;
}
