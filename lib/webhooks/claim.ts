import { and, eq, inArray, sql } from "drizzle-orm";
import { rowsOf } from "@/lib/db/rows";
import {
  type EventRow,
  events,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookDeliveries,
  webhookEndpoints,
} from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { deliveryEvent } from "./delivery-log";
import type { DeliveryServices } from "./services";

/** A sender's claim on a delivery: longer than a send's 15 s deadline, so no two senders overlap. */
export const CLAIM_MS = 45_000;

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
