/**
 * One organisation with a million top-ups, written in SQL (generate_series) in one transaction:
 * statuses, sources, bundles, refunds and disputes in realistic shares, spread over three years
 * with only a handful in the last 24 hours, each paid one credited in the ledger and the
 * organisation's balances set to the ledger's sums.
 */
import type postgres from "postgres";

export interface SeedTarget {
  organizationId: string;
  apiKeyId: string;
  paymentMethodId: string;
  paymentMethodLabel: string;
  billingCustomerId: string;
}

export interface SeedSummary {
  rows: number;
  seconds: number;
  byStatus: Record<string, number>;
  bySource: Record<string, number>;
  refunded: number;
  disputed: number;
  heldDisputes: number;
  lastDay: number;
  ledgerRows: number;
  pointsBalance: number;
  heldPoints: number;
}

export async function seedMillion(sql: postgres.Sql, target: SeedTarget, rows = 1_000_000): Promise<SeedSummary> {
  const started = performance.now();
  await sql.begin(async (tx) => {
    await tx.unsafe("set local synchronous_commit = off");
    await tx.unsafe("set local work_mem = '256MB'");
    // h1..h4: independent pseudo-random numbers per row, so the shares do not line up with each other.
    await tx.unsafe(
      `
      create temporary table seed_rows on commit drop as
      select i,
        'tu_m' || substr(md5('id' || i), 1, 20) as id,
        case when i <= 5 then now() - make_interval(hours => i * 4)
             else now() - interval '36 hours' - (i - 5) * (interval '1095 days' / $1::int) - make_interval(secs => (abs(hashtext('t' || i)) % 600000) / 1000.0)
        end as created_at,
        (array[100, 250, 500, 1000, 2500, 5000, 7500])[1 + abs(hashtext('p' || i)) % 7] as points,
        abs(hashtext('s' || i)) % 10000 as h_status,
        abs(hashtext('o' || i)) % 100 as h_source,
        abs(hashtext('r' || i)) % 1000 as h_refund,
        abs(hashtext('d' || i)) % 2000 as h_dispute,
        abs(hashtext('e' || i)) % 3 as h_outcome
      from generate_series(1, $1::int) as i`,
      [rows],
    );
    await tx.unsafe(
      `
      create temporary table seed_top_ups on commit drop as
      select r.*,
        case when h_status < 5 then 'pending'
             when h_status < 10 then 'processing'
             when h_status < 20 then 'awaiting_payment'
             when h_status < 420 then 'failed'
             else 'paid' end as status,
        case when h_source < 10 then 'dashboard' else 'api' end as source,
        (array[1000, 2400, 4500, 8500, 20000, 37500, 52500])[array_position(array[100, 250, 500, 1000, 2500, 5000, 7500], points)] as amount
      from seed_rows r`,
    );
    await tx.unsafe(
      `
      insert into top_ups (
        id, organization_id, reference, points, currency, amount, payment_source_id, payment_method_label,
        billing_customer_id, source, api_key_id, status, failure_code, failure_message,
        provider_idempotency_key, provider_payment_id, charge_attempted_at, attempts, next_attempt_at,
        created_at, updated_at, paid_at, refunded_points, refunded_amount,
        dispute_id, dispute_status, dispute_funds_withdrawn, dispute_funds_reinstated, dispute_points,
        dispute_points_state, dispute_opened_at, dispute_closed_at)
      select
        t.id, $1, case when t.source = 'api' then 'order-' || lpad(t.i::text, 7, '0') else 'dash-' || t.i end,
        t.points, 'USD', t.amount, $2, $3, $4, t.source, case when t.source = 'api' then $5 end, t.status,
        case t.status when 'failed' then (case when t.h_status % 2 = 0 then 'card_declined' else 'insufficient_funds' end)
                      when 'awaiting_payment' then 'authentication_required' end,
        case t.status when 'failed' then (case when t.h_status % 2 = 0 then 'Your card was declined.' else 'Your card has insufficient funds.' end)
                      when 'awaiting_payment' then 'The card issuer requires the cardholder to authenticate this payment before it can complete.' end,
        'seed_' || t.id,
        case when t.status in ('paid', 'failed', 'awaiting_payment') then 'pi_sim_m' || substr(md5('pi' || t.i), 1, 20) end,
        case when t.status <> 'pending' then t.created_at end,
        case when t.status = 'pending' then 0 else 1 end,
        -- Backed off for a month: the running app's reconciler leaves them alone during the bench.
        case when t.status in ('pending', 'processing', 'awaiting_payment') then now() + interval '30 days' end,
        t.created_at, t.created_at + interval '3 seconds',
        case when t.status = 'paid' then t.created_at + interval '3 seconds' end,
        case when t.status = 'paid' and t.h_refund < 2 then t.points
             when t.status = 'paid' and t.h_refund = 2 then t.points / 2 else 0 end,
        case when t.status = 'paid' and t.h_refund < 2 then t.amount
             when t.status = 'paid' and t.h_refund = 2 then t.amount / 2 else 0 end,
        d.dispute_id, d.dispute_status, d.dispute_id is not null, coalesce(d.dispute_status = 'won', false), d.points,
        d.points_state, d.opened_at, d.closed_at
      from seed_top_ups t
      left join lateral (
        select 'du_sim_m' || substr(md5('du' || t.i), 1, 20) as dispute_id,
          (array['open', 'won', 'lost'])[1 + t.h_outcome] as dispute_status,
          t.points,
          (array['held', 'released', 'removed'])[1 + t.h_outcome] as points_state,
          least(t.created_at + interval '10 days', now()) as opened_at,
          case when t.h_outcome > 0 then least(t.created_at + interval '40 days', now()) end as closed_at
        where t.status = 'paid' and t.h_dispute = 0 and t.h_refund > 2
      ) d on true`,
      [
        target.organizationId,
        target.paymentMethodId,
        target.paymentMethodLabel,
        target.billingCustomerId,
        target.apiKeyId,
      ],
    );
    // The ledger: one credit per paid top-up, then each refund and each step of a dispute, with
    // balance_after the running sum in time order (a debit always follows its own credit).
    await tx.unsafe(
      `
      create temporary table seed_ledger on commit drop as
      select top_up_id, kind, delta, held_delta, cause_id, created_at from (
        select id as top_up_id, 'purchase' as kind, points::bigint as delta, 0::bigint as held_delta,
          null::text as cause_id, paid_at as created_at
        from top_ups where organization_id = $1 and status = 'paid'
        union all
        select id, 'refund', -refunded_points, 0, 're_sim_m' || substr(id, 5), least(created_at + interval '5 days', now())
        from top_ups where organization_id = $1 and refunded_points > 0
        union all
        select id, 'dispute_hold', -dispute_points, dispute_points, dispute_id, dispute_opened_at
        from top_ups where organization_id = $1 and dispute_id is not null
        union all
        select id, 'dispute_release', dispute_points, -dispute_points, dispute_id, dispute_closed_at
        from top_ups where organization_id = $1 and dispute_points_state = 'released'
        union all
        select id, 'dispute_loss', 0, -dispute_points, dispute_id, dispute_closed_at
        from top_ups where organization_id = $1 and dispute_points_state = 'removed'
      ) movements`,
      [target.organizationId],
    );
    await tx.unsafe(
      `
      insert into points_ledger (id, organization_id, top_up_id, kind, delta, balance_after, held_delta, cause_id, reason, created_at)
      select 'led_m' || substr(md5(kind || top_up_id), 1, 20), $1, top_up_id, kind, delta,
        sum(delta) over (order by created_at, kind, top_up_id rows unbounded preceding),
        held_delta, cause_id, case kind when 'purchase' then 'top_up' else kind end, created_at
      from seed_ledger`,
      [target.organizationId],
    );
    await tx.unsafe(
      `
      update organizations o set
        points_balance = s.balance, held_points = s.held, updated_at = now()
      from (select coalesce(sum(delta), 0) as balance, coalesce(sum(held_delta), 0) as held
            from points_ledger where organization_id = $1) s
      where o.id = $1`,
      [target.organizationId],
    );
  });
  // Vacuumed as well as analysed: the visibility map lets index-only scans skip the heap, and
  // autovacuum does not start on the new rows in the middle of the measurements.
  await sql.unsafe("vacuum (analyze) top_ups, points_ledger, organizations");
  const seconds = (performance.now() - started) / 1000;

  const [facts] = await sql<
    {
      rows: number;
      refunded: number;
      disputed: number;
      held: number;
      last_day: number;
      ledger_rows: number;
      points_balance: string;
      held_points: string;
      ledger_sum: string;
      ledger_held: string;
    }[]
  >`
    select
      (select count(*)::int from top_ups where organization_id = ${target.organizationId}) as rows,
      (select count(*)::int from top_ups where organization_id = ${target.organizationId} and refunded_amount > 0) as refunded,
      (select count(*)::int from top_ups where organization_id = ${target.organizationId} and dispute_id is not null) as disputed,
      (select count(*)::int from top_ups where organization_id = ${target.organizationId} and dispute_points_state = 'held') as held,
      (select count(*)::int from top_ups where organization_id = ${target.organizationId} and created_at > now() - interval '24 hours') as last_day,
      (select count(*)::int from points_ledger where organization_id = ${target.organizationId}) as ledger_rows,
      (select coalesce(sum(delta), 0)::text from points_ledger where organization_id = ${target.organizationId}) as ledger_sum,
      (select coalesce(sum(held_delta), 0)::text from points_ledger where organization_id = ${target.organizationId}) as ledger_held,
      o.points_balance::text, o.held_points::text
    from organizations o where o.id = ${target.organizationId}`;
  if (!facts) throw new Error("The seeded organisation is gone.");
  if (facts.points_balance !== facts.ledger_sum || facts.held_points !== facts.ledger_held) {
    throw new Error(
      `seeded balances do not match the ledger: balance ${facts.points_balance} vs ${facts.ledger_sum}, held ${facts.held_points} vs ${facts.ledger_held}`,
    );
  }
  const group = async (column: "status" | "source") =>
    Object.fromEntries(
      (
        await sql<{ key: string; n: number }[]>`
          select ${sql(column)} as key, count(*)::int as n from top_ups
          where organization_id = ${target.organizationId} group by 1 order by 2 desc`
      ).map((row) => [row.key, row.n]),
    );
  return {
    rows: facts.rows,
    seconds,
    byStatus: await group("status"),
    bySource: await group("source"),
    refunded: facts.refunded,
    disputed: facts.disputed,
    heldDisputes: facts.held,
    lastDay: facts.last_day,
    ledgerRows: facts.ledger_rows,
    pointsBalance: Number(facts.points_balance),
    heldPoints: Number(facts.held_points),
  };
}
