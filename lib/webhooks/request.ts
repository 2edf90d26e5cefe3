import type { WebhookEndpoint } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { toEventJson } from "@/lib/points/api/json";
import type { ClaimedDelivery } from "./claim";
import { signingSecrets } from "./endpoints";
import { sendWebhook, type WebhookResponse } from "./send";
import type { DeliveryServices } from "./services";
import { webhookSignature } from "./signing";
import type { Resolver, TargetOptions } from "./target";

export interface SendOptions extends TargetOptions {
  resolver?: Resolver;
  timeoutMs?: number;
  /** The jitter's draw for a retry's wait, in [0, 1) (default Math.random). */
  random?: () => number;
  /** The wall clock the signature's timestamp is taken from (receivers compare it with theirs). */
  wallClock?: () => number;
}

/**
 * The one request builder: a webhook's body with its Standard Webhooks headers, signed with every
 * secret of the endpoint that signs now. Deliveries and the test event both use it.
 */
export function signedWebhook(
  endpoint: WebhookEndpoint,
  message: { id: string; body: string },
  now: Date,
  wallClockMs: number,
): { body: string; headers: Record<string, string> } {
  const timestamp = Math.floor(wallClockMs / 1000);
  const headers = {
    "webhook-id": message.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": webhookSignature(signingSecrets(endpoint, now), message.id, timestamp, message.body),
  };
  return { body: message.body, headers };
}

/** The request a delivery makes: the event as JSON, under the event's id. */
export function deliveryRequest(claimed: ClaimedDelivery, now: Date, wallClockMs: number) {
  return signedWebhook(
    claimed.endpoint,
    { id: claimed.event.id, body: JSON.stringify(toEventJson(claimed.event)) },
    now,
    wallClockMs,
  );
}

/** Sends a signed webhook to the endpoint's URL with the sender's options. */
export function sendSigned(
  endpoint: WebhookEndpoint,
  signed: { body: string; headers: Record<string, string> },
  options: SendOptions,
): Promise<WebhookResponse> {
  return sendWebhook({
    url: endpoint.url,
    headers: signed.headers,
    body: signed.body,
    allowPrivate: options.allowPrivate,
    allowLoopback: options.allowLoopback,
    resolver: options.resolver,
    timeoutMs: options.timeoutMs,
  });
}

/**
 * "Send test event": one `webhook.test` delivery to the endpoint now, signed like every other, and
 * its answer. It is not an event of the organisation (no sequence, not in the feed, not retried),
 * so a receiver checking for gaps ignores it.
 */
export async function sendTestEvent(
  services: DeliveryServices,
  endpoint: WebhookEndpoint,
  options: SendOptions,
): Promise<WebhookResponse> {
  const now = services.clock.now();
  const id = `evt_test_${randomString(16)}`;
  const body = JSON.stringify({
    id,
    type: "webhook.test",
    created_at: now.toISOString(),
    organization_id: endpoint.organizationId,
    data: { endpoint_id: endpoint.id },
  });
  return sendSigned(endpoint, signedWebhook(endpoint, { id, body }, now, (options.wallClock ?? Date.now)()), options);
}
