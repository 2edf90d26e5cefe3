import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { rowsOf } from "@/lib/db/rows";
import type { WebhookEndpoint } from "@/lib/db/schema";
import { recordAudit } from "@/lib/points/audit";
import { PointsError } from "@/lib/points/errors";
import { EVENTS_KEPT_MS } from "@/lib/points/events";
import { RETRY_FOR_MS } from "./attempt-outcome";
import { getEndpoint } from "./endpoints";
import type { DeliveryServices } from "./services";

/*
 * Recovery, after Svix's "recover failed messages": an admin or the operator sends an endpoint
 * what it missed since a time.
 */

export interface Recovered {
  endpoint: WebhookEndpoint;
  /** Deliveries queued: events it never had one of, and deliveries given up. */
  queued: number;
}

/**
 * Queues, for an enabled endpoint, every event of its organisation from `since` on (and from the
 * endpoint's creation), of a type it wants, that it did not receive: events written while it was disabled (they have no delivery)
 * get one, and deliveries given up are due again, each with three days of retries. Delivered and
 * pending ones are left as they are, so each event is sent once however often this runs; all are
 * due now and claimed in sequence order. In one transaction holding the endpoint's row, which the
 * fan-out also takes, so no event is queued twice.
 */
export async function recoverEndpoint(
  services: DeliveryServices,
  endpointId: string,
  since: Date,
  organizationId?: string,
): Promise<Recovered> {
  const now = services.clock.now();
  if (Number.isNaN(since.getTime()) || since > now) {
    throw new PointsError("invalid_request", "Choose a time in the past to recover from.", {
      details: { fields: { since: "must be a time in the past (ISO 8601, UTC)" } },
    });
  }
  return services.db.transaction(async (tx) => {
    const endpoint = await getEndpoint(tx, endpointId, organizationId, { forUpdate: true });
    if (endpoint.status !== "enabled") {
      throw new PointsError("invalid_request", `Endpoint ${endpoint.id} is disabled: enable it first, then recover.`, {
        details: { fields: { endpoint: "must be enabled" } },
      });
    }
    const queued = await queueMissed(tx, endpoint, since, now);
    await recordAudit(tx, {
      organizationId: endpoint.organizationId,
      action: "webhook_endpoint.recovered",
      target: endpoint.id,
      after: { since: since.toISOString(), queued },
      at: now,
    });
    return { endpoint, queued };
  });
}

async function queueMissed(tx: Db, endpoint: WebhookEndpoint, since: Date, now: Date): Promise<number> {
  const giveUpAt = new Date(now.getTime() + RETRY_FOR_MS).toISOString();
  // Events older than the feed keeps are gone, and those before the endpoint existed were never its.
  const from = new Date(
    Math.max(since.getTime(), now.getTime() - EVENTS_KEPT_MS, endpoint.createdAt.getTime()),
  ).toISOString();
  const [row] = rowsOf<{ made: number; again: number }>(
    await tx.execute(sql`
      with made as (
        insert into webhook_deliveries
          (organization_id, id, endpoint_id, event_sequence, event_id, status, next_attempt_at, give_up_at, created_at, updated_at)
        select ev.organization_id, 'wd_' || replace(gen_random_uuid()::text, '-', ''), ${endpoint.id}, ev.sequence, ev.id,
          'pending', ${now.toISOString()}, ${giveUpAt}, ${now.toISOString()}, ${now.toISOString()}
        from events ev
        where ev.organization_id = ${endpoint.organizationId} and ev.created_at >= ${from}
          and ev.sequence <= ${endpoint.fannedOutThrough}
          and (${endpoint.eventTypes === null} or ev.type = any(${`{${(endpoint.eventTypes ?? []).join(",")}}`}::text[]))
        on conflict do nothing
        returning 1
      ),
      again as (
        update webhook_deliveries d set status = 'pending', next_attempt_at = ${now.toISOString()},
          give_up_at = ${giveUpAt}, lock_token = null, locked_until = null, updated_at = ${now.toISOString()}
        from events ev
        where d.organization_id = ${endpoint.organizationId} and d.endpoint_id = ${endpoint.id} and d.status = 'failed'
          and ev.organization_id = d.organization_id and ev.sequence = d.event_sequence and ev.created_at >= ${from}
        returning 1
      )
      select (select count(*) from made)::int as made, (select count(*) from again)::int as again`),
  );
  return Number(row?.made ?? 0) + Number(row?.again ?? 0);
}
