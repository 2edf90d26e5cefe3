/**
 * The million-row scenario (`npm run bench -- --only million`): one organisation with 1,000,000
 * top-ups, then, against the running production server,
 * - the time to the last byte of History (first page, a page 500,000 rows deep, each filter), the
 *   Overview and GET /v3/points/top-ups (first page, deep pages, each filter), one request at a
 *   time, against a p95 target of 50 ms;
 * - EXPLAIN (ANALYZE, BUFFERS) of every query lib/ runs for them, with the same parameters, both
 *   as planned for those values and as the generic plan a prepared statement may switch to: no
 *   query may read more rows of top_ups or points_ledger than the page it returns;
 * - the CSV export of ~100,000 and of 1,000,000 rows while the server's memory is sampled: its
 *   peak must not grow with the rows.
 */
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { type Db, openDatabase } from "@/lib/db/client";
import * as schema from "@/lib/db/schema";
import { createOrganization, getOrganization } from "@/lib/points/accounts/organizations";
import { getBalances } from "@/lib/points/after-payment/view";
import { parseTopUpListQuery } from "@/lib/points/api/top-up-list";
import { encodeCursor, type HistoryFilters, listTopUps, topUpPosition } from "@/lib/points/views/history";
import { CSV_COLUMNS, HISTORY_CSV_COLUMNS } from "@/lib/points/views/history-csv";
import { listTopUpsPage } from "@/lib/points/views/top-up-list";
import { simulatedServices } from "@/lib/testing/scratch-database";
import { cpuSecondsOfAll, machineCpuSeconds, processTree } from "./cpu";
import { percentile } from "./load";
import { type SeedSummary, seedMillion } from "./million-seed";

export const P95_TARGET_MS = 50;
/** Requests per target before any is timed, so the server's JIT has seen every page (a server in service has). */
const JIT_WARMUP_REQUESTS = 20;
const WARMUP_REQUESTS = 5;
const MEASURED_REQUESTS = 100;
/** How deep the deep pages start: the 500,000th top-up, newest first. */
const DEEP_ROW = 500_000;
const HISTORY_PAGE_SIZE = 25;
/** Peak RSS of the 1M-row export may exceed the ~100k one's by at most this much. */
const CSV_FLAT_MB = 50;
const BIG_TABLES = ["top_ups", "points_ledger"];
/**
 * The machine is shared: before each target, wait (at most this long in all) for a second in
 * which other work used under QUIET_SHARE of its CPU, and report how busy it was anyway.
 */
const QUIET_WAIT_BUDGET_MS = 180_000;
const QUIET_SHARE = 0.25;

export interface MillionOptions {
  databaseUrl: string;
  appPort: number;
  /** The app server's process (group leader): its whole tree's RSS is sampled. */
  appPid: number;
  rows?: number;
}

export interface MillionCheck {
  name: string;
  value: string;
  target: string;
  pass: boolean;
  /** A wrong answer or a broken invariant, not a missed target: the bench exits non-zero. */
  fatal?: boolean;
}

export interface LatencyResult {
  name: string;
  url: string;
  requests: number;
  p50: number;
  p95: number;
  max: number;
  bytes: number;
  /** Share of the machine's CPU that other work (not the app, its Postgres backends or the bench) used meanwhile. */
  otherPercent: number;
}

export interface PlanResult {
  target: string;
  query: string;
  params: unknown[];
  /** The page it returns: its LIMIT, the count it counts, or the rows a lookup finds. */
  page: number;
  custom: PlanVerdict;
  generic: PlanVerdict;
  text: string;
}

export interface PlanVerdict {
  rowsRead: number;
  seqScans: string[];
  pass: boolean;
  executionMs: number;
  error?: string;
}

export interface CsvResult {
  name: string;
  rows: number;
  expectedRows: number;
  seconds: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  headerOk: boolean;
}

export interface MillionReport {
  seed: SeedSummary;
  latency: LatencyResult[];
  plans: PlanResult[];
  csv: CsvResult[];
  checks: MillionCheck[];
  elapsedSeconds: number;
}

interface Target {
  name: string;
  path: string;
  api?: boolean;
  /** Runs what lib/ runs for this page, on the recording database, with the same parameters. */
  lib: (db: Db) => Promise<unknown>;
  /** Text the answer must contain: the first row of the page lib/ reads. */
  expect?: string;
}

export async function runMillion(options: MillionOptions): Promise<MillionReport> {
  const began = performance.now();
  const base = `http://127.0.0.1:${options.appPort}`;
  const database = await openDatabase({ url: options.databaseUrl, maxConnections: 2 });
  const sql = postgres(options.databaseUrl, { max: 2, onnotice: () => {} });
  const recorder = recordingDb(options.databaseUrl);
  try {
    const created = await createOrganization(simulatedServices(database.db), {
      name: "Million",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    const orgId = created.organization.id;
    const card = created.paymentMethods[0];
    if (!card) throw new Error("The million organisation has no card.");
    process.stdout.write(`million: seeding ${(options.rows ?? 1_000_000).toLocaleString("en")} top-ups ... `);
    const seed = await seedMillion(
      sql,
      {
        organizationId: orgId,
        apiKeyId: created.apiKey.keyId,
        paymentMethodId: card.id,
        paymentMethodLabel: card.label,
        billingCustomerId: created.organization.billingCustomerId,
      },
      options.rows,
    );
    console.log(
      `${seed.seconds.toFixed(1)}s: ${seed.rows} top-ups (${Object.entries(seed.byStatus)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}; ` +
        `${Object.entries(seed.bySource)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}; refunded ${seed.refunded}, disputed ${seed.disputed} ` +
        `(${seed.heldDisputes} holding Points); ${seed.lastDay} in the last 24 h), ${seed.ledgerRows} ledger rows, ` +
        `balance ${seed.pointsBalance} = SUM(ledger), held ${seed.heldPoints}`,
    );

    const cookie = await signIn(base, created.admin.email, created.admin.password);
    const db = recorder.db;
    const [deep] = await sql<{ id: string; reference: string; created_at: Date }[]>`
      select id, reference, created_at from top_ups where organization_id = ${orgId}
      order by created_at desc, id desc offset ${DEEP_ROW - 1} limit 1`;
    if (!deep) throw new Error("The seeded organisation has fewer rows than the deep page needs.");
    const deepPosition = await topUpPosition(database.db, orgId, deep.id);
    if (!deepPosition) throw new Error("The deep row has no position.");
    const deepCursor = encodeCursor(deepPosition);
    const yearAgo = new Date(Date.now() - 365 * 86_400_000);
    const monthStart = new Date(Date.UTC(yearAgo.getUTCFullYear(), yearAgo.getUTCMonth(), 1)).toISOString();
    const monthEnd = new Date(Date.UTC(yearAgo.getUTCFullYear(), yearAgo.getUTCMonth() + 1, 1)).toISOString();

    const targets: Target[] = [];
    const history = (name: string, query: Record<string, string>, filters: HistoryFilters & { cursor?: string }) => {
      const search = new URLSearchParams(query).toString();
      targets.push({
        name: `History ${name}`,
        path: `/dashboard/history${search ? `?${search}` : ""}`,
        lib: async (recording) => {
          const page = await listTopUps(recording, orgId, { ...filters, limit: HISTORY_PAGE_SIZE });
          return page.topUps[0]?.reference;
        },
      });
    };
    history("first page", {}, {});
    history(`page ${DEEP_ROW.toLocaleString("en")} rows deep`, { cursor: deepCursor }, { cursor: deepCursor });
    for (const status of ["paid", "failed", "awaiting_payment", "processing", "pending"] as const) {
      history(`status=${status}`, { status }, { status });
    }
    for (const source of ["api", "dashboard"] as const) history(`source=${source}`, { source }, { source });
    for (const after of ["refunded", "disputed"] as const) history(`after=${after}`, { after }, { after });
    targets.push({
      name: "Overview",
      path: "/dashboard",
      lib: async (recording) => {
        const [recent] = await Promise.all([
          listTopUps(recording, orgId, { limit: 5 }),
          listTopUps(recording, orgId, { status: "awaiting_payment", limit: 1 }),
          getBalances(recording, orgId),
          getOrganization(recording, orgId),
        ]);
        return recent.topUps[0]?.reference;
      },
    });
    const api = (name: string, query: Record<string, string>) => {
      const params = new URLSearchParams(query);
      const search = params.toString();
      targets.push({
        name: `API ${name}`,
        path: `/v3/points/top-ups${search ? `?${search}` : ""}`,
        api: true,
        lib: async (recording) => {
          const page = await listTopUpsPage(recording, orgId, parseTopUpListQuery(params));
          return page.topUps[0]?.id;
        },
      });
    };
    api("first page", {});
    api("limit=100", { limit: "100" });
    api(`starting_after row ${DEEP_ROW.toLocaleString("en")}`, { starting_after: deep.id });
    api(`ending_before row ${DEEP_ROW.toLocaleString("en")}`, { ending_before: deep.id });
    for (const status of ["paid", "failed", "awaiting_payment", "processing", "pending"] as const)
      api(`status=${status}`, { status });
    for (const source of ["api", "dashboard"] as const) api(`source=${source}`, { source });
    api("reference", { reference: deep.reference });
    api("created[gte]+[lt] one month", { "created[gte]": monthStart, "created[lt]": monthEnd });

    // What lib/ runs for each target, recorded, and what the page must show.
    const queriesOf = new Map<Target, RecordedQuery[]>();
    for (const target of targets) {
      recorder.queries.length = 0;
      const first = await target.lib(db);
      if (typeof first === "string") target.expect = first;
      queriesOf.set(target, [...recorder.queries]);
    }

    const authorization = `Bearer ${created.apiKey.apiKey}`;
    const latency: LatencyResult[] = [];
    const failures: string[] = [];
    for (const target of targets) {
      const headers: Record<string, string> = target.api ? { authorization } : { cookie };
      for (let i = 0; i < JIT_WARMUP_REQUESTS; i++)
        await (await fetch(`${base}${target.path}`, { headers, redirect: "manual" })).text();
    }
    const ours = await ourProcesses(sql, options.appPid);
    let quietBudgetMs = QUIET_WAIT_BUDGET_MS;
    let waitedMs = 0;
    process.stdout.write(
      `million: timing ${targets.length} pages and lists (after ${JIT_WARMUP_REQUESTS} requests each to warm the server up), ` +
        `${WARMUP_REQUESTS} + ${MEASURED_REQUESTS} requests each, one at a time ... `,
    );
    for (const target of targets) {
      const headers: Record<string, string> = target.api ? { authorization } : { cookie };
      const times: number[] = [];
      let bytes = 0;
      const waited = await waitForQuiet(ours, quietBudgetMs);
      quietBudgetMs -= waited;
      waitedMs += waited;
      let window: ReturnType<typeof cpuWindow> | undefined;
      for (let i = 0; i < WARMUP_REQUESTS + MEASURED_REQUESTS; i++) {
        if (i === WARMUP_REQUESTS) window = cpuWindow(ours);
        const sent = performance.now();
        const response = await fetch(`${base}${target.path}`, { headers, redirect: "manual" });
        const body = await response.text();
        const took = performance.now() - sent;
        if (response.status !== 200 || (target.expect && !body.includes(target.expect))) {
          if (failures.length < 10) {
            failures.push(
              `${target.name}: ${response.status}${target.expect && !body.includes(target.expect) ? `, without ${target.expect}` : ""} ${body.slice(0, 200)}`,
            );
          }
        }
        if (i >= WARMUP_REQUESTS) times.push(took);
        bytes = body.length;
      }
      times.sort((a, b) => a - b);
      latency.push({
        name: target.name,
        url: target.path,
        requests: times.length,
        p50: round(percentile(times, 0.5)),
        p95: round(percentile(times, 0.95)),
        max: round(times[times.length - 1] ?? 0),
        bytes,
        otherPercent: window ? Math.round(window.otherShare() * 100) : 0,
      });
    }
    console.log(
      `done${waitedMs > 1000 ? ` (waited ${(waitedMs / 1000).toFixed(0)}s in all for other work on the machine to calm down)` : ""}`,
    );
    printLatency(latency);

    console.log(
      "\nmillion: EXPLAIN (ANALYZE, BUFFERS) of each query lib/ runs for them (custom plan; the generic plan checked too)",
    );
    const plans: PlanResult[] = [];
    const seen = new Set<string>();
    for (const target of targets) {
      for (const recorded of queriesOf.get(target) ?? []) {
        const key = `${recorded.query}\u0000${JSON.stringify(recorded.params)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const plan = await explain(recorder.client, target.name, recorded);
        plans.push(plan);
        printPlan(plan);
      }
    }

    // The CSV export's batches (streamTopUpsCsv asks for 1,000; listTopUps caps a page at 500), one deep in the export.
    recorder.queries.length = 0;
    await listTopUps(db, orgId, { cursor: deepCursor, limit: 1000 });
    for (const recorded of recorder.queries) {
      const plan = await explain(recorder.client, "CSV export batch", recorded);
      plans.push(plan);
      printPlan(plan);
    }

    console.log("\nmillion: CSV export, the server's RSS (its process tree) sampled every 100 ms");
    const csv: CsvResult[] = [];
    const [dashboardCount] = await sql<{ n: number }[]>`
      select count(*)::int as n from top_ups where organization_id = ${orgId} and source = 'dashboard'`;
    csv.push(
      await exportCsv(
        base,
        cookie,
        options.appPid,
        "source=dashboard",
        "?source=dashboard",
        dashboardCount?.n ?? 0,
        CSV_COLUMNS,
      ),
    );
    // Unfiltered, the export is History's: top-ups and spends, with their kind and description.
    csv.push(await exportCsv(base, cookie, options.appPid, "all", "", seed.rows, HISTORY_CSV_COLUMNS));
    for (const result of csv) {
      console.log(
        `  ${result.name.padEnd(18)} ${String(result.rows).padStart(8)} rows (expected ${result.expectedRows}) in ${result.seconds.toFixed(1)}s; ` +
          `RSS before ${result.rssBeforeMb.toFixed(0)} MB, peak ${result.rssPeakMb.toFixed(0)} MB (+${(result.rssPeakMb - result.rssBeforeMb).toFixed(0)} MB)`,
      );
    }

    const checks: MillionCheck[] = [];
    const [balances] = await sql<{ balance: string; ledger: string }[]>`
      select o.points_balance::text as balance, (select coalesce(sum(delta), 0)::text from points_ledger where organization_id = o.id) as ledger
      from organizations o where o.id = ${orgId}`;
    checks.push({
      name: "million: balance = SUM(ledger) after the run",
      value: `${balances?.balance} / ${balances?.ledger}`,
      target: "equal",
      pass: balances !== undefined && balances.balance === balances.ledger,
      fatal: true,
    });
    checks.push({
      name: "million: answers 200 with the page lib/ reads",
      value: String(failures.length),
      target: "0 failures",
      pass: failures.length === 0,
      fatal: true,
    });
    for (const result of latency) {
      checks.push({
        name: `p95 ${result.name}`,
        value: `${result.p95.toFixed(1)} ms`,
        target: `<= ${P95_TARGET_MS} ms`,
        pass: result.p95 <= P95_TARGET_MS,
      });
    }
    for (const target of targets) {
      const mine = plans.filter((plan) => plan.target === target.name);
      if (mine.length === 0) continue;
      const worst = mine.reduce((a, b) => (b.custom.rowsRead / b.page > a.custom.rowsRead / a.page ? b : a));
      checks.push({
        name: `plans ${target.name}`,
        value: `${mine.length} quer${mine.length === 1 ? "y" : "ies"}, read ${worst.custom.rowsRead}|${worst.generic.rowsRead} of ${worst.page}`,
        target: "rows read <= page, no Seq Scan",
        pass: mine.every((plan) => plan.custom.pass && plan.generic.pass),
      });
    }
    for (const plan of plans.filter((entry) => entry.target.startsWith("CSV"))) {
      checks.push({
        name: `plans ${plan.target}`,
        value: `read ${plan.custom.rowsRead}|${plan.generic.rowsRead} of ${plan.page}`,
        target: "rows read <= page, no Seq Scan",
        pass: plan.custom.pass && plan.generic.pass,
      });
    }
    for (const result of csv) {
      checks.push({
        name: `CSV ${result.name}: every row, header first`,
        value: `${result.rows}`,
        target: `${result.expectedRows}`,
        pass: result.headerOk && result.rows === result.expectedRows,
        fatal: true,
      });
    }
    const [small, large] = csv;
    if (small && large) {
      const growth = large.rssPeakMb - small.rssPeakMb;
      checks.push({
        name: `CSV memory flat (${small.rows} -> ${large.rows} rows)`,
        value: `peak ${small.rssPeakMb.toFixed(0)} -> ${large.rssPeakMb.toFixed(0)} MB`,
        target: `+${CSV_FLAT_MB} MB at most`,
        pass: growth <= CSV_FLAT_MB,
      });
    }
    for (const failure of failures) console.log(`  failed: ${failure}`);
    return { seed, latency, plans, csv, checks, elapsedSeconds: round((performance.now() - began) / 1000) };
  } finally {
    await recorder.close();
    await sql.end({ timeout: 5 });
    await database.close();
  }
}

interface RecordedQuery {
  query: string;
  params: unknown[];
}

/** drizzle on postgres.js, as lib/db/client.ts makes it, remembering every query it sends. */
function recordingDb(url: string): { db: Db; client: postgres.Sql; queries: RecordedQuery[]; close(): Promise<void> } {
  const client = postgres(url, { max: 2, onnotice: () => {} });
  const queries: RecordedQuery[] = [];
  const recording = new Proxy(client, {
    get(object, property, receiver) {
      if (property === "unsafe") {
        return (query: string, params?: unknown[], options?: object) => {
          queries.push({ query, params: params ?? [] });
          return object.unsafe(query, params as postgres.ParameterOrJSON<never>[], { ...options, prepare: true });
        };
      }
      const value: unknown = Reflect.get(object, property, receiver);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
  return {
    db: drizzle(recording, { schema }) as unknown as Db,
    // Explained on this client: drizzle set its date serializers, so a cursor keeps its microseconds.
    client,
    queries,
    close: () => client.end({ timeout: 5 }),
  };
}

/** next-auth's credentials flow over HTTP, as a browser goes through it; returns the Cookie header. */
export async function signIn(base: string, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (pair && at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  const header = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const csrf = await fetch(`${base}/api/auth/csrf`);
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: header() },
    body: new URLSearchParams({ email, password, csrfToken, json: "true" }).toString(),
    redirect: "manual",
  });
  keep(response);
  await response.text();
  const check = await fetch(`${base}/dashboard`, { headers: { cookie: header() }, redirect: "manual" });
  await check.text();
  if (check.status !== 200) throw new Error(`Signing in as ${email} failed: /dashboard answered ${check.status}.`);
  return header();
}

/** Runs a recorded query under EXPLAIN, as planned for its values and as a generic plan. */
async function explain(sql: postgres.Sql, target: string, recorded: RecordedQuery): Promise<PlanResult> {
  const params = recorded.params as postgres.ParameterOrJSON<never>[];
  const page = await pageOf(sql, recorded);
  const [textRows, jsonRows] = await Promise.all([
    sql.unsafe<{ "QUERY PLAN": string }[]>(`explain (analyze, buffers) ${recorded.query}`, params),
    sql.unsafe<{ "QUERY PLAN": unknown }[]>(`explain (analyze, buffers, format json) ${recorded.query}`, params),
  ]);
  const text = textRows.map((row) => row["QUERY PLAN"]).join("\n");
  const custom = verdict(jsonRows[0]?.["QUERY PLAN"], page);
  let generic: PlanVerdict;
  const reserved = await sql.reserve();
  try {
    await reserved.unsafe(`prepare million_q as ${recorded.query}`);
    await reserved.unsafe("set plan_cache_mode = force_generic_plan");
    const literals = recorded.params.map(literal).join(", ");
    const rows = await reserved.unsafe<{ "QUERY PLAN": unknown }[]>(
      `explain (analyze, buffers, format json) execute million_q${literals ? `(${literals})` : ""}`,
    );
    generic = verdict(rows[0]?.["QUERY PLAN"], page);
  } catch (error) {
    generic = {
      rowsRead: Number.NaN,
      seqScans: [],
      pass: false,
      executionMs: 0,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await reserved.unsafe("deallocate all").catch(() => {});
    await reserved.unsafe("reset plan_cache_mode").catch(() => {});
    reserved.release();
  }
  return { target, query: recorded.query, params: recorded.params, page, custom, generic, text };
}

/** The page a query returns: its LIMIT, else the number it counts, else the rows it finds (at least 1). */
async function pageOf(sql: postgres.Sql, recorded: RecordedQuery): Promise<number> {
  const limit = /\blimit \$(\d+)\s*$/i.exec(recorded.query);
  if (limit) return Number(recorded.params[Number(limit[1]) - 1]);
  const rows = await sql.unsafe<Record<string, unknown>[]>(
    recorded.query,
    recorded.params as postgres.ParameterOrJSON<never>[],
  );
  if (/^select count\(\*\)/i.test(recorded.query)) return Math.max(1, Number(Object.values(rows[0] ?? {})[0] ?? 0));
  return Math.max(1, rows.length);
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  const text = value instanceof Date ? value.toISOString() : String(value);
  return `'${text.replaceAll("'", "''")}'`;
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** Rows of the big tables a plan read (returned by a scan, or read and filtered away), against the page. */
function verdict(explained: unknown, page: number): PlanVerdict {
  const root = (explained as Array<{ Plan: PlanNode; "Execution Time": number }> | undefined)?.[0];
  if (!root) return { rowsRead: Number.NaN, seqScans: [], pass: false, executionMs: 0, error: "no plan" };
  let rowsRead = 0;
  const seqScans: string[] = [];
  const walk = (node: PlanNode) => {
    const relation = node["Relation Name"];
    const index = node["Index Name"];
    const big =
      (relation && BIG_TABLES.includes(relation)) ||
      (index && BIG_TABLES.some((table) => index.startsWith(`${table}_`)));
    // A bitmap heap scan's rows were counted by its bitmap index scan already.
    if (big && node["Node Type"] !== "Bitmap Heap Scan") {
      rowsRead +=
        ((node["Actual Rows"] ?? 0) +
          (node["Rows Removed by Filter"] ?? 0) +
          (node["Rows Removed by Index Recheck"] ?? 0)) *
        (node["Actual Loops"] ?? 1);
    }
    if (big && node["Node Type"] === "Bitmap Heap Scan")
      rowsRead += (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0);
    if (node["Node Type"] === "Seq Scan" && relation && BIG_TABLES.includes(relation)) seqScans.push(relation);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(root.Plan);
  return {
    rowsRead,
    seqScans,
    pass: seqScans.length === 0 && rowsRead <= page,
    executionMs: round(root["Execution Time"]),
  };
}

async function exportCsv(
  base: string,
  cookie: string,
  appPid: number,
  name: string,
  search: string,
  expectedRows: number,
  columns: readonly string[],
): Promise<CsvResult> {
  const pids = processTree(appPid);
  const rss = () => pids.reduce((sum, pid) => sum + rssKb(pid), 0) / 1024;
  const rssBeforeMb = rss();
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, rss());
  }, 100);
  const started = performance.now();
  let lines = 0;
  let head = "";
  try {
    const response = await fetch(`${base}/dashboard/history/export${search}`, {
      headers: { cookie },
      redirect: "manual",
    });
    if (response.status !== 200 || !response.body) throw new Error(`CSV export ${name} answered ${response.status}`);
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (head.length < 400) head += Buffer.from(value).toString("utf8", 0, Math.min(value.length, 400));
      for (let at = value.indexOf(10); at !== -1; at = value.indexOf(10, at + 1)) lines++;
    }
  } finally {
    clearInterval(sampler);
  }
  rssPeakMb = Math.max(rssPeakMb, rss());
  return {
    name,
    rows: lines - 1,
    expectedRows,
    seconds: (performance.now() - started) / 1000,
    rssBeforeMb,
    rssPeakMb,
    headerOk: head.startsWith(`${columns.join(",")}\r\n`),
  };
}

function rssKb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function printLatency(results: LatencyResult[]): void {
  const width = Math.max(...results.map((result) => result.name.length));
  console.log(
    `  ${"page or list".padEnd(width)}  ${"p50 ms".padStart(7)}  ${"p95 ms".padStart(7)}  ${"max ms".padStart(7)}  ${"bytes".padStart(8)}  ${"other".padStart(5)}`,
  );
  for (const result of results) {
    console.log(
      `  ${result.name.padEnd(width)}  ${result.p50.toFixed(1).padStart(7)}  ${result.p95.toFixed(1).padStart(7)}  ${result.max.toFixed(1).padStart(7)}  ${String(result.bytes).padStart(8)}  ${`${result.otherPercent}%`.padStart(5)}`,
    );
  }
  console.log(
    "  other: share of the machine's CPU used by work other than the app, its Postgres backends and the bench.",
  );
  const noisy = results.filter((result) => result.otherPercent > 20);
  if (noisy.length > 0)
    console.log(
      `  note: other work used over 20% of the machine during ${noisy.length} of them; their times are inflated.`,
    );
}

interface OurProcesses {
  server: number[];
  postgres: number[];
}

/** The app's process tree and the Postgres backends of its database: the work being measured. */
async function ourProcesses(sql: postgres.Sql, appPid: number): Promise<OurProcesses> {
  const backends = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`;
  return { server: processTree(appPid), postgres: backends.map((row) => row.pid) };
}

/** From now on: what share of the machine's CPU went to work that is not ours. */
function cpuWindow(ours: OurProcesses) {
  const before = {
    machine: machineCpuSeconds(),
    ours: cpuSecondsOfAll(ours.server) + cpuSecondsOfAll(ours.postgres),
    self: process.cpuUsage(),
  };
  return {
    otherShare(): number {
      const machine = machineCpuSeconds();
      const self = process.cpuUsage(before.self);
      const oursNow =
        cpuSecondsOfAll(ours.server) + cpuSecondsOfAll(ours.postgres) - before.ours + (self.user + self.system) / 1e6;
      const capacity = machine.total - before.machine.total;
      return capacity > 0 ? Math.max(0, machine.busy - before.machine.busy - oursNow) / capacity : 0;
    },
  };
}

/** Waits, a second at a time and at most budgetMs, until other work leaves the machine mostly idle; returns the time waited. */
async function waitForQuiet(ours: OurProcesses, budgetMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < budgetMs) {
    const window = cpuWindow(ours);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (window.otherShare() < QUIET_SHARE) break;
  }
  return Math.max(0, performance.now() - started - 1000);
}

function printPlan(plan: PlanResult): void {
  const status = (verdict: PlanVerdict) =>
    verdict.error
      ? `error: ${verdict.error}`
      : `read ${verdict.rowsRead} row(s)${verdict.seqScans.length ? `, Seq Scan on ${verdict.seqScans.join(", ")}` : ""} in ${verdict.executionMs} ms`;
  console.log(
    `\n-- ${plan.target}: ${plan.custom.pass && plan.generic.pass ? "PASS" : "MISS"} (page ${plan.page}; custom plan ${status(plan.custom)}; generic plan ${status(plan.generic)})`,
  );
  console.log(`-- ${plan.query.replace(/\s+/g, " ").replace(/^select .*? from /, "select … from ")}`);
  console.log(`-- params ${JSON.stringify(plan.params)}`);
  console.log(plan.text);
}

/** The report's lines: PASS or MISS for each target, FAIL for a wrong answer. */
export function printMillionChecks(report: MillionReport): void {
  console.log(
    `\nmillion rows (${report.seed.rows} top-ups seeded in ${report.seed.seconds.toFixed(1)}s; ${report.elapsedSeconds.toFixed(0)}s in all):`,
  );
  printChecks(report.checks);
}

/** One line per check, aligned: PASS or MISS for a target, FAIL for a wrong answer (a fatal check). */
export function printChecks(checks: MillionCheck[]): void {
  const width = Math.max(...checks.map((check) => check.name.length));
  for (const check of checks) {
    const verdict = check.pass ? "PASS" : check.fatal ? "FAIL" : "MISS";
    console.log(`${verdict}  ${check.name.padEnd(width)}  ${check.value}  (target ${check.target})`);
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
