import { defineConfig } from "@playwright/test";

/** E2E_PORT lets two checkouts run their suites side by side. */
const PORT = Number(process.env.E2E_PORT ?? 3100);

/**
 * End-to-end tests against `next start` on a freshly provisioned database (e2e/serve.ts).
 * The `api` project speaks HTTP only; browser projects for the dashboard are added beside it.
 */
export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/.artifacts/test-results",
  reporter: [["list"]],
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 30_000,
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
  },
  projects: [
    {
      name: "api",
      testMatch: "**/e2e/api/**/*.spec.ts",
    },
    {
      // Debian's Chromium: Playwright cannot download its own browsers on these machines.
      name: "dashboard",
      testMatch: "**/e2e/dashboard/**/*.spec.ts",
      use: {
        browserName: "chromium",
        viewport: { width: 1280, height: 900 },
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        },
        screenshot: "only-on-failure",
        trace: "retain-on-failure",
      },
    },
  ],
  webServer: {
    command: "npx tsx e2e/serve.ts",
    // 403 without a key means the app, its database and its routes are all up.
    url: `http://127.0.0.1:${PORT}/v3/points/payment-methods`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: "pipe",
    stderr: "pipe",
    // SIGTERM (not the default SIGKILL) lets serve.ts drop its database or temporary directory.
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
  },
});
