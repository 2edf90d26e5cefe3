import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import type { ClaimedDelivery } from "./claim";
import { disableEndpoint, RETRY_FOR_MS } from "./endpoints";
import { deliveryRequest, type SendOptions, sendSigned } from "./request";
import type { WebhookResponse } from "./send";
import type { DeliveryServices } from "./services";

/**
 * After the nth failed attempt, the wait before the next: the first retry within 10 s, then
 * growing (as Standard Webhooks' reference schedule), every 12 hours at the end, until the
 * delivery is three days old.
 */
export const RETRY_DELAYS_MS = [
  5_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  12 * 3_600_000,
] as const;

export function retryDelayMs(attemptsMade: number): number {
  return RETRY_DELAYS_MS[Math.min(attemptsMade, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0];
}

export type DeliveryResult = "delivered" | "retrying" | "given_up" | "endpoint_disabled";

/** Sends one claimed delivery and records the attempt and what follows from it. */
export async function sendClaimed(
  services: DeliveryServices,
  claimed: ClaimedDelivery,
  options: SendOptions,
): Promise<DeliveryResult> {
  const signed = deliveryRequest(claimed, services.clock.now(), (options.wallClock ?? Date.now)());
  const response = await sendSigned(claimed.endpoint, signed, options);
  log().debug(
    {
      event: "webhook_sent",
      delivery_id: claimed.delivery.id,
      response_status: response.status,
      duration_ms: response.durationMs,
      error: response.error,
    },
    "webhook sent",
  );
  return recordAttempt(services, claimed, response);
}

function isDelivered(response: WebhookResponse): boolean {
  return response.status !== null && response.status >= 200 && response.status < 300;
}

/**
 * A delivered attempt, in one statement (the path every healthy endpoint takes, so the one that
 * counts under load): its row in the delivery log, the delivery delivered if this sender's claim
 * still holds, and the endpoint's failing streak ended if it had one.
 */
async function recordDelivered(db: Db, claimed: ClaimedDelivery, response: WebhookResponse, now: Date): Promise<void> {
  const { delivery, endpoint, lockToken } = claimed;
  const at = now.toISOString();
  await db.execute(sql`
    with attempt as (
      insert into webhook_attempts (organization_id, delivery_id, attempt, at, response_status, duration_ms, error)
      values (${delivery.organizationId}, ${delivery.id}, ${delivery.attempts}, ${at}, ${response.status},
        ${response.durationMs}, null)
      on conflict do nothing
    ),
    delivered as (
      update webhook_deliveries set status = 'delivered', next_attempt_at = null, delivered_at = ${at},
        last_response_status = ${response.status}, last_error = null, lock_token = null, locked_until = null,
        updated_at = ${at}
      where organization_id = ${delivery.organizationId} and id = ${delivery.id} and lock_token = ${lockToken}
    ),
    healed as (
      update webhook_endpoints set failing_since = null
      where organization_id = ${endpoint.organizationId} and id = ${endpoint.id} and failing_since is not null
    )
    select 1`);
}

/**
 * One attempt, recorded in one transaction: its row in the delivery log; the delivery delivered,
 * scheduled again, or given up after three days; the endpoint's failing streak, and the endpoint
 * disabled on a 410 or after three days of nothing but failures.
 */
export async function recordAttempt(
  services: DeliveryServices,
  claimed: ClaimedDelivery,
  response: WebhookResponse,
): Promise<DeliveryResult> {
  const now = services.clock.now();
  const { delivery, endpoint } = claimed;
  if (isDelivered(response)) {
    await recordDelivered(services.db, claimed, response, now);
    return "delivered";
  }
  const gone = response.status === 410;
  const error = response.error ?? `answered ${response.status}`;
  log().info(
    {
      event: "webhook_attempt_failed",
      endpoint_id: endpoint.id,
      delivery_id: delivery.id,
      attempt: delivery.attempts,
      response_status: response.status,
      error,
    },
    "A webhook delivery attempt failed; it is retried on its schedule.",
  );
  return services.db.transaction(async (tx) => {
    await tx
      .insert(webhookAttempts)
      .values({
        organizationId: delivery.organizationId,
        deliveryId: delivery.id,
        attempt: delivery.attempts,
        at: now,
        responseStatus: response.status,
        durationMs: response.durationMs,
        error: error.slice(0, 500),
      })
      .onConflictDoNothing();
    const givenUp = gone || now >= delivery.giveUpAt;
    const nextAttemptAt = givenUp ? null : new Date(now.getTime() + retryDelayMs(delivery.attempts));
    await tx
      .update(webhookDeliveries)
      .set({
        status: givenUp ? "failed" : "pending",
        nextAttemptAt,
        deliveredAt: null,
        lastResponseStatus: response.status,
        lastError: error.slice(0, 500),
        lockToken: null,
        lockedUntil: null,
        updatedAt: now,
      })
      .where(
        and(
          eq(webhookDeliveries.organizationId, delivery.organizationId),
          eq(webhookDeliveries.id, delivery.id),
          eq(webhookDeliveries.lockToken, claimed.lockToken),
        ),
      );
    const where = and(
      eq(webhookEndpoints.organizationId, endpoint.organizationId),
      eq(webhookEndpoints.id, endpoint.id),
    );
    if (gone) {
      await disableEndpoint(tx, endpoint, "the endpoint answered 410 Gone", now);
      return "endpoint_disabled";
    }
    const [current] = await tx
      .update(webhookEndpoints)
      .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${now.toISOString()}::timestamptz)` })
      .where(where)
      .returning();
    if (
      current?.status === "enabled" &&
      current.failingSince &&
      now.getTime() - current.failingSince.getTime() >= RETRY_FOR_MS
    ) {
      await disableEndpoint(tx, endpoint, "every delivery failed for 3 days", now);
      return "endpoint_disabled";
    }
    return givenUp ? "given_up" : "retrying";
  });
}
