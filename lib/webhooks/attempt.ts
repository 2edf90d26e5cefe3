import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { decideAttempt, isDelivered } from "./attempt-outcome";
import type { ClaimedDelivery } from "./claim";
import { disableEndpoint } from "./endpoints";
import { deliveryRequest, type SendOptions, sendSigned } from "./request";
import type { WebhookResponse } from "./send";
import type { DeliveryServices } from "./services";

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
  return recordAttempt(services, claimed, response, (options.random ?? Math.random)());
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
 * One failed attempt, recorded in one transaction: its row in the delivery log, the endpoint's
 * failing streak (read and extended under the endpoint row's lock), then what decideAttempt makes
 * of it: the delivery scheduled again or given up, the endpoint disabled.
 */
export async function recordAttempt(
  services: DeliveryServices,
  claimed: ClaimedDelivery,
  response: WebhookResponse,
  random: number = Math.random(),
): Promise<DeliveryResult> {
  const now = services.clock.now();
  const { delivery, endpoint } = claimed;
  if (isDelivered(response.status)) {
    await recordDelivered(services.db, claimed, response, now);
    return "delivered";
  }
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
    const gone = response.status === 410;
    const [streak] = gone
      ? []
      : await tx
          .update(webhookEndpoints)
          .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${now.toISOString()}::timestamptz)` })
          .where(
            and(eq(webhookEndpoints.organizationId, endpoint.organizationId), eq(webhookEndpoints.id, endpoint.id)),
          )
          .returning();
    const outcome = decideAttempt({
      status: response.status,
      timedOut: response.timedOut,
      retryAfter: response.retryAfter,
      attempts: delivery.attempts,
      now,
      giveUpAt: delivery.giveUpAt,
      failingSince: streak?.failingSince ?? null,
      random,
    });
    await tx
      .update(webhookDeliveries)
      .set({
        status: outcome.kind === "retry" ? "pending" : "failed",
        nextAttemptAt: outcome.kind === "retry" ? outcome.at : null,
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
    if (outcome.kind === "disable" && (gone || streak?.status === "enabled")) {
      await disableEndpoint(tx, endpoint, outcome.reason, now);
      return "endpoint_disabled";
    }
    return outcome.kind === "retry" ? "retrying" : "given_up";
  });
}
