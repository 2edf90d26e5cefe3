/**
 * `npm test`: every suite, in order, each phase's name, count and time printed as it ends, and one
 * summary line at the end (`tests: N passed, N failed`):
 *   1. vitest: unit and service tests (PGlite; also Postgres and the race tests when a server is given);
 *   2. next build: the HTTP and browser tests run against a production build;
 *   3. Playwright: HTTP contract tests, and the dashboard in Chromium when it is installed;
 *   4. the HTTP contract tests again with Stripe as the billing provider, against the test server;
 *   5. the topology (e2e/topology/run.ts): three instances of that build behind HAProxy, through
 *      PgBouncer, restarted and faulted under load; only with Postgres, HAProxy and PgBouncer here.
 *
 * `npm run test:quick` (`--quick`) checks a checkout in a few minutes: lint, types, and the service
 * tests on the embedded database only.
 *
 * A Postgres server is taken from TEST_DATABASE_URL, or else DATABASE_URL; the suites create
 * their own databases on it and drop them. Without one, the Postgres-only suites are left out
 * and everything else runs on the embedded PGlite.
 *
 * Ctrl-C (or SIGTERM) stops the running phase's whole process group, and with it every server the
 * phase started, before this exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { readOrCreateDevSecret } from "@/lib/auth/secret";
import { haproxyPath } from "@/lib/testing/haproxy";
import { pgbouncerPath } from "@/lib/testing/pgbouncer";
import { postgresBinDir } from "@/lib/testing/postgres-cluster";

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  /** Each failed test's name and the first line of its error, repeated in the summary at the end. */
  failures?: string[];
}

const root = process.cwd();
const artifacts = path.join(root, "e2e", ".artifacts");
fs.mkdirSync(artifacts, { recursive: true });

const quick = process.argv.includes("--quick");
const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const server = quick ? undefined : env.TEST_DATABASE_URL || env.DATABASE_URL;
// The suites make databases of their own; nothing they start may touch DATABASE_URL's.
delete env.DATABASE_URL;
delete env.TEST_DATABASE_URL;
if (server) env.TEST_DATABASE_URL = server;

/** The phase running now: its own process group, so that Ctrl-C can stop all it started. */
let running: ChildProcess | null = null;
let interrupted = false;

function run(command: string, args: string[], extraEnv: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit", env: { ...env, ...extraEnv }, detached: true });
    running = child;
    child.on("exit", (code, signal) => {
      running = null;
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/**
 * Stops the running phase: the signal to its whole group, so Playwright tears its web server down
 * and vitest its workers; whatever is left 15 s later is killed.
 */
function stopRunning(signal: NodeJS.Signals): void {
  interrupted = true;
  const child = running;
  if (!child?.pid) process.exit(130);
  const group = -child.pid;
  const send = (which: NodeJS.Signals) => {
    try {
      process.kill(group, which);
    } catch {
      // The group has already exited.
    }
  };
  send(signal);
  const force = setTimeout(() => send("SIGKILL"), 15_000);
  child.once("exit", () => {
    clearTimeout(force);
    // Anything of the group still alive (a server whose parent exited first) goes too.
    send("SIGKILL");
    console.error(`\nnpm test: stopped by ${signal}.`);
    process.exit(130);
  });
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stopRunning(signal));

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

/** A failure as one line: where, and the first line of what went wrong (without terminal colours). */
function failureLine(name: string, message: string | undefined): string {
  const first = stripVTControlCharacters(message ?? "")
    .split("\n")
    .find((line) => line.trim() !== "");
  return first ? `${name}: ${first.trim().slice(0, 200)}` : name;
}

function vitestCounts(file: string): Counts | null {
  const report = readJson(file) as {
    numPassedTests?: number;
    numFailedTests?: number;
    numPendingTests?: number;
    numTodoTests?: number;
    testResults?: {
      name?: string;
      message?: string;
      assertionResults?: { status?: string; fullName?: string; failureMessages?: string[] }[];
    }[];
  } | null;
  if (!report) return null;
  const failures: string[] = [];
  for (const file of report.testResults ?? []) {
    const where = path.relative(root, file.name ?? "");
    const failed = (file.assertionResults ?? []).filter((test) => test.status === "failed");
    for (const test of failed) failures.push(failureLine(`${where} › ${test.fullName}`, test.failureMessages?.[0]));
    // A file that failed before any test ran (an import, a hook) has its error on the file.
    if (failed.length === 0 && file.message) failures.push(failureLine(where, file.message));
  }
  return {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    failures,
  };
}

function topologyCounts(file: string): Counts | null {
  const report = readJson(file) as {
    passed?: number;
    failed?: number;
    steps?: { name: string; passed: boolean; failures: string[] }[];
  } | null;
  if (!report) return null;
  const failures = (report.steps ?? [])
    .filter((step) => !step.passed)
    .map((step) => failureLine(step.name, step.failures[0]));
  return { passed: report.passed ?? 0, failed: report.failed ?? 0, skipped: 0, failures };
}

interface PlaywrightSuite {
  title?: string;
  file?: string;
  suites?: PlaywrightSuite[];
  specs?: {
    title: string;
    file?: string;
    line?: number;
    tests?: { projectName?: string; status?: string; results?: { error?: { message?: string } }[] }[];
  }[];
}

/** Every test that failed, or passed only on a retry, as `[project] file:line › title: error`. */
function playwrightFailures(suites: PlaywrightSuite[], titles: string[] = []): string[] {
  const failures: string[] = [];
  for (const suite of suites) {
    const inner = suite.file && suite.title === suite.file ? titles : [...titles, suite.title ?? ""];
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== "unexpected" && test.status !== "flaky") continue;
        const error = test.results?.find((result) => result.error)?.error?.message;
        const title = [...inner, spec.title].filter(Boolean).join(" › ");
        const flaky = test.status === "flaky" ? " (passed on a retry)" : "";
        failures.push(failureLine(`[${test.projectName}] ${spec.file}:${spec.line} › ${title}${flaky}`, error));
      }
    }
    failures.push(...playwrightFailures(suite.suites ?? [], inner));
  }
  return failures;
}

function playwrightCounts(file: string): Counts | null {
  const report = readJson(file) as {
    stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number };
    suites?: PlaywrightSuite[];
    errors?: { message?: string }[];
  } | null;
  if (!report?.stats) return null;
  const { expected = 0, unexpected = 0, flaky = 0, skipped = 0 } = report.stats;
  const failures = [
    ...playwrightFailures(report.suites ?? []),
    ...(report.errors ?? []).map((error) => failureLine("outside any test", error.message)),
  ];
  return { passed: expected, failed: unexpected + flaky, skipped, failures };
}

async function main(): Promise<void> {
  const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
  const totals: Counts = { passed: 0, failed: 0, skipped: 0 };
  const phases: string[] = [];
  const failures: string[] = [];
  const started = Date.now();

  /** Runs one phase, adds its counts, and prints its name, counts and time as it ends. */
  async function phase(
    label: string,
    runIt: () => Promise<{ exitCode: number; counts: Counts | null }>,
  ): Promise<boolean> {
    const phaseStart = Date.now();
    const { exitCode, counts } = await runIt();
    if (interrupted) return false;
    const line = counts
      ? `${label}: ${counts.passed} passed, ${counts.failed + (exitCode !== 0 && counts.failed === 0 ? 1 : 0)} failed${counts.skipped ? `, ${counts.skipped} skipped` : ""} in ${duration(Date.now() - phaseStart)}`
      : `${label}: ${exitCode === 0 ? "ok" : `failed (exit ${exitCode})`} in ${duration(Date.now() - phaseStart)}`;
    phases.push(line);
    console.log(`\n── ${line}`);
    if (counts) {
      totals.passed += counts.passed;
      totals.failed += counts.failed + (exitCode !== 0 && counts.failed === 0 ? 1 : 0);
      totals.skipped += counts.skipped;
      failures.push(...(counts.failures ?? []).map((failure) => `${label}: ${failure}`));
    } else if (exitCode !== 0) {
      totals.failed += 1;
    }
    return exitCode === 0;
  }
  const missingReport = (label: string, exitCode: number) =>
    console.error(`\n${label}: no report was written (exit ${exitCode}); counting it as one failure.`);

  async function vitest(label: string, extraEnv: Record<string, string> = {}): Promise<void> {
    const report = path.join(artifacts, "vitest.json");
    fs.rmSync(report, { force: true });
    await phase(label, async () => {
      const exitCode = await run(
        bin("vitest"),
        ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`],
        extraEnv,
      );
      const counts = vitestCounts(report);
      if (!counts) missingReport(label, exitCode);
      return { exitCode, counts: counts ?? { passed: 0, failed: 1, skipped: 0 } };
    });
  }

  async function playwright(label: string, file: string, extraEnv: Record<string, string> = {}): Promise<void> {
    const report = path.join(artifacts, file);
    fs.rmSync(report, { force: true });
    await phase(label, async () => {
      const exitCode = await run(bin("playwright"), ["test", "--reporter=list,json"], {
        PLAYWRIGHT_JSON_OUTPUT_NAME: report,
        ...extraEnv,
      });
      const counts = playwrightCounts(report);
      if (!counts) missingReport(label, exitCode);
      return { exitCode, counts: counts ?? { passed: 0, failed: 1, skipped: 0 } };
    });
  }

  /** Its own Postgres cluster, PgBouncer and HAProxy: only where the server binaries and both are installed. */
  async function topology(): Promise<void> {
    const absent = [
      server ? null : "Postgres (TEST_DATABASE_URL)",
      postgresBinDir() ? null : "the Postgres server binaries",
      pgbouncerPath() ? null : "PgBouncer",
      haproxyPath() ? null : "HAProxy",
    ].filter(Boolean);
    if (absent.length > 0) {
      console.log(`\nTopology phase left out: no ${absent.join(", ")}.`);
      return;
    }
    const report = path.join(artifacts, "topology.json");
    fs.rmSync(report, { force: true });
    console.log("\nThe topology: three instances behind HAProxy, through PgBouncer, restarted and faulted under load:");
    await phase("topology", async () => {
      const exitCode = await run(bin("tsx"), [path.join(root, "e2e", "topology", "run.ts")]);
      const counts = topologyCounts(report);
      if (!counts) missingReport("topology", exitCode);
      return { exitCode, counts: counts ?? { passed: 0, failed: 1, skipped: 0 } };
    });
  }

  if (quick) {
    console.log("Quick check: lint, types, and the service tests on the embedded database (PGlite).");
    await phase("lint", async () => ({ exitCode: await run(bin("biome"), ["check", "."]), counts: null }));
    await phase("types", async () => ({ exitCode: await run(bin("tsc"), ["--noEmit"]), counts: null }));
    await vitest("vitest (PGlite)");
  } else {
    console.log(
      server ? `Postgres for the suites: ${new URL(server).host}` : "No Postgres given: running on PGlite only.",
    );
    await vitest(server ? "vitest (PGlite and Postgres)" : "vitest (PGlite)");
    // Built as in a developer's checkout, where `npm run dev` has generated its secret: so that
    // e2e/server/security.spec.ts would see the file if the build traced it into the server's output.
    readOrCreateDevSecret();
    const built =
      !interrupted &&
      (await phase("next build", async () => ({ exitCode: await run(bin("next"), ["build"]), counts: null })));
    if (!built && !interrupted) console.error("\nnext build failed: the HTTP and browser suites cannot run.");
    if (built) {
      await playwright("playwright (simulated provider)", "playwright.json");
      // The same HTTP contract suite with Stripe as the billing provider, against the test server.
      if (!interrupted) {
        console.log(
          "\nThe HTTP contract suite again, and Stripe's browser journeys, with Stripe as the billing provider (the test server):",
        );
        await playwright("playwright (Stripe)", "playwright-stripe.json", { E2E_PROVIDER: "stripe" });
      }
      if (!interrupted) await topology();
    }
  }
  if (interrupted) return;

  console.log(`\n${phases.map((line) => `  ${line}`).join("\n")}\n  total: ${duration(Date.now() - started)}`);
  if (failures.length > 0) console.log(`\nFailed:\n${failures.map((failure) => `  ✗ ${failure}`).join("\n")}`);
  const skipped = totals.skipped ? `, ${totals.skipped} skipped` : "";
  console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed${skipped}`);
  process.exit(totals.failed > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
