/**
 * The events group (`npm run bench -- --only events`), against the running production server:
 * - delivery lag: organisations with a webhook endpoint on a loopback receiver buy under the
 *   purchase scenario's load (the same concurrency, for --duration); each event's lag is from its
 *   commit (created_at) to the receiver's answer. Target: p99 under 1 s. Every paid purchase must
 *   arrive once, and each organisation's sequences with no gap.
 * - the feed: one organisation with 1,000,000 events; GET /v3/points/events at its start, middle
 *   and end, one request at a time. Target: p95 under 20 ms.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { openDatabase } from "@/lib/db/client";
import { randomString } from "@/lib/ids";
import { createOrganization } from "@/lib/points/organizations";
import { simulatedServices } from "@/lib/testing/scratch-database";
import { addEndpoint } from "@/lib/webhooks/endpoints";
import { percentile, runSlice } from "./load";
import { printChecks } from "./million";

export const LAG_P99_TARGET_MS = 1000;
export const FEED_P95_TARGET_MS = 20;
const FEED_EVENTS = 1_000_000;
const FEED_WARMUP_REQUESTS = 20;
const FEED_MEASURED_REQUESTS = 100;

export interface EventsCheck {
  name: string;
  value: string;
  target: string;
  pass: boolean;
  /** A broken invariant (lost, doubled or gapped events), not a missed target. */
  fatal?: boolean;
}

export interface EventsReport {
  checks: EventsCheck[];
  lagMs: { p50: number; p99: number; max: number; events: number };
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

export async function runEvents(options: EventsOptions): Promise<EventsReport> {
  const began = performance.now();
  const receiver = await startReceiver();
  const database = await openDatabase({ url: options.databaseUrl, maxConnections: 4 });
  const sql = postgres(options.databaseUrl, { max: 2, onnotice: () => {} });
  try {
    const services = simulatedServices(database.db);
    const orgs: Array<{ id: string; apiKey: string }> = [];
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
    const runId = randomString(6);
    let n = 0;
    const slice = await runSlice({
      concurrency: options.concurrency,
      warmupMs: 0,
      durationMs: options.durationMs,
      next: () => {
        const org = orgs[n % orgs.length] as (typeof orgs)[number];
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
    const countCommitted = async () =>
      (
        await sql<{ committed: number }[]>`
          select count(*)::int as committed from events where organization_id = any(${orgs.map((org) => org.id)})`
      )[0]?.committed ?? 0;
    const distinct = () => new Set(receiver.received.map((got) => `${got.organizationId}#${got.sequence}`)).size;
    const deadline = Date.now() + 30_000;
    let committed = await countCommitted();
    while (distinct() < committed && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      committed = await countCommitted();
    }
    const paid = slice.statuses["201"] ?? 0;
    const lags = receiver.received.map((got) => got.lagMs).sort((a, b) => a - b);
    const gaps = orgs.filter((org) => {
      const sequences = receiver.received
        .filter((got) => got.organizationId === org.id)
        .map((got) => got.sequence)
        .sort((a, b) => a - b);
      return sequences.some((sequence, index) => sequence !== index + 1);
    }).length;
    const lag = {
      p50: percentile(lags, 0.5),
      p99: percentile(lags, 0.99),
      max: lags.at(-1) ?? 0,
      events: lags.length,
    };
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
      where d.organization_id = any(${orgs.map((org) => org.id)})`;
    const stage = (values: number[] | undefined) => (values ?? []).map((value) => value.toFixed(0)).join("/");
    const delivered = distinct();
    const sentAgain = receiver.received.length - delivered;

    // The feed of one organisation with a million events, its endpoint disabled first: sending a
    // million deliveries would load the server while the feed is timed, and the groups after it.
    const { id: feedOrg, apiKey: feedKey } = orgs[0] as (typeof orgs)[number];
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

    const checks: EventsCheck[] = [
      {
        name: "every committed event delivered",
        value: `${delivered} of ${committed} (${paid} purchases answered 201 in the window; ${sentAgain} sent again)`,
        target: "all",
        pass: delivered === committed,
        fatal: true,
      },
      {
        name: "sequences without a gap",
        value: `${gaps} organisations with a gap`,
        target: "0",
        pass: gaps === 0,
        fatal: true,
      },
      {
        name: "delivery lag p99 (commit to receiver)",
        value:
          `${lag.p99.toFixed(0)} ms (p50 ${lag.p50.toFixed(0)} ms, max ${lag.max.toFixed(0)} ms; p50/p99 ms: ` +
          `fan-out ${stage(split?.fan)}, waiting ${stage(split?.wait)}, request ${stage(split?.send)})`,
        target: `< ${LAG_P99_TARGET_MS} ms`,
        pass: lag.p99 < LAG_P99_TARGET_MS,
      },
      ...Object.entries(feedMs).map(([name, timing]) => ({
        name: `feed of 1,000,000 events, ${name}, p95`,
        value: `${timing.p95} ms (p50 ${timing.p50} ms; seeded in ${seedSeconds.toFixed(1)}s)`,
        target: `< ${FEED_P95_TARGET_MS} ms`,
        pass: timing.p95 < FEED_P95_TARGET_MS,
      })),
    ];
    return { checks, lagMs: lag, feedMs, elapsedSeconds: (performance.now() - began) / 1000 };
  } finally {
    await sql.end({ timeout: 5 });
    await database.close();
    await receiver.close();
  }
}

export function printEventsChecks(report: EventsReport): void {
  console.log(`\nevents (${report.lagMs.events} deliveries; ${report.elapsedSeconds.toFixed(0)}s in all):`);
  printChecks(report.checks);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
