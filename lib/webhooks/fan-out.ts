import { type SQL, sql } from "drizzle-orm";
import { rowsOf } from "@/lib/db/rows";
import { RETRY_FOR_MS } from "./attempt-outcome";
import type { DeliveryServices } from "./services";

/**
 * The one way deliveries are made, as SQL: one per row of `from` (an event's organisation_id,
 * sequence and id, under `event`'s alias) for `endpointId`, due now, given up three days from now;
 * one that exists already is left as it is. The fan-out and recovery (recover.ts) both use it.
 */
export function insertDeliveriesSql(select: { endpointId: SQL; event: SQL }, from: SQL, now: Date): SQL {
  const at = now.toISOString();
  const { event } = select;
  return sql`insert into webhook_deliveries
    (organization_id, id, endpoint_id, event_sequence, event_id, status, next_attempt_at, give_up_at, created_at, updated_at)
  select ${event}.organization_id, 'wd_' || replace(gen_random_uuid()::text, '-', ''), ${select.endpointId},
    ${event}.sequence, ${event}.id, 'pending', ${at}, ${new Date(now.getTime() + RETRY_FOR_MS).toISOString()}, ${at}, ${at}
  from ${from}
  on conflict do nothing
  returning 1`;
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
        ${insertDeliveriesSql(
          { endpointId: sql`p.endpoint_id`, event: sql`p` },
          sql`page p where p.event_types is null or p.type = any(p.event_types)`,
          now,
        )}
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
