import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { rowsOf } from "@/lib/db/rows";
import { events, type WebhookEndpoint, webhookDeliveries } from "@/lib/db/schema";
import { recordAudit } from "@/lib/points/audit";
import { PointsError } from "@/lib/points/errors";
import { EVENTS_KEPT_MS } from "@/lib/points/events/events";
import { dueAgain, getEndpoint } from "./endpoints";
import { insertDeliveriesSql } from "./fan-out";
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
  // Events older than the feed keeps are gone, and those before the endpoint existed were never its.
  const from = new Date(
    Math.max(since.getTime(), now.getTime() - EVENTS_KEPT_MS, endpoint.createdAt.getTime()),
  ).toISOString();
  const made = rowsOf(
    await tx.execute(
      insertDeliveriesSql(
        { endpointId: sql`${endpoint.id}`, event: sql`ev` },
        sql`events ev
        where ev.organization_id = ${endpoint.organizationId} and ev.created_at >= ${from}
          and ev.sequence <= ${endpoint.fannedOutThrough}
          and (${endpoint.eventTypes === null} or ev.type = any(${`{${(endpoint.eventTypes ?? []).join(",")}}`}::text[]))`,
        now,
      ),
    ),
  ).length;
  const missedSince = tx
    .select({ sequence: events.sequence })
    .from(events)
    .where(and(eq(events.organizationId, endpoint.organizationId), gte(events.createdAt, new Date(from))));
  const again = await tx
    .update(webhookDeliveries)
    .set(dueAgain(now))
    .where(
      and(
        eq(webhookDeliveries.organizationId, endpoint.organizationId),
        eq(webhookDeliveries.endpointId, endpoint.id),
        eq(webhookDeliveries.status, "failed"),
        inArray(webhookDeliveries.eventSequence, missedSince),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return made + again.length;
}
