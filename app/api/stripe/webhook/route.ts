// POST /api/stripe/webhook – Stripe's events about payments and saved cards, verified by signature
import { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import { verifyStripeWebhook, WebhookRefusal } from "@/lib/billing/stripe/webhook";
import { stripeEnv } from "@/lib/env";
import { handleStripeEvent } from "@/lib/points/stripe-events";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const runtime = await getRuntime();
  let event: Awaited<ReturnType<typeof verifyStripeWebhook>>;
  try {
    if (!(runtime.provider instanceof StripeBillingProvider)) {
      throw new WebhookRefusal(404, "Stripe is not this service's billing provider.");
    }
    event = await verifyStripeWebhook(runtime.provider.stripe, request, stripeEnv()?.webhookSecret, runtime.clock.now());
  } catch (error) {
    if (error instanceof WebhookRefusal) return Response.json({ error: error.message }, { status: error.status });
    throw error;
  }
  try {
    const receipt = await handleStripeEvent(runtime, event);
    return Response.json({ received: true, event_id: receipt.eventId, type: receipt.type, result: receipt.result, detail: receipt.detail ?? null });
  } catch (error) {
    // Transient (the database, Stripe): a 500 makes Stripe deliver the event again later.
    console.error(`Stripe event ${event.id} (${event.type}) failed; Stripe will redeliver it:`, error instanceof Error ? error.message : error);
    return Response.json({ error: "The event could not be handled now; it will be retried." }, { status: 500 });
  }
}
