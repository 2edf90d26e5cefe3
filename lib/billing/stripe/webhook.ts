import type Stripe from "stripe";
import { readBodyWithin } from "@/lib/body";

/** Webhook deliveries larger than this are refused unread; Stripe's events are a few kilobytes. */
const MAX_WEBHOOK_BYTES = 512 * 1024;
/** Stripe's own default: an event signed longer ago than this is refused as stale (a replay). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** A delivery refused before any handling: the status and a message that echoes nothing of the request. */
export class WebhookRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "WebhookRefusal";
  }
}

/**
 * Reads the raw body and verifies its `Stripe-Signature` with the SDK (HMAC of `t.body` with
 * STRIPE_WEBHOOK_SECRET, within the tolerance). Unsigned, forged, stale and oversized deliveries
 * are refused; with no secret configured every delivery is (docs/contract.md §6). The setting may
 * list several secrets, comma-separated: a delivery signed with any of them is accepted, so a
 * secret can be rotated across instances without refusing a delivery (docs/operations.md).
 */
export async function verifyStripeWebhook(
  stripe: Stripe,
  request: Request,
  secret: string | undefined,
  now: Date,
): Promise<Stripe.Event> {
  const secrets = (secret ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (secrets.length === 0) throw new WebhookRefusal(400, "Webhooks are refused: STRIPE_WEBHOOK_SECRET is not set.");
  const signature = request.headers.get("stripe-signature");
  if (!signature) throw new WebhookRefusal(400, "The Stripe-Signature header is missing.");
  const body = await readBodyWithin(request, MAX_WEBHOOK_BYTES);
  if (!body) throw new WebhookRefusal(413, "The event is too large.");
  for (const candidate of secrets) {
    try {
      return stripe.webhooks.constructEvent(
        body,
        signature,
        candidate,
        WEBHOOK_TOLERANCE_SECONDS,
        undefined,
        // Milliseconds: the SDK divides by 1000 itself.
        now.getTime(),
      );
    } catch {
      // Not this secret: try the next. The SDK's message is not echoed: it would help a forger more than an operator.
    }
  }
  throw new WebhookRefusal(400, "The event's signature is not valid.");
}

/**
 * Why a verified event cannot be handled (not an object, no id or type, no `data.object`), or
 * null when its envelope is sound. Each handler still checks the object it expects.
 */
export function malformedEvent(event: unknown): string | null {
  const isRecord = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  if (!isRecord(event)) return "the event is not a JSON object";
  const { id, type, data } = event;
  if (typeof id !== "string" || id === "") return "the event has no id";
  if (typeof type !== "string" || type === "") return `event ${id} has no type`;
  if (!isRecord(data) || !isRecord(data.object)) return `event ${id} (${type}) has no data.object`;
  return null;
}
