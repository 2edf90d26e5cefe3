import { hotQuery, rowReader, selectColumns, sqlTime } from "@/lib/db/hot";
import {
  type EventRow,
  events,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookDeliveries,
  webhookEndpoints,
} from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import type { DeliveryServices } from "./services";

/** A sender's claim on a delivery: longer than a send's 15 s deadline, so no two senders overlap. */
export const CLAIM_MS = 45_000;

export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  event: EventRow;
  lockToken: string;
}

/** What one sender may claim now, and what it already has in flight. */
export interface ClaimLimits {
  /** Free slots: at most this many claimed. */
  max: number;
  /** In flight to one endpoint at most (one while the endpoint is failing). */
  perEndpoint: number;
  /** In flight for one organisation at most, however many endpoints it has. */
  perOrganization: number;
  /** This sender's sends in flight, by endpoint id. */
  inFlightByEndpoint?: ReadonlyMap<string, number>;
  /** This sender's sends in flight, by organisation id. */
  inFlightByOrganization?: ReadonlyMap<string, number>;
}

/**
 * The claim's choice, in one statement:
 * - `endpoints` walks the endpoints that have deliveries pending, one index probe each (a loose
 *   scan of webhook_deliveries_endpoint_due_idx), so an organisation's backlog is never read past;
 * - `candidates`: each enabled one's first due deliveries, no more than it may still have in flight
 *   (perEndpoint, or one while it is failing, less what this sender has in flight to it);
 * - `picked`: at most perOrganization in flight per organisation, in turns across organisations
 *   (each one's first, then each one's second...), oldest first within a turn, up to `max`.
 * Parameters: $1 now, $2 the claim's end, $3 the token, $4 max, $5 perEndpoint, $6 perOrganization,
 * $7 and $8 the in-flight counts as JSON objects by endpoint and by organisation. It answers the
 * claimed deliveries with their endpoints and events, in the same round trip.
 */
const CLAIM_SQL = `with recursive endpoints(organization_id, endpoint_id) as (
  (select organization_id, endpoint_id from webhook_deliveries where status = 'pending'
   order by organization_id, endpoint_id limit 1)
  union all
  select next.organization_id, next.endpoint_id from endpoints p
  cross join lateral (
    select d.organization_id, d.endpoint_id from webhook_deliveries d
    where d.status = 'pending' and (d.organization_id, d.endpoint_id) > (p.organization_id, p.endpoint_id)
    order by d.organization_id, d.endpoint_id limit 1
  ) next
),
held_by_endpoint as (select key as id, value::int as n from jsonb_each_text($7::jsonb)),
held_by_organization as (select key as id, value::int as n from jsonb_each_text($8::jsonb)),
open_endpoints as (
  select w.organization_id, w.endpoint_id,
    (case when e.failing_since is null then $5::int else 1 end)
      - coalesce((select n from held_by_endpoint h where h.id = w.endpoint_id), 0) as room
  from endpoints w
  join webhook_endpoints e on e.organization_id = w.organization_id and e.id = w.endpoint_id and e.status = 'enabled'
  where coalesce((select n from held_by_organization h where h.id = w.organization_id), 0) < $6::int
),
candidates as (
  select c.organization_id, c.id, c.next_attempt_at, c.event_sequence
  from open_endpoints o
  cross join lateral (
    select d.organization_id, d.id, d.next_attempt_at, d.event_sequence from webhook_deliveries d
    where d.organization_id = o.organization_id and d.endpoint_id = o.endpoint_id and d.status = 'pending'
      and d.next_attempt_at <= $1::timestamptz and (d.locked_until is null or d.locked_until <= $1::timestamptz)
    order by d.next_attempt_at, d.event_sequence
    limit greatest(o.room, 0)
  ) c
),
turns as (
  select c.*, row_number() over (partition by c.organization_id order by c.next_attempt_at, c.event_sequence) as turn
  from candidates c
),
picked as (
  select t.organization_id, t.id from turns t
  where t.turn <= $6::int - coalesce((select n from held_by_organization h where h.id = t.organization_id), 0)
  order by t.turn, t.next_attempt_at, t.event_sequence
  limit $4::int
),
chosen as (
  select d.organization_id, d.id from webhook_deliveries d
  where (d.organization_id, d.id) in (select organization_id, id from picked)
    and d.status = 'pending' and (d.locked_until is null or d.locked_until <= $1::timestamptz)
  for update skip locked
),
claimed as (
  update webhook_deliveries d
  set locked_until = $2::timestamptz, lock_token = $3, attempts = d.attempts + 1, updated_at = $1::timestamptz
  from chosen where d.organization_id = chosen.organization_id and d.id = chosen.id
  returning d.*
)
select ${selectColumns(webhookDeliveries, "d", "d_")}, ${selectColumns(webhookEndpoints, "e", "e_")},
  ${selectColumns(events, "ev", "ev_")}
from claimed d
join webhook_endpoints e on e.organization_id = d.organization_id and e.id = d.endpoint_id
join events ev on ev.organization_id = d.organization_id and ev.sequence = d.event_sequence`;
const readDelivery = rowReader(webhookDeliveries, "d_");
const readEndpoint = rowReader(webhookEndpoints, "e_");
const readEvent = rowReader(events, "ev_");

/**
 * Claims due deliveries fairly (CLAIM_SQL): no endpoint, and no organisation, takes more than its
 * share of this sender's slots, and the organisations take turns, so one organisation's backlog or
 * hanging endpoints never hold up another's deliveries. Each is claimed for CLAIM_MS under a token
 * (the rows locked with SKIP LOCKED while claiming), so two senders never send the same delivery at
 * the same moment.
 */
export async function claimDeliveries(services: DeliveryServices, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  if (limits.max <= 0) return [];
  const now = services.clock.now();
  const lockToken = randomString(24);
  const claimed = await hotQuery(services.db, CLAIM_SQL, [
    sqlTime(now),
    sqlTime(new Date(now.getTime() + CLAIM_MS)),
    lockToken,
    limits.max,
    limits.perEndpoint,
    limits.perOrganization,
    JSON.stringify(Object.fromEntries(limits.inFlightByEndpoint ?? [])),
    JSON.stringify(Object.fromEntries(limits.inFlightByOrganization ?? [])),
  ]);
  return claimed.map((row) => ({
    delivery: readDelivery(row),
    endpoint: readEndpoint(row),
    event: readEvent(row),
    lockToken,
  }));
}
