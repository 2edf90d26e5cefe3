import { defineConfig } from "vitest/config";

// *.pg.test.ts need a real Postgres server (races, row locks, several pools): they run when
// TEST_DATABASE_URL is set, as in CI, and are left out on a laptop without Postgres.
// Server actions are tested beside them, in app/; server-rendered components in components/.
const include = ["lib/**/*.test.ts", "app/**/*.test.ts", "components/**/*.test.{ts,tsx}"];
const exclude = process.env.TEST_DATABASE_URL ? [] : ["lib/**/*.pg.test.ts"];

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    include,
    exclude: ["**/node_modules/**", ...exclude],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The service's log lines (lib/observability/log.ts) stay out of test output unless asked for.
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" },
  },
});
