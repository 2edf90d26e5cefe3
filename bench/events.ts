/**
 * The events group (`npm run bench -- --only events`), against the running production server:
 * - delivery lag: organisations with a webhook endpoint on a loopback receiver buy under the
 *   purchase scenario's load (the same concurrency, for --duration); each event's lag is from its
 *   commit (created_at) to the receiver's answer. Target: p99 under 1 s. Every paid purchase must
 *   arrive once, and each organisation's sequences with no gap.
 * - delivery lag beside a bad tenant: the same, for --duration again, with one more organisation
 *   buying among them whose 16 endpoints hang (a receiver that reads each request and never
 *   answers, so each send takes the sender's 15 s deadline). The healthy organisations' lag has the
 *   same target; the bad tenant's requests open at once must stay within the sender's share for one
 *   organisation (8 per instance running the sender).
 * - the feed: one organisation with 1,000,000 events; GET /v3/points/events at its start, middle
 *   and end, one request at a time. Target: p95 under 20 ms.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { openDatabase } from "@/lib/db/client";
import { randomString } from "@/lib/ids";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { simulatedServices } from "@/lib/testing/scratch-database";
import { addEndpoint, MAX_ENDPOINTS_PER_ORGANIZATION } from "@/lib/webhooks/endpoints";
import { percentile, runSlice } from "./load";
import { printChecks } from "./million";

export const LAG_P99_TARGET_MS = 1000;
export const FEED_P95_TARGET_MS = 20;
const FEED_EVENTS = 1_000_000;
const FEED_WARMUP_REQUESTS = 20;
const FEED_MEASURED_REQUESTS = 100;
/** The sender's share for one organisation (lib/webhooks/sender.ts): its sends in flight at once, per instance. */
const PER_ORGANIZATION_IN_FLIGHT = 8;
/** Instances running the sender during this group: the bench's app (the topology group's are stopped before it). */
const SENDER_INSTANCES = 1;
/** The sender's deadline for one send (lib/webhooks/send.ts). */
const SEND_TIMEOUT_MS = 15_000;

export interface EventsCheck {
  name: string;
  value: string;
  target: string;
  pass: boolean;
  /** A broken invariant (lost, doubled or gapped events), not a missed target. */
  fatal?: boolean;
}

interface LagFigures {
  p50: number;
  p99: number;
  max: number;
  events: number;
}

export interface EventsReport {
  checks: EventsCheck[];
  lagMs: LagFigures;
  /** The healthy organisations' lag with the bad tenant buying among them, and what reached its receiver. */
  besideBadTenant: {
    lagMs: LagFigures;
    badTenant: { endpoints: number; requests: number; maxOpen: number; events: number; deliveries: number };
  };
  feedMs: Record<string, { p50: number; p95: number }>;
  elapsedSeconds: number;
}

export interface EventsOptions {
  databaseUrl: string;
  appPort: number;
  concurrency: number;
  durationMs: number;
  orgs: number;
}

interface Received {
  organizationId: string;
  sequence: number;
  lagMs: number;
}

/** A receiver answering 204 at once, noting each event's lag from its commit. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const arrived = Date.now();
      response.writeHead(204).end();
      const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        organization_id: string;
        sequence: number;
        created_at: string;
      };
      received.push({
        organizationId: event.organization_id,
        sequence: event.sequence,
        lagMs: arrived - Date.parse(event.created_at),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench-hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A receiver that reads each request and never answers: the sender's deadline ends each exchange.
 * It counts the requests and the most open at once. Closing it destroys the sockets still open, so
 * neither it nor the hanging sends keep the bench from exiting.
 */
async function startHangingReceiver(): Promise<{
  url(path: string): string;
  stats: { requests: number; open: number; maxOpen: number; firstAt: number | null };
  close(): Promise<void>;
}> {
  const stats = { requests: 0, open: 0, maxOpen: 0, firstAt: null as number | null };
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    stats.requests += 1;
    stats.open += 1;
    stats.maxOpen = Math.max(stats.maxOpen, stats.open);
    stats.firstAt ??= Date.now();
    request.resume();
    // Emitted when the sender gives up (its deadline) and drops the connection: no answer was ever written.
    response.once("close", () => {
      stats.open -= 1;
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: (path) => `http://127.0.0.1:${port}/${path}`,
    stats,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}

interface BenchOrganization {
  id: string;
  apiKey: string;
}

interface LagRun {
  lag: LagFigures;
  /** Distinct healthy events received, and committed, since the run began. */
  delivered: number;
  committed: number;
  sentAgain: number;
  /** Healthy organisations whose sequences since the run began have a gap (or a repeat). */
  gaps: number;
  /** 201 answers in the window, every buyer's. */
  paid: number;
  /** Where the lag goes, p50/p99 ms of each stage, as text. */
  stages: string;
}

/**
 * `buyers` buy round-robin under the purchase scenario's load for --duration; the lag is that of
 * the `healthy` organisations' events committed since it began (each organisation's sequence then
 * is where it starts), waited for up to 30 s after the window.
 */
async function measureLag(
  sql: postgres.Sql,
  options: EventsOptions,
  receiver: { received: Received[] },
  buyers: BenchOrganization[],
  healthy: BenchOrganization[],
): Promise<LagRun> {
  const healthyIds = healthy.map((org) => org.id);
  const since = new Map(
    (
      await sql<{ id: string; sequence: number }[]>`
        select id, event_sequence::int as sequence from organizations where id = any(${healthyIds})`
    ).map((row) => [row.id, row.sequence]),
  );
  const inRun = (got: Received) => since.has(got.organizationId) && got.sequence > (since.get(got.organizationId) ?? 0);

  const runId = randomString(6);
  let n = 0;
  const slice = await runSlice({
    concurrency: options.concurrency,
    warmupMs: 0,
    durationMs: options.durationMs,
    next: () => {
      const org = buyers[n % buyers.length] as BenchOrganization;
      const reference = `events-${runId}-${n++}`;
      return {
        url: `http://127.0.0.1:${options.appPort}/v3/points/top-ups`,
        init: {
          method: "POST",
          headers: { authorization: `Bearer ${org.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ points: 100, reference }),
        },
      };
    },
  });
  // Every event committed for these organisations (purchases still answering after the window count too).
  const sinceJson = sql.json(Object.fromEntries(since));
  const countCommitted = async () =>
    (
      await sql<{ committed: number }[]>`
        select count(*)::int as committed from events
        where organization_id = any(${healthyIds}) and sequence > (${sinceJson}::jsonb ->> organization_id)::int`
    )[0]?.committed ?? 0;
  const received = () => receiver.received.filter(inRun);
  const distinct = () => new Set(received().map((got) => `${got.organizationId}#${got.sequence}`)).size;
  const deadline = Date.now() + 30_000;
  let committed = await countCommitted();
  while (distinct() < committed && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    committed = await countCommitted();
  }
  const got = received();
  const lags = got.map((one) => one.lagMs).sort((a, b) => a - b);
  const gaps = healthy.filter((org) => {
    const first = (since.get(org.id) ?? 0) + 1;
    const sequences = got
      .filter((one) => one.organizationId === org.id)
      .map((one) => one.sequence)
      .sort((a, b) => a - b);
    return sequences.some((sequence, index) => sequence !== first + index);
  }).length;
  // Where the lag goes, from the delivery log: commit to the delivery's row (the fan-out), the row
  // to its send (waiting for a slot and a claim), and the request itself.
  const [split] = await sql<{ fan: number[]; wait: number[]; send: number[] }[]>`
    select
      percentile_cont(array[0.5, 0.99]) within group (order by extract(epoch from d.created_at - ev.created_at) * 1000) as fan,
      percentile_cont(array[0.5, 0.99]) within group (order by extract(epoch from a.at - d.created_at) * 1000 - a.duration_ms) as wait,
      percentile_cont(array[0.5, 0.99]) within group (order by a.duration_ms) as send
    from webhook_deliveries d
    join events ev on ev.organization_id = d.organization_id and ev.sequence = d.event_sequence
    join webhook_attempts a on a.organization_id = d.organization_id and a.delivery_id = d.id
    where d.organization_id = any(${healthyIds})
      and d.event_sequence > (${sinceJson}::jsonb ->> d.organization_id)::int`;
  const stage = (values: number[] | undefined) => (values ?? []).map((value) => value.toFixed(0)).join("/");
  const delivered = distinct();
  return {
    lag: { p50: percentile(lags, 0.5), p99: percentile(lags, 0.99), max: lags.at(-1) ?? 0, events: lags.length },
    delivered,
    committed,
    sentAgain: got.length - delivered,
    gaps,
    paid: slice.statuses["201"] ?? 0,
    stages: `fan-out ${stage(split?.fan)}, waiting ${stage(split?.wait)}, request ${stage(split?.send)}`,
  };
}

export async function runEvents(options: EventsOptions): Promise<EventsReport> {
  const began = performance.now();
  const receiver = await startReceiver();
  const hanging = await startHangingReceiver();
  const database = await openDatabase({ url: options.databaseUrl, maxConnections: 4 });
  const sql = postgres(options.databaseUrl, { max: 2, onnotice: () => {} });
  try {
    const services = simulatedServices(database.db);
    const orgs: BenchOrganization[] = [];
    for (let index = 0; index < options.orgs; index++) {
      const created = await createOrganization(services, {
        name: `Bench events ${index}`,
        settings: { currency: "USD", apiPurchasesEnabled: true },
        cards: ["visa"],
        defaultCardIndex: 0,
      });
      await addEndpoint(services, created.organization.id, { url: receiver.url, allowPrivate: true });
      orgs.push({ id: created.organization.id, apiKey: created.apiKey.apiKey });
    }

    // Delivery lag under the purchase scenario's load.
    const alone = await measureLag(sql, options, receiver, orgs, orgs);

    // The same beside a bad tenant: one more organisation buying among them, every one of its
    // endpoints hanging until the sender's deadline.
    const created = await createOrganization(services, {
      name: "Bench events bad tenant",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    const bad: BenchOrganization = { id: created.organization.id, apiKey: created.apiKey.apiKey };
    for (let index = 0; index < MAX_ENDPOINTS_PER_ORGANIZATION; index++) {
      await addEndpoint(services, bad.id, { url: hanging.url(`bad-tenant-${index}`), allowPrivate: true });
    }
    const beside = await measureLag(sql, options, receiver, [...orgs, bad], orgs);
    // Its first sends started with the window and time out 15 s later, after a --duration of 10 s:
    // the receiver stays up until they have and the sender has claimed the tenant's next ones, so
    // the most open at once covers that turn too (its endpoints failing by then).
    if (hanging.stats.firstAt !== null) {
      const until = hanging.stats.firstAt + SEND_TIMEOUT_MS + 2_000;
      while (Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    }
    const badRequests = hanging.stats.requests;
    const badMaxOpen = hanging.stats.maxOpen;
    // Disabled before its sends are cut off, so nothing claims its backlog during the groups after this one.
    await sql`update webhook_endpoints set status = 'disabled' where organization_id = ${bad.id}`;
    await hanging.close();
    const [badMade] = await sql<{ events: number; deliveries: number }[]>`
      select (select event_sequence::int from organizations where id = ${bad.id}) as events,
        (select count(*)::int from webhook_deliveries where organization_id = ${bad.id}) as deliveries`;
    const badTenant = {
      endpoints: MAX_ENDPOINTS_PER_ORGANIZATION,
      requests: badRequests,
      maxOpen: badMaxOpen,
      events: badMade?.events ?? 0,
      deliveries: badMade?.deliveries ?? 0,
    };
    const openCap = PER_ORGANIZATION_IN_FLIGHT * SENDER_INSTANCES;

    // The feed of one organisation with a million events, its endpoint disabled first: sending a
    // million deliveries would load the server while the feed is timed, and the groups after it.
    const { id: feedOrg, apiKey: feedKey } = orgs[0] as BenchOrganization;
    await sql`update webhook_endpoints set status = 'disabled' where organization_id = ${feedOrg}`;
    const [template] = await sql<{ data: unknown }[]>`
      select data from events where organization_id = ${feedOrg} order by sequence limit 1`;
    const [{ last } = { last: 0 }] = await sql<{ last: number }[]>`
      select coalesce(max(sequence), 0)::int as last from events where organization_id = ${feedOrg}`;
    const seedStart = performance.now();
    await sql`
      insert into events (organization_id, sequence, id, type, data, created_at)
      select ${feedOrg}, ${last} + g, 'evt_bench_' || g, 'top_up.paid', ${sql.json(template?.data as never)},
        now() - interval '1 day' + g * interval '1 millisecond'
      from generate_series(1, ${FEED_EVENTS}) g`;
    await sql`update organizations set event_sequence = ${last + FEED_EVENTS} where id = ${feedOrg}`;
    await sql`analyze events`;
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const feedMs: Record<string, { p50: number; p95: number }> = {};
    for (const [name, after] of [
      ["first page", 0],
      ["middle (after=500,000)", last + FEED_EVENTS / 2],
      ["last page", last + FEED_EVENTS - 50],
    ] as const) {
      const timings: number[] = [];
      for (let request = 0; request < FEED_WARMUP_REQUESTS + FEED_MEASURED_REQUESTS; request++) {
        const start = performance.now();
        const response = await fetch(`http://127.0.0.1:${options.appPort}/v3/points/events?after=${after}&limit=100`, {
          headers: { authorization: `Bearer ${feedKey}` },
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`the feed answered ${response.status}`);
        if (request >= FEED_WARMUP_REQUESTS) timings.push(performance.now() - start);
      }
      timings.sort((a, b) => a - b);
      feedMs[name] = { p50: round(percentile(timings, 0.5)), p95: round(percentile(timings, 0.95)) };
    }

    const lag = alone.lag;
    const checks: EventsCheck[] = [
      {
        name: "every committed event delivered",
        value: `${alone.delivered} of ${alone.committed} (${alone.paid} purchases answered 201 in the window; ${alone.sentAgain} sent again)`,
        target: "all",
        pass: alone.delivered === alone.committed,
        fatal: true,
      },
      {
        name: "sequences without a gap",
        value: `${alone.gaps} organisations with a gap`,
        target: "0",
        pass: alone.gaps === 0,
        fatal: true,
      },
      {
        name: "delivery lag p99 (commit to receiver)",
        value:
          `${lag.p99.toFixed(0)} ms (p50 ${lag.p50.toFixed(0)} ms, max ${lag.max.toFixed(0)} ms; p50/p99 ms: ` +
          `${alone.stages})`,
        target: `< ${LAG_P99_TARGET_MS} ms`,
        pass: lag.p99 < LAG_P99_TARGET_MS,
      },
      {
        name: "beside a bad tenant: every healthy event delivered",
        value:
          `${beside.delivered} of ${beside.committed} (${beside.paid} purchases answered 201 in the window, ` +
          `${badTenant.events} of them the bad tenant's; ${beside.sentAgain} sent again)`,
        target: "all",
        pass: beside.delivered === beside.committed,
        fatal: true,
      },
      {
        name: "beside a bad tenant: sequences without a gap",
        value: `${beside.gaps} organisations with a gap`,
        target: "0",
        pass: beside.gaps === 0,
        fatal: true,
      },
      {
        name: "delivery lag beside a bad tenant, p99",
        value:
          `${beside.lag.p99.toFixed(0)} ms (p50 ${beside.lag.p50.toFixed(0)} ms, max ${beside.lag.max.toFixed(0)} ms; ` +
          `p50/p99 ms: ${beside.stages})`,
        target: `< ${LAG_P99_TARGET_MS} ms`,
        pass: beside.lag.p99 < LAG_P99_TARGET_MS,
      },
      {
        name: "bad tenant's requests open at once, at most",
        value:
          `${badTenant.maxOpen} (${badTenant.requests} requests to its ${badTenant.endpoints} endpoints, none answered; ` +
          `${badTenant.deliveries} deliveries made for its ${badTenant.events} events)`,
        target: `<= ${openCap} (${PER_ORGANIZATION_IN_FLIGHT} per instance sending, ${SENDER_INSTANCES} here), and > 0`,
        pass: badTenant.maxOpen <= openCap && badTenant.requests > 0,
      },
      ...Object.entries(feedMs).map(([name, timing]) => ({
        name: `feed of 1,000,000 events, ${name}, p95`,
        value: `${timing.p95} ms (p50 ${timing.p50} ms; seeded in ${seedSeconds.toFixed(1)}s)`,
        target: `< ${FEED_P95_TARGET_MS} ms`,
        pass: timing.p95 < FEED_P95_TARGET_MS,
      })),
    ];
    return {
      checks,
      lagMs: lag,
      besideBadTenant: { lagMs: beside.lag, badTenant },
      feedMs,
      elapsedSeconds: (performance.now() - began) / 1000,
    };
  } finally {
    await sql.end({ timeout: 5 });
    await database.close();
    await receiver.close();
    await hanging.close();
  }
}

export function printEventsChecks(report: EventsReport): void {
  console.log(`\nevents (${report.lagMs.events} deliveries; ${report.elapsedSeconds.toFixed(0)}s in all):`);
  printChecks(report.checks);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
