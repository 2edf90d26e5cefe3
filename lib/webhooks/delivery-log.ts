import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { events, type WebhookDelivery, type WebhookEndpoint, webhookDeliveries } from "@/lib/db/schema";

/** A delivery's event: the organisation's event of the delivery's sequence (the join both reads of deliveries make). */
export const deliveryEvent = and(
  eq(events.organizationId, webhookDeliveries.organizationId),
  eq(events.sequence, webhookDeliveries.eventSequence),
);

export interface DeliveryLogEntry {
  delivery: WebhookDelivery;
  eventType: string;
  /** The last attempt's duration, or null before the first. */
  lastDurationMs: number | null;
}

/** The dashboard's delivery log of an endpoint: its latest deliveries, newest event first, with each event's type. */
export async function deliveryLog(db: Db, endpoint: WebhookEndpoint, limit = 20): Promise<DeliveryLogEntry[]> {
  const rows = await db
    .select({
      delivery: webhookDeliveries,
      eventType: events.type,
      lastDurationMs: sql<number | null>`(
        select a.duration_ms from webhook_attempts a
        where a.organization_id = ${webhookDeliveries.organizationId} and a.delivery_id = ${webhookDeliveries.id}
        order by a.attempt desc limit 1
      )`,
    })
    .from(webhookDeliveries)
    .innerJoin(events, deliveryEvent)
    .where(
      and(eq(webhookDeliveries.organizationId, endpoint.organizationId), eq(webhookDeliveries.endpointId, endpoint.id)),
    )
    .orderBy(desc(webhookDeliveries.eventSequence))
    .limit(limit);
  return rows.map((row) => ({
    ...row,
    lastDurationMs: row.lastDurationMs === null ? null : Number(row.lastDurationMs),
  }));
}
