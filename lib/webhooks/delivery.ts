import { and, eq, inArray, sql } from "drizzle-orm";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { rowsOf } from "@/lib/db/rows";
import {
  type EventRow,
  events,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { log } from "@/lib/observability/log";
import { toEventJson } from "@/lib/points/event-json";
import { deliveryEvent } from "./delivery-log";
import { disableEndpoint, RETRY_FOR_MS, signingSecrets } from "./endpoints";
import { sendWebhook, type WebhookResponse } from "./send";
import { webhookSignature } from "./signing";
import type { Resolver } from "./target";

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

/** A sender's claim on a delivery: longer than a send's 15 s deadline, so no two senders overlap. */
export const CLAIM_MS = 45_000;

interface DeliveryServices {
  db: Db;
  clock: Clock;
}

/**
 * Turns committed events into deliveries, in one statement for the enabled endpoints that have
 * events past their mark: the endpoints are taken with SKIP LOCKED (one instance does each at a
 * time), and at most `batch` of their events read, shared out evenly (each endpoint's first event,
 * then each one's second, ...), so each endpoint's share is the start of what it is owed. A delivery
 * is inserted per event of a type its endpoint wants (the unique key makes a repeat a no-op), and
 * each mark moved to the end of its share. Returns how many deliveries were made.
 */
export async function fanOut(services: DeliveryServices, batch = 1000): Promise<number> {
  const now = services.clock.now();
  const [row] = rowsOf<{ made: number }>(
    await services.db.execute(sql`
      with ep as (
        select e.organization_id, e.id, e.fanned_out_through, e.event_types
        from webhook_endpoints e join organizations o on o.id = e.organization_id
        where e.status = 'enabled' and o.event_sequence > e.fanned_out_through
        limit 200
        for update of e skip locked
      ),
      page as materialized (
        select * from (
          select ep.organization_id, ep.id as endpoint_id, ev.sequence, ev.id, ev.type, ep.event_types,
            row_number() over (partition by ep.organization_id, ep.id order by ev.sequence) as place
          from ep cross join lateral (
            select sequence, id, type from events
            where organization_id = ep.organization_id and sequence > ep.fanned_out_through
            order by sequence limit ${batch}
          ) ev
        ) owed
        order by place, organization_id, endpoint_id
        limit ${batch}
      ),
      inserted as (
        insert into webhook_deliveries
          (organization_id, id, endpoint_id, event_sequence, event_id, status, next_attempt_at, give_up_at, created_at, updated_at)
        select p.organization_id, 'wd_' || replace(gen_random_uuid()::text, '-', ''), p.endpoint_id, p.sequence, p.id,
          'pending', ${now.toISOString()}, ${new Date(now.getTime() + RETRY_FOR_MS).toISOString()},
          ${now.toISOString()}, ${now.toISOString()}
        from page p
        where p.event_types is null or p.type = any(p.event_types)
        on conflict do nothing
        returning 1
      ),
      moved as (
        update webhook_endpoints e set fanned_out_through = m.through
        from (select organization_id, endpoint_id, max(sequence) as through from page group by 1, 2) m
        where e.organization_id = m.organization_id and e.id = m.endpoint_id
      )
      select count(*)::int as made from inserted`),
  );
  return Number(row?.made ?? 0);
}

/** A text[] literal of ids and type names (letters, digits, `_` and `.` only: anything else is left out). */
function textArray(values: string[]): string {
  const safe = values.filter((value) => /^[A-Za-z0-9_.]+$/.test(value));
  return `array[${safe.map((value) => `'${value}'`).join(", ")}]::text[]`;
}

export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  event: EventRow;
  lockToken: string;
}

/**
 * Claims deliveries that are due, oldest first: at most `max`, at most `perEndpoint` of one
 * endpoint, none of the endpoints this sender already has that many in flight to (`fullEndpoints`),
 * so that a slow receiver holds only its own slots. Each is claimed for CLAIM_MS under a token (the
 * row locked with SKIP LOCKED while claiming), so two senders never send the same delivery at the
 * same moment.
 */
export async function claimDeliveries(
  services: DeliveryServices,
  options: { max: number; perEndpoint: number; fullEndpoints?: string[] },
): Promise<ClaimedDelivery[]> {
  if (options.max <= 0) return [];
  const now = services.clock.now();
  const nowText = now.toISOString();
  const lockToken = randomString(24);
  const claimed = rowsOf<{ organization_id: string; id: string }>(
    await services.db.execute(sql`
      with oldest as (
        select d.organization_id, d.id, d.endpoint_id, d.event_sequence, d.next_attempt_at
        from webhook_deliveries d
        where d.status = 'pending' and d.next_attempt_at <= ${nowText}
          and (d.locked_until is null or d.locked_until <= ${nowText})
          and not (d.endpoint_id = any(${sql.raw(textArray(options.fullEndpoints ?? []))}))
        order by d.next_attempt_at
        limit ${options.max * 8}
      ),
      due as (
        select d.organization_id, d.id, d.next_attempt_at,
          row_number() over (partition by d.organization_id, d.endpoint_id order by d.next_attempt_at, d.event_sequence) as place
        from oldest d
        join webhook_endpoints e on e.organization_id = d.organization_id and e.id = d.endpoint_id and e.status = 'enabled'
      ),
      chosen as (
        select d.organization_id, d.id from webhook_deliveries d
        where (d.organization_id, d.id) in (
          select organization_id, id from due where place <= ${options.perEndpoint}
          order by next_attempt_at limit ${options.max}
        )
        and d.status = 'pending' and (d.locked_until is null or d.locked_until <= ${nowText})
        for update skip locked
      )
      update webhook_deliveries d
      set locked_until = ${new Date(now.getTime() + CLAIM_MS).toISOString()}, lock_token = ${lockToken},
        attempts = d.attempts + 1, updated_at = ${nowText}
      from chosen where d.organization_id = chosen.organization_id and d.id = chosen.id
      returning d.organization_id, d.id`),
  );
  if (claimed.length === 0) return [];
  const rows = await services.db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints, event: events })
    .from(webhookDeliveries)
    .innerJoin(
      webhookEndpoints,
      and(
        eq(webhookEndpoints.organizationId, webhookDeliveries.organizationId),
        eq(webhookEndpoints.id, webhookDeliveries.endpointId),
      ),
    )
    .innerJoin(events, deliveryEvent)
    .where(
      and(
        eq(webhookDeliveries.lockToken, lockToken),
        inArray(
          webhookDeliveries.id,
          claimed.map((row) => row.id),
        ),
      ),
    );
  return rows.map((row) => ({ ...row, lockToken }));
}

export interface SendOptions {
  allowPrivate: boolean;
  resolver?: Resolver;
  timeoutMs?: number;
  /** The wall clock the signature's timestamp is taken from (receivers compare it with theirs). */
  wallClock?: () => number;
}

/** The request a delivery makes: the event as JSON, signed as Standard Webhooks says. */
export function deliveryRequest(claimed: ClaimedDelivery, now: Date, wallClockMs: number) {
  const body = JSON.stringify(toEventJson(claimed.event));
  const timestamp = Math.floor(wallClockMs / 1000);
  const headers = {
    "webhook-id": claimed.event.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": webhookSignature(signingSecrets(claimed.endpoint, now), claimed.event.id, timestamp, body),
  };
  return { body, headers };
}

export type DeliveryResult = "delivered" | "retrying" | "given_up" | "endpoint_disabled";

/** Sends one claimed delivery and records the attempt and what follows from it. */
export async function sendClaimed(
  services: DeliveryServices,
  claimed: ClaimedDelivery,
  options: SendOptions,
): Promise<DeliveryResult> {
  const { body, headers } = deliveryRequest(claimed, services.clock.now(), (options.wallClock ?? Date.now)());
  const response = await sendWebhook({
    url: claimed.endpoint.url,
    headers,
    body,
    allowPrivate: options.allowPrivate,
    resolver: options.resolver,
    timeoutMs: options.timeoutMs,
  });
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
  const timestamp = Math.floor((options.wallClock ?? Date.now)() / 1000);
  return sendWebhook({
    url: endpoint.url,
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": webhookSignature(signingSecrets(endpoint, now), id, timestamp, body),
    },
    body,
    allowPrivate: options.allowPrivate,
    resolver: options.resolver,
    timeoutMs: options.timeoutMs,
  });
}
