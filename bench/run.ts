/**
 * `npm run bench`: the production build against a bare node:http + postgres.js handler doing the
 * same minimal work, on one fresh Postgres database, with the same organisations and keys.
 *
 *   npm run bench -- [--duration 10] [--warmup 10] [--concurrency 32] [--orgs 8] [--rounds 5] [--port 3200]
 *                    [--only purchase,list,spend,floor,topology,events,million] [--no-floor] [--rebuild]
 *                    [--cpu-prof]
 *
 * Each scenario gets --warmup seconds once (discarded) and --duration seconds measured, cut into
 * --rounds slices that alternate app and bare (ABBA...), so a background load that comes and goes
 * on a shared machine hits both sides alike instead of skewing the ratio. The warm-up is long enough
 * for the app's JIT: bench/README.md says what 3 s measured instead.
 *
 * --cpu-prof runs the app under Node's CPU profiler and prints where its time went (best with
 * --only purchase); the profile is left in bench/results/cpu-prof/ for Chrome DevTools.
 * The floor scenario (the app answering a JSON 404 under /v3 with no database work) is Next.js's
 * own cost per request, measured in the first group's alternating slices. Issue 18's targets are
 * read against it: each scenario's throughput as a fraction of the bound 1/(1/floor + 1/bare),
 * and a purchase's server CPU above the floor's. --no-floor skips it, and those targets with it.
 * The million group (last; bench/million.ts) seeds one organisation with 1,000,000 top-ups and
 * times History, the Overview and GET /v3/points/top-ups against it, explains their queries and
 * watches the server's memory through a CSV export of every row.
 *
 * Env: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test
 * (an admin URL: the bench creates and drops its own database there); BENCH_DURATION,
 * BENCH_WARMUP, BENCH_CONCURRENCY, BENCH_ORGS, BENCH_ROUNDS, BENCH_PORT (the app's; the bare server
 * takes the next one; 3200 by default) as defaults for the flags.
 *
 * Exits non-zero only when a response was not 2xx or an invariant broke; a missed throughput
 * target is reported, not fatal, because it depends on the machine.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { APPLICATION_NAME as APP_APPLICATION_NAME, openDatabase, redactUrl } from "@/lib/db/client";
import { randomString } from "@/lib/ids";
import { logToStderr } from "@/lib/observability/log";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { purchasePoints } from "@/lib/points/purchase";
import { createScratchDatabase, simulatedServices } from "@/lib/testing/scratch-database";
import { cpuSecondsOfAll, machineCpuSeconds, processTree } from "./cpu";
import { newestProfile, printProfileSummary, summarizeCpuProfile } from "./cpu-profile";
import { printEventsChecks, runEvents } from "./events";
import { type RequestSpec, runSlice, type ScenarioResult, type Slice, summarize } from "./load";
import { printMillionChecks, runMillion } from "./million";
import { startTopology, TOPOLOGY_INSTANCES, topologyMissing } from "./topology";

const root = process.cwd();
const resultsDir = path.join(root, "bench", "results");
/** The bare server's connections' application_name, so its backends are told from the app's. */
const BARE_APPLICATION_NAME = "points-bench-bare";

interface Config {
  adminUrl: string;
  durationMs: number;
  warmupMs: number;
  concurrency: number;
  orgs: number;
  /** The measured time of each scenario is cut into this many slices, app and bare alternating. */
  rounds: number;
  rebuild: boolean;
  /**
   * Which scenario groups run: purchase and list (app and bare each), and floor, Next.js answering
   * a JSON 404 with no database work (the framework's own cost per request).
   */
  only: Set<ScenarioGroup>;
  cpuProf: boolean;
  appPort: number;
  barePort: number;
}

function parseConfig(argv: string[]): Config {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (!arg.startsWith("--")) throw new Error(`Unexpected argument ${arg}`);
    const [name, inline] = arg.slice(2).split("=", 2) as [string, string | undefined];
    if (name === "rebuild" || name === "no-floor" || name === "cpu-prof") {
      flags.set(name, "true");
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    flags.set(name, value);
  }
  const known = new Set([
    "duration",
    "warmup",
    "concurrency",
    "orgs",
    "rounds",
    "only",
    "rebuild",
    "no-floor",
    "cpu-prof",
    "port",
  ]);
  for (const name of flags.keys()) if (!known.has(name)) throw new Error(`Unknown flag --${name}`);
  const number = (flag: string, envName: string, fallback: number, min: number): number => {
    const raw = flags.get(flag) ?? process.env[envName];
    const value = raw === undefined || raw === "" ? fallback : Number(raw);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${flag} must be a number >= ${min}`);
    return value;
  };
  return {
    adminUrl:
      process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test",
    durationMs: number("duration", "BENCH_DURATION", 10, 1) * 1000,
    warmupMs: number("warmup", "BENCH_WARMUP", 10, 0) * 1000,
    concurrency: Math.floor(number("concurrency", "BENCH_CONCURRENCY", 32, 1)),
    orgs: Math.floor(number("orgs", "BENCH_ORGS", 8, 1)),
    rounds: Math.floor(number("rounds", "BENCH_ROUNDS", 5, 1)),
    rebuild: flags.has("rebuild"),
    only: parseOnly(flags.get("only"), flags.has("no-floor")),
    cpuProf: flags.has("cpu-prof"),
    appPort: Math.floor(number("port", "BENCH_PORT", 3200, 1)),
    barePort: Math.floor(number("port", "BENCH_PORT", 3200, 1)) + 1,
  };
}

const SCENARIO_GROUPS = ["purchase", "list", "spend", "floor", "topology", "events", "million"] as const;
type ScenarioGroup = (typeof SCENARIO_GROUPS)[number];

function parseOnly(value: string | undefined, noFloor: boolean): Set<ScenarioGroup> {
  const names = value ? value.split(",").map((name) => name.trim()) : [...SCENARIO_GROUPS];
  const groups = new Set<ScenarioGroup>();
  for (const name of names) {
    const group = SCENARIO_GROUPS.find((known) => known === name);
    if (!group) throw new Error(`--only takes ${SCENARIO_GROUPS.join(", ")}; not "${name}"`);
    groups.add(group);
  }
  if (noFloor) groups.delete("floor");
  return groups;
}

interface BenchOrg {
  id: string;
  apiKey: string;
}

/** Cleanup steps, run in reverse on every exit path (including Ctrl-C). */
const cleanups: Array<() => Promise<void>> = [];
let cleaningUp: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaningUp ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch (error) {
        console.error("cleanup:", error instanceof Error ? error.message : error);
      }
    }
  })();
  return cleaningUp;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function main(): Promise<number> {
  const config = parseConfig(process.argv.slice(2));
  // The bench's own calls into lib/ (organisations made, funding purchases) log warnings only, on stderr.
  logToStderr();
  const began = performance.now();
  fs.mkdirSync(resultsDir, { recursive: true });
  if (config.cpuProf) {
    // Pushed first so it runs last, once the app has exited and written its profile.
    cleanups.push(async () => {
      const file = newestProfile(cpuProfDir);
      if (file) printProfileSummary(summarizeCpuProfile(file, 15));
      else console.log("\nno CPU profile was written (did the app exit cleanly?)");
    });
  }

  // A fresh database of our own, dropped at the end.
  const scratch = await createScratchDatabase(config.adminUrl, "points_bench");
  cleanups.push(scratch.drop);
  const databaseUrl = scratch.url;
  const dbName = new URL(databaseUrl).pathname.slice(1);
  const orgs = await provision(databaseUrl, config.orgs, config.only.has("spend") ? FUNDING_PURCHASES : 0);
  console.log(
    `database ${dbName}: migrated, ${orgs.length} organisations (USD, visa default, API purchases on, no limits)`,
  );

  ensureBuild(config.rebuild);
  const [app, bare] = await Promise.all([
    startServer(
      "app",
      process.execPath,
      [
        ...profilerArgs(config),
        path.join(root, "scripts/next.mjs"),
        "start",
        "-p",
        String(config.appPort),
        "-H",
        "127.0.0.1",
      ],
      {
        DATABASE_URL: databaseUrl,
        PORT: String(config.appPort),
        NODE_ENV: "production",
        // The events group's webhooks go to a receiver on this machine.
        POINTS_WEBHOOKS_ALLOW_PRIVATE: "1",
        // Production refuses to start without a session secret; nobody signs in here, so a throwaway one.
        AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64"),
      },
      config.appPort,
      APP_APPLICATION_NAME,
    ),
    startServer(
      "bare",
      process.execPath,
      ["--import", "tsx", path.join(root, "bench/bare-server.ts")],
      {
        DATABASE_URL: databaseUrl,
        BARE_PORT: String(config.barePort),
        BARE_APPLICATION_NAME,
      },
      config.barePort,
      BARE_APPLICATION_NAME,
    ),
  ]);

  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  cleanups.push(() => sql.end({ timeout: 5 }));
  const runId = randomString(6);
  let sequence = 0;
  const orgFor = (n: number) => orgs[n % orgs.length] as BenchOrg;
  const purchase = (port: number, tag: string) => (): RequestSpec => {
    const n = sequence++;
    const org = orgFor(n);
    return {
      url: `http://127.0.0.1:${port}/v3/points/top-ups`,
      init: {
        method: "POST",
        headers: { authorization: `Bearer ${org.apiKey}`, "content-type": "application/json" },
        // A fresh reference every time: each request is a new purchase, never a replay.
        body: JSON.stringify({ points: 100, reference: `bench-${runId}-${tag}-${n}` }),
      },
    };
  };
  const spend = (port: number, tag: string) => (): RequestSpec => {
    const n = sequence++;
    const org = orgFor(n);
    return {
      url: `http://127.0.0.1:${port}/v3/points/spends`,
      init: {
        method: "POST",
        headers: { authorization: `Bearer ${org.apiKey}`, "content-type": "application/json" },
        // One Point under a fresh reference: each request a new spend, never a replay or a refusal.
        body: JSON.stringify({ points: 1, reference: `bench-${runId}-${tag}-${n}` }),
      },
    };
  };
  const list = (port: number) => (): RequestSpec => {
    const org = orgFor(sequence++);
    return {
      url: `http://127.0.0.1:${port}/v3/points/payment-methods`,
      init: { method: "GET", headers: { authorization: `Bearer ${org.apiKey}` } },
    };
  };

  // Scenarios that are compared run in one group, their slices interleaved.
  const groups: Scenario[][] = [];
  // Next.js's own cost, measured in the slices of the first group so that it sees the same machine.
  const floor: Scenario = {
    name: "floor (app, 404, no DB)",
    server: app,
    next: () => ({ url: `http://127.0.0.1:${config.appPort}/v3/bench-floor`, init: { method: "GET" } }),
    expectStatus: 404,
  };
  const withFloor = (group: Scenario[]) =>
    config.only.has("floor") && !groups.some((g) => g.includes(floor)) ? [...group, floor] : group;
  if (config.only.has("purchase")) {
    groups.push(
      withFloor([
        { name: "purchase (app)", server: app, next: purchase(config.appPort, "app") },
        { name: "purchase (bare)", server: bare, next: purchase(config.barePort, "bare") },
      ]),
    );
  }
  if (config.only.has("list")) {
    groups.push(
      withFloor([
        { name: "list (app)", server: app, next: list(config.appPort) },
        { name: "list (bare)", server: bare, next: list(config.barePort) },
      ]),
    );
  }
  if (config.only.has("spend")) {
    groups.push(
      withFloor([
        { name: "spend (app)", server: app, next: spend(config.appPort, "app") },
        { name: "spend (bare)", server: bare, next: spend(config.barePort, "bare") },
      ]),
    );
  }
  if (config.only.has("floor") && !groups.some((group) => group.includes(floor))) groups.push([floor]);
  let stopTopology: (() => Promise<void>) | undefined;
  if (config.only.has("topology")) {
    const absent = topologyMissing();
    if (absent.length > 0) console.log(`topology group skipped: this machine lacks ${absent.join(" and ")}.`);
    else {
      const topology = await topologyGroups(config, databaseUrl, app, { purchase, list });
      groups.push(...topology.groups);
      stopTopology = topology.stop;
    }
  }
  const results: Array<ScenarioResult & { cpu: CpuReport }> = [];
  const sliceMs = config.durationMs / config.rounds;
  for (const group of groups) {
    const slices = new Map<Scenario, Slice[]>(group.map((scenario) => [scenario, []]));
    const cpu = new Map<Scenario, CpuReport[]>(group.map((scenario) => [scenario, []]));
    process.stdout.write(`running ${group.map((scenario) => scenario.name).join(" / ")} ... `);
    for (let round = 0; round < config.rounds; round++) {
      const order = round % 2 === 0 ? group : [...group].reverse();
      for (const scenario of order) {
        // Each scenario warms up once, before its first slice; its server stays warm after that.
        const warmupMs = (slices.get(scenario)?.length ?? 0) === 0 ? config.warmupMs : 0;
        const measuring = measureCpu(sql, dbName, scenario.server, warmupMs, sliceMs);
        const slice = await runSlice({
          concurrency: config.concurrency,
          warmupMs,
          durationMs: sliceMs,
          next: scenario.next,
          expectStatus: scenario.expectStatus,
        });
        slices.get(scenario)?.push(slice);
        cpu.get(scenario)?.push(await measuring);
      }
    }
    for (const scenario of group) {
      const result = summarize(scenario.name, slices.get(scenario) ?? []);
      results.push({ ...result, cpu: sumCpu(cpu.get(scenario) ?? []) });
    }
    console.log(
      group
        .map(
          (scenario) =>
            `${(results.find((result) => result.name === scenario.name)?.throughput ?? 0).toFixed(0)} req/s`,
        )
        .join(" / "),
    );
  }

  // Its instances' background work (reconcilers, webhook senders) would disturb the groups below.
  await stopTopology?.();

  const answered = (prefix: string) =>
    results
      .filter((result) => result.name.startsWith(prefix))
      .reduce(
        (sum, result) =>
          sum +
          Object.entries(result.statuses)
            .filter(([status]) => status.startsWith("2"))
            .reduce((n, [, count]) => n + count, 0),
        0,
      );
  const violations = await checkInvariants(
    sql,
    answered("purchase") + (config.only.has("spend") ? FUNDING_PURCHASES * orgs.length : 0),
    answered("spend"),
  );

  const byName = (name: string) => results.find((result) => result.name === name);
  const ratios = computeRatios(byName);
  printReport(config, results, ratios, violations);

  // After the invariants above, which count every top-up: its organisations buy too.
  const events = config.only.has("events")
    ? await runEvents({
        databaseUrl,
        appPort: config.appPort,
        concurrency: config.concurrency,
        durationMs: config.durationMs,
        orgs: config.orgs,
      })
    : undefined;
  if (events) printEventsChecks(events);

  // Last: seeding a million rows disturbs the machine, and the invariants above count every top-up.
  const million = config.only.has("million")
    ? await runMillion({ databaseUrl, appPort: config.appPort, appPid: app.pid })
    : undefined;
  if (million) printMillionChecks(million);

  const report = {
    at: new Date().toISOString(),
    machine: { cpus: (await import("node:os")).cpus().length, node: process.version },
    config: { ...config, adminUrl: redactUrl(config.adminUrl) },
    results,
    ratios,
    invariantViolations: violations,
    events,
    million,
    elapsedSeconds: (performance.now() - began) / 1000,
  };
  fs.writeFileSync(path.join(resultsDir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `\nwrote bench/results/latest.json (server logs: bench/results/app.log, bare.log); ${report.elapsedSeconds.toFixed(0)}s in all`,
  );

  const non2xx = results.reduce((sum, result) => sum + result.non2xx, 0);
  const millionFailed = million?.checks.some((check) => check.fatal && !check.pass) ?? false;
  const eventsFailed = events?.checks.some((check) => check.fatal && !check.pass) ?? false;
  return violations.length > 0 || non2xx > 0 || millionFailed || eventsFailed ? 1 : 0;
}

/**
 * The topology group's servers and scenarios: purchases and lists on the app connected directly
 * (the server the other groups measure), on one instance through PgBouncer, and on three instances
 * behind HAProxy through the same PgBouncer, their slices alternating. PgBouncer's and HAProxy's
 * own CPU is counted as other work.
 */
async function topologyGroups(
  config: Config,
  databaseUrl: string,
  app: Server,
  scenarios: {
    purchase: (port: number, tag: string) => () => RequestSpec;
    list: (port: number) => () => RequestSpec;
  },
): Promise<{ groups: Scenario[][]; stop: () => Promise<void> }> {
  const instances: Server[] = [];
  const topology = await startTopology(databaseUrl, async (pooledUrl) => {
    const ports = Array.from({ length: TOPOLOGY_INSTANCES }, (_, index) => config.appPort + 10 + index);
    instances.push(
      ...(await Promise.all(
        ports.map((port, index) =>
          startServer(
            `topology-app${index + 1}`,
            process.execPath,
            [path.join(root, "scripts/next.mjs"), "start", "-p", String(port), "-H", "127.0.0.1"],
            {
              DATABASE_URL: pooledUrl,
              DATABASE_PREPARE: "false",
              PORT: String(port),
              NODE_ENV: "production",
              AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64"),
            },
            port,
            APP_APPLICATION_NAME,
          ),
        ),
      )),
    );
    return ports;
  });
  cleanups.push(topology.stop);
  const [first] = instances;
  if (!first) throw new Error("no topology instance started");
  const onePooled = { ...first, name: "1 instance via PgBouncer" };
  const balanced: Server = {
    ...first,
    name: `${TOPOLOGY_INSTANCES} instances via HAProxy and PgBouncer`,
    pids: instances.map((instance) => instance.pid),
  };
  const onePort = config.appPort + 10;
  const stop = async () => {
    await Promise.all(instances.map((instance) => stopProcessGroup(instance.child, instance.pid)));
    await topology.stop();
  };
  const groups: Scenario[][] = [
    [
      { name: "purchase, 1 instance, direct", server: app, next: scenarios.purchase(config.appPort, "t-direct") },
      { name: "purchase, 1 instance, PgBouncer", server: onePooled, next: scenarios.purchase(onePort, "t-pooled") },
      {
        name: `purchase, ${TOPOLOGY_INSTANCES} instances, HAProxy+PgBouncer`,
        server: balanced,
        next: scenarios.purchase(topology.balancerPort, "t-balanced"),
      },
    ],
    [
      { name: "list, 1 instance, direct", server: app, next: scenarios.list(config.appPort) },
      { name: "list, 1 instance, PgBouncer", server: onePooled, next: scenarios.list(onePort) },
      {
        name: `list, ${TOPOLOGY_INSTANCES} instances, HAProxy+PgBouncer`,
        server: balanced,
        next: scenarios.list(topology.balancerPort),
      },
    ],
  ];
  return { groups, stop };
}

/** Organisations made the way the operator command makes them, each with its own key. */
/** The spend group's funds: each organisation buys this many bundles of 7,500 Points first. */
const FUNDING_PURCHASES = 5;

async function provision(databaseUrl: string, count: number, fundingPurchases: number): Promise<BenchOrg[]> {
  const database = await openDatabase({ url: databaseUrl, maxConnections: 4 });
  try {
    const services = simulatedServices(database.db);
    const orgs: BenchOrg[] = [];
    for (let i = 0; i < count; i++) {
      const created = await createOrganization(services, {
        name: `Bench ${i + 1}`,
        settings: { currency: "USD", apiPurchasesEnabled: true },
        cards: ["visa"],
        defaultCardIndex: 0,
      });
      orgs.push({ id: created.organization.id, apiKey: created.apiKey.apiKey });
      for (let n = 0; n < fundingPurchases; n++) {
        await purchasePoints(services, {
          organization: created.organization,
          request: { points: 7500, reference: `fund-${n}` },
          source: "api",
        });
      }
    }
    return orgs;
  } finally {
    await database.close();
  }
}

/** A production build must exist; a build older than the sources is measured, with a warning. */
function ensureBuild(rebuild: boolean): void {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (!rebuild && fs.existsSync(buildId)) {
    const builtAt = fs.statSync(buildId).mtimeMs;
    const newer = ["app", "lib", "components", "instrumentation.ts", "next.config.ts"]
      .flatMap((entry) => newestFiles(path.join(root, entry)))
      .filter((file) => !file.endsWith(".test.ts") && fs.statSync(file).mtimeMs > builtAt);
    if (newer.length > 0) {
      console.warn(
        `warning: .next is older than ${newer.length} source file(s) (e.g. ${path.relative(root, newer[0] ?? "")}); ` +
          "measuring the existing build. Pass --rebuild to build first.",
      );
    }
    return;
  }
  console.log(
    rebuild ? "building (--rebuild): next build" : "no production build (.next/BUILD_ID missing): running next build",
  );
  const built = spawnSync(process.execPath, [path.join(root, "scripts/next.mjs"), "build"], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (built.status !== 0) throw new Error(`next build failed (exit ${built.status ?? built.signal})`);
}

const cpuProfDir = path.join(resultsDir, "cpu-prof");

function profilerArgs(config: Config): string[] {
  if (!config.cpuProf) return [];
  fs.rmSync(cpuProfDir, { recursive: true, force: true });
  return ["--cpu-prof", "--cpu-prof-dir", cpuProfDir];
}

function newestFiles(entry: string): string[] {
  if (!fs.existsSync(entry)) return [];
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return [entry];
  return fs.readdirSync(entry).flatMap((name) => newestFiles(path.join(entry, name)));
}

interface Scenario {
  name: string;
  server: Server;
  next: () => RequestSpec;
  expectStatus?: number;
}

interface Server {
  name: string;
  child: ChildProcess;
  pid: number;
  /** For a server of several processes (the instances behind the balancer): each one's pid. */
  pids?: number[];
  /** The application_name its Postgres connections carry: how its backends are told apart. */
  applicationName: string;
}

/**
 * Starts a server in its own process group (so it and its children can be stopped together),
 * logs to bench/results/<name>.log, and waits until it answers on 127.0.0.1.
 */
async function startServer(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  applicationName: string,
): Promise<Server> {
  await assertPortFree(port);
  const log = fs.createWriteStream(path.join(resultsDir, `${name}.log`));
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name} server did not start`);
  cleanups.push(() => stopProcessGroup(child, pid));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${name} server exited (${child.exitCode}); see bench/results/${name}.log`);
    try {
      // No key: the route answers 403 once the server and its database are up.
      const response = await fetch(`http://127.0.0.1:${port}/v3/points/payment-methods`);
      await response.text();
      if (response.status === 403) return { name, child, pid, applicationName };
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  throw new Error(`${name} server was not ready within 90s; see bench/results/${name}.log`);
}

async function assertPortFree(port: number): Promise<void> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
  } catch {
    return;
  }
  throw new Error(`Port ${port} is already in use on 127.0.0.1; stop whatever listens there first.`);
}

async function stopProcessGroup(child: ChildProcess, pid: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    // SIGINT: Next.js exits cleanly on it, which is when Node writes a --cpu-prof profile.
    process.kill(-pid, "SIGINT");
  } catch {
    return;
  }
  const timedOut = await Promise.race([exited.then(() => false), sleep(5000).then(() => true)]);
  if (timedOut) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

interface CpuReport {
  /** CPU seconds in the measured window: the server's process tree, its Postgres backends, this process. */
  serverSeconds: number;
  postgresSeconds: number;
  loadGeneratorSeconds: number;
  postgresBackends: number;
  /** Busy CPU seconds of the whole machine, and how much of it was none of the above (other work: noise). */
  machineBusySeconds: number;
  otherSeconds: number;
  machineCapacitySeconds: number;
}

/** Samples CPU at the start and end of the measured window (after the warm-up). */
async function measureCpu(
  sql: postgres.Sql,
  dbName: string,
  server: Server,
  warmupMs: number,
  durationMs: number,
): Promise<CpuReport> {
  await sleep(warmupMs);
  const backends = (
    await sql<{ pid: number }[]>`select pid from pg_stat_activity
      where datname = ${dbName} and application_name = ${server.applicationName}`
  ).map((row) => row.pid);
  const tree = (server.pids ?? [server.pid]).flatMap((pid) => processTree(pid));
  const before = {
    server: cpuSecondsOfAll(tree),
    pg: cpuSecondsOfAll(backends),
    self: process.cpuUsage(),
    machine: machineCpuSeconds(),
  };
  await sleep(durationMs);
  const self = process.cpuUsage(before.self);
  const machine = machineCpuSeconds();
  const serverSeconds = cpuSecondsOfAll(tree) - before.server;
  const postgresSeconds = cpuSecondsOfAll(backends) - before.pg;
  const loadGeneratorSeconds = (self.user + self.system) / 1e6;
  const machineBusySeconds = machine.busy - before.machine.busy;
  return {
    serverSeconds: round(serverSeconds),
    postgresSeconds: round(postgresSeconds),
    loadGeneratorSeconds: round(loadGeneratorSeconds),
    postgresBackends: backends.length,
    machineBusySeconds: round(machineBusySeconds),
    otherSeconds: round(Math.max(0, machineBusySeconds - serverSeconds - postgresSeconds - loadGeneratorSeconds)),
    machineCapacitySeconds: round(machine.total - before.machine.total),
  };
}

function sumCpu(reports: CpuReport[]): CpuReport {
  const total = (pick: (report: CpuReport) => number) => round(reports.reduce((sum, report) => sum + pick(report), 0));
  return {
    serverSeconds: total((report) => report.serverSeconds),
    postgresSeconds: total((report) => report.postgresSeconds),
    loadGeneratorSeconds: total((report) => report.loadGeneratorSeconds),
    postgresBackends: Math.max(0, ...reports.map((report) => report.postgresBackends)),
    machineBusySeconds: total((report) => report.machineBusySeconds),
    otherSeconds: total((report) => report.otherSeconds),
    machineCapacitySeconds: total((report) => report.machineCapacitySeconds),
  };
}

/**
 * The invariants of docs/contract.md §4 on what the run left behind: each paid top-up, the app's
 * and the bare handler's (its provider keys are bare_…), has exactly one charge at the provider.
 */
async function checkInvariants(
  sql: postgres.Sql,
  purchasesAnswered: number,
  spendsAnswered: number,
): Promise<string[]> {
  const violations: string[] = [];
  const balances = await sql<{ id: string; points_balance: number; ledger: string }[]>`
    select o.id, o.points_balance, coalesce(sum(l.delta), 0)::text as ledger
    from organizations o left join points_ledger l on l.organization_id = o.id
    group by o.id`;
  for (const row of balances) {
    if (String(row.points_balance) !== row.ledger) {
      violations.push(`organisation ${row.id}: points_balance ${row.points_balance} != SUM(ledger) ${row.ledger}`);
    }
  }
  const [counts] = await sql<
    {
      top_ups: number;
      not_paid: number;
      app_paid: number;
      ledger_rows: number;
      spends: number;
      usage_rows: number;
      credited_top_ups: number;
      uncredited_paid: number;
      paid: number;
      payments: number;
      matched_payments: number;
    }[]
  >`
    select
      (select count(*)::int from top_ups) as top_ups,
      (select count(*)::int from top_ups where status <> 'paid') as not_paid,
      (select count(*)::int from top_ups where status = 'paid' and provider_idempotency_key like 'topup\\_%') as app_paid,
      (select count(*)::int from top_ups where status = 'paid') as paid,
      (select count(*)::int from points_ledger where kind = 'purchase') as ledger_rows,
      (select count(*)::int from spends) as spends,
      (select count(*)::int from points_ledger where kind = 'usage') as usage_rows,
      (select count(distinct top_up_id)::int from points_ledger) as credited_top_ups,
      (select count(*)::int from top_ups t where status = 'paid'
         and not exists (select 1 from points_ledger l where l.top_up_id = t.id)) as uncredited_paid,
      (select count(*)::int from sim_payments) as payments,
      (select count(*)::int from sim_payments p join top_ups t
         on t.provider_idempotency_key = p.idempotency_key and t.provider_payment_id = p.id and t.status = 'paid') as matched_payments`;
  if (!counts) return [...violations, "invariant query returned nothing"];
  if (counts.not_paid > 0) violations.push(`${counts.not_paid} top-up(s) are not paid`);
  if (counts.ledger_rows !== counts.credited_top_ups) {
    violations.push(`ledger has ${counts.ledger_rows} rows for ${counts.credited_top_ups} top-ups (a double credit)`);
  }
  if (counts.uncredited_paid > 0) violations.push(`${counts.uncredited_paid} paid top-up(s) have no ledger entry`);
  if (counts.payments !== counts.paid || counts.matched_payments !== counts.paid) {
    violations.push(
      `paid top-ups ${counts.paid}, sim_payments ${counts.payments}, matched to their top-up ${counts.matched_payments}: not one charge each`,
    );
  }
  if (counts.spends !== spendsAnswered || counts.usage_rows !== spendsAnswered) {
    violations.push(
      `${spendsAnswered} spends answered 2xx, ${counts.spends} stored, ${counts.usage_rows} ledger rows: not one each`,
    );
  }
  if (counts.top_ups !== purchasesAnswered) {
    violations.push(`${counts.top_ups} top-ups stored but ${purchasesAnswered} purchases answered 2xx`);
  }
  console.log(
    `\ninvariants: ${counts.top_ups} top-ups (${counts.app_paid} by the app; one sim_payment each: ${counts.matched_payments}/${counts.payments}), ` +
      `${counts.ledger_rows} ledger rows, ${balances.length} balances checked: ${violations.length ? "VIOLATED" : "hold"}`,
  );
  return violations;
}

interface Ratio {
  name: string;
  value: number;
  target: string;
  pass: boolean;
  /** How the value was reached, from this run's figures. */
  from?: string;
}

type Measured = ScenarioResult & { cpu: CpuReport };

/** CPU milliseconds per request: the server's process tree, or its Postgres backends. */
function cpuMsPerRequest(result: Measured | undefined, of: "serverSeconds" | "postgresSeconds"): number {
  return result?.requests ? (result.cpu[of] * 1000) / result.requests : Number.NaN;
}

/**
 * Issue 28's targets (issue 18's, raised), from one run. The bound for a Next.js app is a route doing exactly the bare
 * handler's work: its time per request is Next.js's own (the floor) plus the bare handler's, so
 * its throughput is 1 / (1/floor + 1/bare).
 */
function computeRatios(byName: (name: string) => Measured | undefined): Ratio[] {
  const floor = byName("floor (app, 404, no DB)");
  const bound = (bare: Measured | undefined) =>
    floor && bare ? 1 / (1 / floor.throughput + 1 / bare.throughput) : Number.NaN;
  const ratios: Ratio[] = [];
  for (const [scenario, target] of [
    ["purchase", 0.7],
    ["list", 1.0],
    ["spend", 0.8],
  ] as const) {
    const app = byName(`${scenario} (app)`);
    const limit = bound(byName(`${scenario} (bare)`));
    const value = app ? app.throughput / limit : Number.NaN;
    ratios.push({
      name: `${scenario} throughput / bound`,
      value: round(value),
      target: `>= ${target}`,
      pass: value >= target,
      from: `${app?.throughput.toFixed(0)} req/s of a bound of ${limit.toFixed(0)}`,
    });
  }
  const purchaseApp = byName("purchase (app)");
  const purchaseBare = byName("purchase (bare)");
  const serverAboveFloor = cpuMsPerRequest(purchaseApp, "serverSeconds") - cpuMsPerRequest(floor, "serverSeconds");
  ratios.push({
    name: "purchase server CPU above floor",
    value: round(serverAboveFloor),
    target: "<= 1.5 ms",
    pass: serverAboveFloor <= 1.5,
    from: `${cpuMsPerRequest(purchaseApp, "serverSeconds").toFixed(2)} ms - ${cpuMsPerRequest(floor, "serverSeconds").toFixed(2)} ms`,
  });
  const postgres = cpuMsPerRequest(purchaseApp, "postgresSeconds") / cpuMsPerRequest(purchaseBare, "postgresSeconds");
  ratios.push({
    name: "purchase Postgres CPU app/bare",
    value: round(postgres),
    target: "<= 2",
    pass: postgres <= 2,
    from: `${cpuMsPerRequest(purchaseApp, "postgresSeconds").toFixed(2)} ms / ${cpuMsPerRequest(purchaseBare, "postgresSeconds").toFixed(2)} ms`,
  });
  const p99 = purchaseApp && purchaseBare ? purchaseApp.latencyMs.p99 / purchaseBare.latencyMs.p99 : Number.NaN;
  ratios.push({
    name: "purchase p99 app/bare",
    value: round(p99),
    target: "<= 2.5",
    pass: p99 <= 2.5,
    from: `${purchaseApp?.latencyMs.p99.toFixed(0)} ms / ${purchaseBare?.latencyMs.p99.toFixed(0)} ms`,
  });
  // A group left out with --only has no ratio to report.
  return ratios.filter((entry) => Number.isFinite(entry.value));
}

function printReport(
  config: Config,
  results: Array<ScenarioResult & { cpu: CpuReport }>,
  ratios: Ratio[],
  violations: string[],
): void {
  if (results.length === 0) {
    console.log(`${violations.length === 0 ? "PASS" : "FAIL"}  invariants${violations.length ? "" : " hold"}`);
    for (const violation of violations) console.log(`  ${violation}`);
    return;
  }
  console.log(
    `\n${config.concurrency} in flight, ${config.warmupMs / 1000}s warm-up + ${config.durationMs / 1000}s measured, ` +
      `${config.orgs} organisations round-robin, ${config.rounds} alternating slices per scenario\n`,
  );
  const header = [
    "scenario",
    "req/s",
    "p50 ms",
    "p95 ms",
    "p99 ms",
    "max ms",
    "failed/sent",
    "CPU ms/req srv|pg|gen",
    "machine busy|other",
  ];
  const rows = results.map((result) => {
    const perRequest = (seconds: number) => (result.requests ? ((seconds * 1000) / result.requests).toFixed(2) : "-");
    return [
      result.name,
      result.throughput.toFixed(0),
      result.latencyMs.p50.toFixed(1),
      result.latencyMs.p95.toFixed(1),
      result.latencyMs.p99.toFixed(1),
      result.latencyMs.max.toFixed(1),
      `${result.non2xx}/${result.total}`,
      `${perRequest(result.cpu.serverSeconds)}|${perRequest(result.cpu.postgresSeconds)}|${perRequest(result.cpu.loadGeneratorSeconds)}`,
      `${percent(result.cpu.machineBusySeconds, result.cpu.machineCapacitySeconds)}|${percent(result.cpu.otherSeconds, result.cpu.machineCapacitySeconds)}`,
    ];
  });
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  console.log(
    "CPU ms/req: the server's process tree | its Postgres backends (its connections, by application_name) | this load generator.\nmachine busy: all cores; " +
      "other: busy time that was none of those: Postgres's own background work (autovacuum, the WAL writer) or another\nworkload on the machine, which makes the numbers noisy.\n",
  );
  for (const ratio of ratios) {
    console.log(
      `${ratio.pass ? "PASS" : "MISS"}  ${ratio.name.padEnd(32)} ${String(ratio.value).padStart(6)}  (target ${ratio.target})` +
        (ratio.from ? `  ${ratio.from}` : ""),
    );
  }
  const non2xx = results.reduce((sum, result) => sum + result.non2xx, 0);
  console.log(
    `${non2xx === 0 ? "PASS" : "FAIL"}  ${"unexpected (non-2xx) answers".padEnd(32)} ${String(non2xx).padStart(6)}  (target 0)`,
  );
  for (const result of results) {
    for (const sample of result.samples) console.log(`  ${result.name}: ${sample}`);
  }
  const noisy = results.filter(
    (result) =>
      result.cpu.machineCapacitySeconds > 0 && result.cpu.otherSeconds / result.cpu.machineCapacitySeconds > 0.2,
  );
  if (noisy.length > 0) {
    console.log(
      `note: other work used over 20% of the machine during ${noisy.map((result) => result.name).join(", ")}; ` +
        "the ratios are unreliable, run again on a quiet machine.",
    );
  }
  console.log(`${violations.length === 0 ? "PASS" : "FAIL"}  invariants${violations.length ? "" : " hold"}`);
  for (const violation of violations) console.log(`  ${violation}`);
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : "-";
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main()
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  })
  .catch(async (error: unknown) => {
    console.error("\nbench failed:", error instanceof Error ? error.message : error);
    await cleanup();
    process.exit(2);
  });
