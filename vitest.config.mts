import fs from "node:fs";
import { defineConfig } from "vitest/config";

// *.pg.test.ts need a real Postgres server (races, row locks, several pools): they run when
// TEST_DATABASE_URL is set, as in CI, and are left out on a laptop without Postgres.
// Server actions are tested beside them, in app/; server-rendered components in components/.
// *.pooler.test.ts need PgBouncer too (a transaction-mode pooler in front of that server): they run
// when both are there, as in CI (.ci/run installs Debian's pgbouncer).
const include = ["lib/**/*.test.ts", "app/**/*.test.ts", "components/**/*.test.{ts,tsx}"];
const pgbouncer = [process.env.PGBOUNCER_PATH, "/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].some(
  (file) => file && fs.existsSync(file),
);
const exclude = [
  ...(process.env.TEST_DATABASE_URL ? [] : ["**/*.pg.test.ts"]),
  ...(process.env.TEST_DATABASE_URL && pgbouncer ? [] : ["lib/**/*.pooler.test.ts"]),
];

// Test files share their worker process (isolate: false): each file's own import of the app's
// modules and PGlite's WebAssembly was a quarter of the run. The files that replace modules
// (vi.mock) or delete process-wide settings run in a process of their own, as before.
const isolated = [
  "lib/auth/secret.test.ts",
  "lib/dashboard/session.test.ts",
  "lib/dashboard/admin-action.test.ts",
  "app/(dashboard)/dashboard/payment-details/actions.test.ts",
];

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Three at once on two cores: a file often waits on Postgres, a test server or a child process.
    maxWorkers: 3,
    // The service's log lines (lib/observability/log.ts) stay out of test output unless asked for.
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" },
    // vi.stubEnv lasts one test, so a shared process hands the next file the environment it had.
    unstubEnvs: true,
    projects: [
      {
        extends: true,
        test: { name: "shared", isolate: false, include, exclude: ["**/node_modules/**", ...exclude, ...isolated] },
      },
      { extends: true, test: { name: "isolated", include: isolated, isolate: true } },
    ],
  },
});
