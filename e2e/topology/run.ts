/**
 * The topology test (`npm run test:topology`; a phase of `npm test` when Postgres, HAProxy and
 * PgBouncer are present): three production instances (`node scripts/next.mjs start`, the build
 * `npm test` made) behind HAProxy, checking /readyz, each reaching a Postgres cluster of this
 * test's own through PgBouncer in transaction mode (DATABASE_PREPARE=false), on the simulated
 * billing provider (its payments live in that Postgres) with the reconciler on every instance, as
 * docs/operations.md describes. Under a steady, bounded load of purchases and spends (each client
 * retrying by reference, as a real one would) and reads through HAProxy, it runs:
 *   1. a rolling restart (SIGTERM, exit, start, /readyz 200, one instance at a time): no 5xx, no reset;
 *   2. one instance SIGKILLed and started again, purchases and spends in flight on it: nothing lost,
 *      nothing charged, credited or spent twice;
 *   3. PgBouncer restarted, and 4. Postgres restarted: every failure a 502/503 in the envelope
 *      (never a 500), no answer slower than 10 s, purchases served again within seconds by the
 *      same instances, and every purchase cut by it settled on its next retries, not after a lease;
 * and after each step checks the books: balance = ledger = paid − refunded − spent, each paid purchase
 * credited once and paid once at the provider, every reference the clients sent paid, every spend
 * answered stored once with its one ledger row and every spend refused stored nowhere. Last, the
 * webhooks every instance sent through all of it (e2e/topology/webhooks.ts): every event arrived,
 * no gap in any sequence, none sent twice at the same moment.
 *
 * Writes e2e/.artifacts/topology.json (one entry per step, counted as a test by scripts/test.ts)
 * and each process's log beside it. Exits 1 when a step failed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import postgres from "postgres";
import { openDatabase } from "@/lib/db/client";
import { migratePostgres } from "@/lib/db/migrate";
import { randomString } from "@/lib/ids";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { type Haproxy, haproxyPath, startHaproxy } from "@/lib/testing/haproxy";
import { type Pgbouncer, pgbouncerPath, startPgbouncer } from "@/lib/testing/pgbouncer";
import { type PostgresCluster, postgresBinDir, startPostgresCluster } from "@/lib/testing/postgres-cluster";
import { simulatedServices } from "@/lib/testing/scratch-database";
import { addEndpoint } from "@/lib/webhooks/endpoints";
import { checkWebhooks, startWebhookReceiver } from "./webhooks";

const ROOT = process.cwd();
const ARTIFACTS = path.join(ROOT, "e2e", ".artifacts");
const REPORT = path.join(ARTIFACTS, "topology.json");
const INSTANCES = 3;
const PURCHASE_CLIENTS = 4;
/** Each client's pause between two purchases: a steady load well below what two cores sustain. */
const PAUSE_MS = 100;
const RETRY_PAUSE_MS = 200;
const SHUTDOWN_DELAY_SECONDS = 2;
/** The shortest lease the simulated provider allows (2 × its 10 s budget + 5 s): a killed instance's purchases free up sooner. */
const LEASE_SECONDS = 25;
const SLOW_MS = 10_000;
/** Purchases sent at once just before a fault, so that it cuts some in flight. */
const BURST = 8;
/** A purchase cut by a pooler or database restart must settle this soon after it is back, well inside a lease. */
const SETTLE_AFTER_RECOVERY_MS = 10_000;
/**
 * For every committed event to arrive once the faults are over: a send whose answer could not be
 * recorded (the database was restarting) is sent again once its 45 s claim runs out.
 */
const WEBHOOKS_WAIT_MS = 60_000;
/** From the restart's end to the first purchase served again. */
const RECOVERY_MS = 5_000;
/** The instances' ports: TOPOLOGY_PORT and the next two, or else ports the system picks (two checkouts may run this at once). */
async function instancePorts(): Promise<number[]> {
  const base = process.env.TOPOLOGY_PORT;
  if (base) return Array.from({ length: INSTANCES }, (_, index) => Number(base) + index);
  const servers = await Promise.all(
    Array.from(
      { length: INSTANCES },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

interface Answer {
  step: string;
  kind: "purchase" | "spend" | "read";
  reference?: string;
  at: number;
  ms: number;
  /** 0 when no HTTP answer came (the connection failed or was reset). */
  status: number;
  code?: string;
  error?: string;
  /** The body was the JSON envelope. */
  envelope: boolean;
  /** An instance answered (X-Request-Id), not the balancer. */
  fromApp: boolean;
}

interface Reference {
  reference: string;
  org: Org;
  step: string;
  sentAt: number;
  settledAt: number | null;
  attempts: number;
}

/** A spend of one Point under its reference, retried as a purchase is until its answer is final. */
interface SpendReference {
  reference: string;
  org: Org;
  step: string;
  /** spent: 201 or 200; refused: 409 insufficient_points; null: no final answer came. */
  final: "spent" | "refused" | null;
  attempts: number;
}

interface Org {
  id: string;
  apiKey: string;
}

interface StepResult {
  name: string;
  passed: boolean;
  failures: string[];
  seconds: number;
  metrics: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function missing(): string[] {
  const absent: string[] = [];
  if (!process.env.TEST_DATABASE_URL) absent.push("TEST_DATABASE_URL (a sign Postgres is installed)");
  if (!postgresBinDir()) absent.push("Postgres server binaries (/usr/lib/postgresql/*/bin)");
  if (!pgbouncerPath()) absent.push("PgBouncer");
  if (!haproxyPath()) absent.push("HAProxy");
  if (!fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) absent.push("a production build (next build)");
  return absent;
}

class Instance {
  child: ChildProcess | null = null;
  readonly log: fs.WriteStream;
  exits: Array<{ code: number | null; signal: NodeJS.Signals | null }> = [];

  constructor(
    readonly index: number,
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.log = fs.createWriteStream(path.join(ARTIFACTS, `topology-app${index}.log`));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "scripts", "next.mjs"), "start", "-p", String(this.port), "-H", "127.0.0.1"],
      {
        cwd: ROOT,
        env: this.env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    child.once("exit", (code, signal) => this.exits.push({ code, signal }));
    this.child = child;
  }

  async ready(timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const child = this.child;
      if (!child || child.exitCode !== null || child.signalCode !== null)
        throw new Error(`instance ${this.index} exited before it was ready`);
      const status = await fetch(`http://127.0.0.1:${this.port}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status;
        },
        () => 0,
      );
      if (status === 200) return;
      await sleep(250);
    }
    throw new Error(`instance ${this.index} was not ready within ${timeoutMs} ms`);
  }

  /** Sends the signal and resolves with how it exited. */
  async stop(
    signal: NodeJS.Signals,
    timeoutMs = 30_000,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null)
      return { code: child?.exitCode ?? null, signal: null };
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, sig) => resolve({ code, signal: sig })),
    );
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  }
}

/** Counts of the log lines that betray a failure the client cannot see. */
function logFindings(instances: Instance[]): Record<string, number> {
  const patterns: Record<string, RegExp> = {
    unhandledRejection: /unhandledRejection|Unhandled Rejection/i,
    leaseNotReleased: /Could not release the lease|"event":"lease_release_failed"/,
    unexpectedError: /Unexpected error/,
    // Not failures: a release the database could not take at once, and the retry that did it.
    leaseReleaseRetried: /"event":"lease_release_retry"/,
    leaseReleasedLate: /"event":"lease_released"/,
  };
  const counts: Record<string, number> = Object.fromEntries(Object.keys(patterns).map((name) => [name, 0]));
  for (const instance of instances) {
    const file = path.join(ARTIFACTS, `topology-app${instance.index}.log`);
    const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
    for (const line of text.split("\n")) {
      for (const [name, pattern] of Object.entries(patterns))
        if (pattern.test(line)) counts[name] = (counts[name] ?? 0) + 1;
    }
  }
  return counts;
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  if ((error as { name?: string }).name === "TimeoutError") return "client_timeout";
  return cause?.message ?? (error as Error).message ?? String(error);
}

class Load {
  answers: Answer[] = [];
  references: Reference[] = [];
  spends: SpendReference[] = [];
  step = "startup";
  private stopping = false;
  private clients: Promise<void>[] = [];
  private sequence = 0;
  private readonly runId = randomString(6).toLowerCase();

  constructor(
    private readonly baseUrl: string,
    private readonly orgs: Org[],
  ) {}

  private async send(kind: Answer["kind"], url: string, init: RequestInit, reference?: string): Promise<Answer> {
    const started = Date.now();
    const answer: Answer = {
      step: this.step,
      kind,
      reference,
      at: started,
      ms: 0,
      status: 0,
      envelope: false,
      fromApp: false,
    };
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
      const text = await response.text();
      answer.status = response.status;
      answer.fromApp = response.headers.has("x-request-id");
      try {
        const body = JSON.parse(text) as { status?: string; error?: { code?: string } };
        answer.envelope =
          body.status === "success" || (body.status === "error" && typeof body.error?.code === "string");
        answer.code = body.error?.code;
      } catch {
        answer.envelope = false;
      }
    } catch (error) {
      answer.error = errorCode(error);
    }
    answer.ms = Date.now() - started;
    this.answers.push(answer);
    return answer;
  }

  /**
   * One purchase, as a real client makes it: the same reference again until an answer is final.
   * The first try may go to `firstBase` (an instance directly), every retry goes through the balancer.
   */
  private async purchase(client: number, firstBase = this.baseUrl): Promise<void> {
    const org = this.orgs[client % this.orgs.length] as Org;
    const reference: Reference = {
      reference: `topo-${this.runId}-${client}-${this.sequence++}`,
      org,
      step: this.step,
      sentAt: Date.now(),
      settledAt: null,
      attempts: 0,
    };
    this.references.push(reference);
    const giveUpAt = Date.now() + 60_000;
    while (Date.now() < giveUpAt) {
      reference.attempts += 1;
      const base = reference.attempts === 1 ? firstBase : this.baseUrl;
      const answer = await this.send(
        "purchase",
        `${base}/v3/points/top-ups`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${org.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ points: 100, reference: reference.reference }),
        },
        reference.reference,
      );
      if (answer.status === 200 || answer.status === 201) {
        reference.settledAt = Date.now();
        return;
      }
      const retryable =
        answer.status === 0 ||
        answer.status >= 500 ||
        (answer.status === 409 && (answer.code === "payment_unresolved" || answer.code === "purchase_in_progress"));
      if (!retryable) return;
      await sleep(RETRY_PAUSE_MS);
    }
  }

  /** One spend of one Point, its reference sent again until the answer is final, as a purchase's is. */
  private async spend(firstBase = this.baseUrl): Promise<void> {
    const n = this.sequence++;
    const spend: SpendReference = {
      reference: `topo-spend-${this.runId}-${n}`,
      org: this.orgs[n % this.orgs.length] as Org,
      step: this.step,
      final: null,
      attempts: 0,
    };
    this.spends.push(spend);
    const giveUpAt = Date.now() + 60_000;
    while (Date.now() < giveUpAt) {
      spend.attempts += 1;
      const base = spend.attempts === 1 ? firstBase : this.baseUrl;
      const answer = await this.send(
        "spend",
        `${base}/v3/points/spends`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${spend.org.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ points: 1, reference: spend.reference }),
        },
        spend.reference,
      );
      if (answer.status === 200 || answer.status === 201) {
        spend.final = "spent";
        return;
      }
      if (answer.status === 409 && answer.code === "insufficient_points") {
        spend.final = "refused";
        return;
      }
      if (answer.status !== 0 && answer.status < 500) return;
      await sleep(RETRY_PAUSE_MS);
    }
  }

  private async spendClient(): Promise<void> {
    while (!this.stopping) {
      await this.spend();
      await sleep(PAUSE_MS);
    }
  }

  /** `count` spends at once, their first try to `firstBase`, as `burst` sends purchases. */
  burstSpends(count: number, firstBase = this.baseUrl, staggerMs = 0): void {
    for (let i = 0; i < count; i++) this.clients.push(sleep(i * staggerMs).then(() => this.spend(firstBase)));
  }

  private async purchaseClient(client: number): Promise<void> {
    while (!this.stopping) {
      await this.purchase(client);
      await sleep(PAUSE_MS);
    }
  }

  /**
   * `count` purchases at once, beside the steady clients, so that a fault that follows at once
   * finds purchases in flight: their first try to `firstBase` (the balancer, or one instance).
   */
  burst(count: number, firstBase = this.baseUrl, staggerMs = 0): void {
    for (let i = 0; i < count; i++) {
      this.clients.push(sleep(i * staggerMs).then(() => this.purchase(PURCHASE_CLIENTS + i, firstBase)));
    }
  }

  private async readClient(): Promise<void> {
    let turn = 0;
    while (!this.stopping) {
      const org = this.orgs[turn % this.orgs.length] as Org;
      const url = turn % 2 === 0 ? `${this.baseUrl}/v3/points/top-ups?limit=10` : `${this.baseUrl}/v3/points/balance`;
      turn += 1;
      await this.send("read", url, { headers: { authorization: `Bearer ${org.apiKey}` } });
      await sleep(PAUSE_MS);
    }
  }

  start(step: string): void {
    this.step = step;
    this.stopping = false;
    this.clients = [
      ...Array.from({ length: PURCHASE_CLIENTS }, (_, client) => this.purchaseClient(client)),
      this.spendClient(),
      this.readClient(),
    ];
  }

  /** No new purchases; resolves once every client has settled (or given up on) the one it is on. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.clients);
  }
}

interface BooksCheck {
  failures: string[];
  purchases: number;
  paid: number;
}

/** The books, read straight from the database: every organisation's, and every reference the clients sent. */
async function checkBooks(
  sql: postgres.Sql,
  orgs: Org[],
  references: Reference[],
  spends: SpendReference[],
): Promise<BooksCheck> {
  const failures: string[] = [];
  const ids = orgs.map((org) => org.id);
  const balances = await sql<{ id: string; balance: number; ledger: string; paid_net: string; spent: string }[]>`
    select o.id, o.points_balance as balance,
      (select coalesce(sum(l.delta), 0) from points_ledger l where l.organization_id = o.id) as ledger,
      (select coalesce(sum(t.points - t.refunded_points), 0) from top_ups t where t.organization_id = o.id and t.status = 'paid') as paid_net,
      (select coalesce(sum(s.points), 0) from spends s where s.organization_id = o.id) as spent
    from organizations o where o.id = any(${ids})`;
  for (const row of balances) {
    const net = Number(row.paid_net) - Number(row.spent);
    if (Number(row.ledger) !== Number(row.balance) || net !== Number(row.balance)) {
      failures.push(
        `organisation ${row.id}: balance ${row.balance}, ledger ${row.ledger}, paid − refunded − spent ${net}`,
      );
    }
  }
  const rows = await sql<
    { reference: string; status: string; credits: string; succeeded: string; payments: string; paid_with: boolean }[]
  >`
    select t.reference, t.status,
      (select count(*) from points_ledger l where l.top_up_id = t.id and l.kind = 'purchase') as credits,
      (select count(*) from sim_payments p where p.top_up_id = t.id and p.status = 'succeeded') as succeeded,
      (select count(*) from sim_payments p where p.top_up_id = t.id) as payments,
      exists (select 1 from sim_payments p where p.id = t.provider_payment_id and p.status = 'succeeded') as paid_with
    from top_ups t where t.organization_id = any(${ids})`;
  const byReference = new Map(rows.map((row) => [row.reference, row]));
  for (const row of rows) {
    const paid = row.status === "paid";
    if (Number(row.credits) !== (paid ? 1 : 0))
      failures.push(`${row.reference} (${row.status}) credited ${row.credits} times`);
    if (Number(row.succeeded) !== (paid ? 1 : 0))
      failures.push(`${row.reference} (${row.status}) has ${row.succeeded} succeeded payments`);
    if (Number(row.payments) > 1) failures.push(`${row.reference} was charged ${row.payments} times at the provider`);
    if (paid && !row.paid_with) failures.push(`${row.reference} is paid without its succeeded payment recorded`);
  }
  for (const reference of references) {
    const row = byReference.get(reference.reference);
    if (!row) failures.push(`${reference.reference} was sent and is lost (no purchase)`);
    else if (row.status !== "paid") failures.push(`${reference.reference} ended ${row.status}, not paid`);
    else if (reference.settledAt === null)
      failures.push(`${reference.reference} is paid but its client never got the answer`);
  }
  if (rows.length !== references.length)
    failures.push(`${rows.length} purchases stored for ${references.length} references sent`);
  const spent = await sql<{ reference: string; ledger_rows: string }[]>`
    select s.reference,
      (select count(*) from points_ledger l where l.organization_id = s.organization_id and l.cause_id = s.id) as ledger_rows
    from spends s where s.organization_id = any(${ids})`;
  const spentByReference = new Map(spent.map((row) => [row.reference, row]));
  for (const row of spent) {
    if (Number(row.ledger_rows) !== 1) failures.push(`spend ${row.reference} has ${row.ledger_rows} ledger rows`);
  }
  const answeredSpends = spends.filter((spend) => spend.final === "spent").length;
  for (const spend of spends) {
    const stored = spentByReference.has(spend.reference);
    if (spend.final === null) failures.push(`spend ${spend.reference} never got a final answer`);
    else if (spend.final === "spent" && !stored) failures.push(`spend ${spend.reference} was answered but is lost`);
    else if (spend.final === "refused" && stored) failures.push(`spend ${spend.reference} was refused but is stored`);
  }
  if (spent.length !== answeredSpends) failures.push(`${spent.length} spends stored for ${answeredSpends} answered`);
  const [orphans] = await sql<{ count: string }[]>`
    select count(*) from sim_payments p where p.top_up_id is null or not exists (select 1 from top_ups t where t.id = p.top_up_id)`;
  if (Number(orphans?.count ?? 0) > 0) failures.push(`${orphans?.count} provider payments belong to no purchase`);
  return { failures, purchases: rows.length, paid: rows.filter((row) => row.status === "paid").length };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function summarizeAnswers(answers: Answer[]) {
  const latencies = answers
    .filter((answer) => answer.status !== 0)
    .map((answer) => answer.ms)
    .sort((a, b) => a - b);
  const byStatus: Record<string, number> = {};
  for (const answer of answers) {
    const key =
      answer.status === 0 ? `error:${answer.error}` : `${answer.status}${answer.code ? ` ${answer.code}` : ""}`;
    byStatus[key] = (byStatus[key] ?? 0) + 1;
  }
  return {
    requests: answers.length,
    fiveXx: answers.filter((answer) => answer.status >= 500).length,
    fiveHundreds: answers.filter((answer) => answer.status === 500).length,
    connectionErrors: answers.filter((answer) => answer.status === 0).length,
    withoutEnvelope: answers.filter((answer) => answer.status !== 0 && !answer.envelope).length,
    slow: answers.filter((answer) => answer.ms > SLOW_MS).length,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: latencies[latencies.length - 1] ?? 0,
    byStatus,
  };
}

async function main(): Promise<number> {
  const absent = missing();
  if (absent.length > 0) {
    console.log(`topology: skipped, missing ${absent.join(", ")}.`);
    return 0;
  }
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.rmSync(REPORT, { force: true });
  const began = Date.now();
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse())
      await fn().catch((error: unknown) => console.error("topology cleanup:", error));
    cleanups.length = 0;
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      void cleanup().finally(() => process.exit(130));
    });
  }
  const steps: StepResult[] = [];
  try {
    // The Postgres of this test alone: restarting it disturbs nobody else's suite.
    const cluster: PostgresCluster = await startPostgresCluster();
    cleanups.push(() => cluster.remove());
    const bouncer: Pgbouncer = await startPgbouncer(cluster.url, {
      poolSize: 20,
      settings: { server_login_retry: 1, query_wait_timeout: 5, server_connect_timeout: 3 },
    });
    cleanups.push(() => bouncer.stop());
    const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
    await admin.unsafe("create database points_topology");
    await admin.end({ timeout: 5 });
    const directUrl = cluster.url.replace(/\/postgres$/, "/points_topology");
    const pooledUrl = bouncer.urlFor(directUrl);
    // Through the pooler, as the instances' own startup does.
    process.env.DATABASE_PREPARE = "false";
    await migratePostgres(pooledUrl);

    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    const database = await openDatabase({ url: directUrl, maxConnections: 2 });
    const orgs: Org[] = [];
    try {
      for (let i = 0; i < PURCHASE_CLIENTS; i++) {
        const created = await createOrganization(simulatedServices(database.db), {
          name: `Topology ${i + 1}`,
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["visa"],
          defaultCardIndex: 0,
        });
        await addEndpoint(simulatedServices(database.db), created.organization.id, {
          url: receiver.url,
          allowPrivate: true,
        });
        orgs.push({ id: created.organization.id, apiKey: created.apiKey.apiKey });
      }
    } finally {
      await database.close();
    }
    const sql = postgres(directUrl, { max: 2, onnotice: () => {} });
    cleanups.push(() => sql.end({ timeout: 2 }));

    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of [
      "DATABASE_URL",
      "TEST_DATABASE_URL",
      "PGLITE_DIR",
      "STRIPE_SECRET_KEY",
      "STRIPE_API_URL",
      "STRIPE_WEBHOOK_SECRET",
      "NODE_OPTIONS",
    ]) {
      delete env[name];
    }
    Object.assign(env, {
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: pooledUrl,
      DATABASE_PREPARE: "false",
      AUTH_SECRET: randomBytes(32).toString("base64"),
      POINTS_SHUTDOWN_DELAY_SECONDS: String(SHUTDOWN_DELAY_SECONDS),
      POINTS_LEASE_SECONDS: String(LEASE_SECONDS),
      // Every instance sends the organisations' webhooks, to the receiver on this machine.
      POINTS_WEBHOOKS_ALLOW_PRIVATE: "1",
    });
    const ports = await instancePorts();
    const instances = ports.map((port, index) => new Instance(index + 1, port, env));
    cleanups.push(async () => {
      await Promise.all(instances.map((instance) => instance.stop("SIGKILL", 5_000)));
      for (const instance of instances) instance.log.end();
    });
    for (const instance of instances) instance.start();
    await Promise.all(instances.map((instance) => instance.ready()));
    const haproxy: Haproxy = await startHaproxy({
      backends: instances.map((instance) => instance.port),
      checkIntervalMs: 500,
    });
    cleanups.push(() => haproxy.stop());
    fs.writeFileSync(path.join(ARTIFACTS, "topology-haproxy.cfg"), haproxy.config);
    const allUp = async (timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const states = await haproxy.serverStates().catch(() => ({}) as Record<string, string>);
        if (Object.keys(states).length === INSTANCES && Object.values(states).every((state) => state === "UP")) return;
        await sleep(100);
      }
      throw new Error(
        `HAProxy did not see every instance up within ${timeoutMs} ms: ${JSON.stringify(await haproxy.serverStates())}`,
      );
    };
    await allUp(15_000);
    console.log(
      `topology: 3 instances behind HAProxy, PgBouncer (transaction mode), own Postgres; up in ${Math.round((Date.now() - began) / 1000)} s`,
    );

    // A client must not be told a longer idle time than the balancer keeps its connection open.
    const advertised = (await fetch(`${haproxy.url}/readyz`)).headers.get("keep-alive");
    const keepAliveOk = advertised === "timeout=10" && haproxy.config.includes("timeout http-keep-alive 10s");
    steps.push({
      name: "keep-alive the balancer advertises",
      passed: keepAliveOk,
      failures: keepAliveOk ? [] : [`Keep-Alive through HAProxy is ${advertised}, its own idle timeout 10 s`],
      seconds: 0,
      metrics: { advertised },
    });
    console.log(`${keepAliveOk ? "✓" : "✗"} keep-alive the balancer advertises: ${advertised}`);

    const load = new Load(haproxy.url, orgs);

    /** One step under load: the fault, then the load keeps going a while, then every client settles its purchase, then the books. */
    const step = async (
      name: string,
      fault: () => Promise<Record<string, unknown>>,
      judge: (answers: Answer[], references: Reference[], recoveredAt: number) => string[],
    ) => {
      const stepStarted = Date.now();
      const logsBefore = logFindings(instances);
      const pidsBefore = instances.map((instance) => instance.pid);
      load.start(name);
      await sleep(1_500);
      const faultMetrics = await fault();
      const recoveredAt = Date.now();
      await sleep(3_000);
      await load.stop();
      const answers = load.answers.filter((answer) => answer.step === name);
      const references = load.references.filter((reference) => reference.step === name);
      const failures = judge(answers, references, recoveredAt);
      const books = await checkBooks(sql, orgs, load.references, load.spends);
      failures.push(...books.failures.slice(0, 20));
      if (books.failures.length > 20) failures.push(`… and ${books.failures.length - 20} more`);
      const logsAfter = logFindings(instances);
      const logs = Object.fromEntries(
        Object.entries(logsAfter).map(([key, count]) => [key, count - (logsBefore[key] ?? 0)]),
      );
      for (const [key, count] of Object.entries(logs)) {
        if (count > 0 && !key.startsWith("leaseRelease")) failures.push(`${count} log lines of ${key}`);
      }
      const settle = references
        .filter((reference) => reference.settledAt !== null)
        .map((reference) => (reference.settledAt as number) - reference.sentAt)
        .sort((a, b) => a - b);
      const result: StepResult = {
        name,
        passed: failures.length === 0,
        failures,
        seconds: Math.round((Date.now() - stepStarted) / 100) / 10,
        metrics: {
          ...faultMetrics,
          purchases: summarizeAnswers(answers.filter((answer) => answer.kind === "purchase")),
          spends: summarizeAnswers(answers.filter((answer) => answer.kind === "spend")),
          spendReferences: load.spends.filter((spend) => spend.step === name).length,
          reads: summarizeAnswers(answers.filter((answer) => answer.kind === "read")),
          references: references.length,
          retriedReferences: references.filter((reference) => reference.attempts > 1).length,
          maxSettleMs: settle[settle.length - 1] ?? 0,
          booksPurchases: books.purchases,
          booksPaid: books.paid,
          logs,
          pidsUnchanged: pidsBefore.every((pid, index) => instances[index]?.pid === pid),
        },
      };
      steps.push(result);
      const p = result.metrics.purchases as ReturnType<typeof summarizeAnswers>;
      console.log(
        `${result.passed ? "✓" : "✗"} ${name} (${result.seconds} s): ${references.length} purchases, ${p.requests} requests, ` +
          `5xx ${p.fiveXx} (500: ${p.fiveHundreds}), resets/refused ${p.connectionErrors}, max ${p.maxMs} ms, ` +
          `settled within ${result.metrics.maxSettleMs} ms`,
      );
      for (const failure of failures) console.log(`    ${failure}`);
    };

    const noErrors = (answers: Answer[]): string[] => {
      const failures: string[] = [];
      const bad = answers.filter((answer) => answer.status === 0 || answer.status >= 500);
      if (bad.length > 0) {
        const kinds = summarizeAnswers(bad).byStatus;
        failures.push(`${bad.length} answers were a 5xx or a failed connection: ${JSON.stringify(kinds)}`);
      }
      return failures;
    };

    const cleanFailures = (answers: Answer[], references: Reference[], recoveredAt: number): string[] => {
      const failures: string[] = [];
      const fiveHundreds = answers.filter(
        (answer) => answer.status === 500 || (answer.status > 503 && answer.status !== 504),
      );
      if (fiveHundreds.length > 0)
        failures.push(`${fiveHundreds.length} answers were ${JSON.stringify(summarizeAnswers(fiveHundreds).byStatus)}`);
      const unclean = answers.filter((answer) => answer.status >= 500 && !answer.envelope);
      if (unclean.length > 0) failures.push(`${unclean.length} 5xx answers without the JSON envelope`);
      const timeouts = answers.filter((answer) => answer.status === 504);
      if (timeouts.length > 0)
        failures.push(`${timeouts.length} answers were 504 (an instance did not answer in time)`);
      const slow = answers.filter((answer) => answer.ms > SLOW_MS);
      if (slow.length > 0)
        failures.push(
          `${slow.length} answers took over ${SLOW_MS / 1000} s (max ${Math.max(...slow.map((a) => a.ms))} ms)`,
        );
      const resets = answers.filter((answer) => answer.status === 0);
      if (resets.length > 0)
        failures.push(
          `${resets.length} requests failed at the connection: ${JSON.stringify(summarizeAnswers(resets).byStatus)}`,
        );
      const firstServed = answers.find(
        (answer) =>
          answer.kind === "purchase" && answer.at >= recoveredAt && (answer.status === 200 || answer.status === 201),
      );
      const recoveryMs = firstServed ? firstServed.at + firstServed.ms - recoveredAt : Number.POSITIVE_INFINITY;
      if (recoveryMs > RECOVERY_MS)
        failures.push(
          `the first purchase served after the restart came ${recoveryMs} ms after it (limit ${RECOVERY_MS} ms)`,
        );
      const late = references.filter(
        (reference) => reference.settledAt !== null && reference.settledAt - recoveredAt > SETTLE_AFTER_RECOVERY_MS,
      );
      if (late.length > 0) {
        failures.push(
          `${late.length} purchases settled more than ${SETTLE_AFTER_RECOVERY_MS / 1000} s after the restart (a lease left held?)`,
        );
      }
      return failures;
    };

    await step(
      "rolling restart",
      async () => {
        const exits: Array<{ code: number | null; signal: string | null; stopMs: number; startMs: number }> = [];
        for (const instance of instances) {
          const stopping = Date.now();
          const exit = await instance.stop("SIGTERM");
          const starting = Date.now();
          instance.start();
          await instance.ready();
          await allUp(15_000);
          exits.push({
            code: exit.code,
            signal: exit.signal,
            stopMs: starting - stopping,
            startMs: Date.now() - starting,
          });
        }
        return { exits };
      },
      (answers) => noErrors(answers),
    );

    await step(
      "one instance SIGKILLed",
      async () => {
        const victim = instances[1] as Instance;
        // Purchases in flight on it when it dies: their clients retry through the balancer.
        // Staggered, so the kill finds them at every phase of a purchase, some holding its lease.
        load.burst(BURST, `http://127.0.0.1:${victim.port}`, 15);
        load.burstSpends(BURST, `http://127.0.0.1:${victim.port}`, 15);
        await sleep(BURST * 15);
        await victim.stop("SIGKILL");
        await sleep(2_000);
        victim.start();
        await victim.ready();
        await allUp(15_000);
        return {};
      },
      () => [],
    );

    await step(
      "PgBouncer restarted",
      async () => {
        load.burst(BURST);
        await sleep(15);
        const started = Date.now();
        await bouncer.restart();
        return { downMs: Date.now() - started };
      },
      cleanFailures,
    );

    await step(
      "Postgres restarted",
      async () => {
        load.burst(BURST);
        await sleep(15);
        const started = Date.now();
        await cluster.restart();
        return { downMs: Date.now() - started };
      },
      cleanFailures,
    );

    // Last: what the instances sent through all of it.
    const webhooksStarted = Date.now();
    const webhooks = await checkWebhooks(
      sql,
      receiver.receipts,
      orgs.map((org) => org.id),
      WEBHOOKS_WAIT_MS,
    );
    steps.push({
      name: "webhooks across the restarts",
      passed: webhooks.failures.length === 0,
      failures: webhooks.failures,
      seconds: Math.round((Date.now() - webhooksStarted) / 100) / 10,
      metrics: webhooks.metrics,
    });
    console.log(
      `${webhooks.failures.length === 0 ? "✓" : "✗"} webhooks across the restarts: ${JSON.stringify(webhooks.metrics)}`,
    );
    for (const failure of webhooks.failures) console.log(`    ${failure}`);
  } catch (error) {
    console.error("topology:", error);
    steps.push({ name: "setup", passed: false, failures: [String(error)], seconds: 0, metrics: {} });
  } finally {
    await cleanup();
  }
  const passed = steps.filter((step) => step.passed).length;
  const failed = steps.length - passed;
  const seconds = Math.round((Date.now() - began) / 1000);
  fs.writeFileSync(REPORT, `${JSON.stringify({ passed, failed, seconds, steps }, null, 2)}\n`);
  console.log(`topology: ${passed} passed, ${failed} failed in ${seconds} s (report: e2e/.artifacts/topology.json)`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
