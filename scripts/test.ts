/**
 * `npm test`: every suite, in order, with one summary line at the end.
 *   1. vitest: unit and service tests (PGlite; also Postgres and the race tests when a server is given);
 *   2. next build: the HTTP and browser tests run against a production build;
 *   3. Playwright: HTTP contract tests, and the dashboard in Chromium when it is installed;
 *   4. the HTTP contract tests again with Stripe as the billing provider, against the test server.
 *
 * A Postgres server is taken from TEST_DATABASE_URL, or else DATABASE_URL; the suites create
 * their own databases on it and drop them. Without one, the Postgres-only suites are left out
 * and everything else runs on the embedded PGlite.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

const root = process.cwd();
const artifacts = path.join(root, "e2e", ".artifacts");
fs.mkdirSync(artifacts, { recursive: true });

const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const server = env.TEST_DATABASE_URL || env.DATABASE_URL;
// The suites make databases of their own; nothing they start may touch DATABASE_URL's.
delete env.DATABASE_URL;
if (server) env.TEST_DATABASE_URL = server;

function run(command: string, args: string[], extraEnv: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit", env: { ...env, ...extraEnv } });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

function vitestCounts(file: string): Counts | null {
  const report = readJson(file) as {
    numPassedTests?: number;
    numFailedTests?: number;
    numPendingTests?: number;
    numTodoTests?: number;
  } | null;
  if (!report) return null;
  return {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

function playwrightCounts(file: string): Counts | null {
  const report = readJson(file) as { stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number } } | null;
  if (!report?.stats) return null;
  const { expected = 0, unexpected = 0, flaky = 0, skipped = 0 } = report.stats;
  return { passed: expected, failed: unexpected + flaky, skipped };
}

async function main(): Promise<void> {
  const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
  const totals: Counts = { passed: 0, failed: 0, skipped: 0 };
  const add = (counts: Counts | null, exitCode: number, label: string) => {
    if (!counts) {
      console.error(`\n${label}: no report was written (exit ${exitCode}); counting it as one failure.`);
      totals.failed += 1;
      return;
    }
    totals.passed += counts.passed;
    totals.failed += counts.failed + (exitCode !== 0 && counts.failed === 0 ? 1 : 0);
    totals.skipped += counts.skipped;
  };

  console.log(server ? `Postgres for the suites: ${new URL(server).host}` : "No Postgres given: running on PGlite only.");

  const vitestReport = path.join(artifacts, "vitest.json");
  fs.rmSync(vitestReport, { force: true });
  const vitestExit = await run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${vitestReport}`]);
  add(vitestCounts(vitestReport), vitestExit, "vitest");

  const buildExit = await run(bin("next"), ["build"]);
  if (buildExit !== 0) {
    console.error("\nnext build failed: the HTTP and browser suites cannot run.");
    totals.failed += 1;
  } else {
    const playwrightReport = path.join(artifacts, "playwright.json");
    fs.rmSync(playwrightReport, { force: true });
    const playwrightExit = await run(bin("playwright"), ["test", "--reporter=list,json"], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
    });
    add(playwrightCounts(playwrightReport), playwrightExit, "playwright");

    // The same HTTP contract suite with Stripe as the billing provider, against the test server.
    const stripeReport = path.join(artifacts, "playwright-stripe.json");
    fs.rmSync(stripeReport, { force: true });
    console.log("\nThe HTTP contract suite again, and Stripe's browser journeys, with Stripe as the billing provider (the test server):");
    const stripeExit = await run(bin("playwright"), ["test", "--reporter=list,json"], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: stripeReport,
      E2E_PROVIDER: "stripe",
    });
    add(playwrightCounts(stripeReport), stripeExit, "playwright (Stripe)");
  }

  const skipped = totals.skipped ? `, ${totals.skipped} skipped` : "";
  console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed${skipped}`);
  process.exit(totals.failed > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
