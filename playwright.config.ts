import { defineConfig } from "@playwright/test";

/** E2E_PORT lets two checkouts run their suites side by side. */
const PORT = Number(process.env.E2E_PORT ?? 3100);

/**
 * End-to-end tests against `next start` on a freshly provisioned database (e2e/serve.ts).
 * The `api` project speaks HTTP only; browser projects for the dashboard are added beside it.
 */
const stripe = process.env.E2E_PROVIDER === "stripe";

/** Debian's Chromium: Playwright cannot download its own browsers on these machines. */
const browser = {
  browserName: "chromium" as const,
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
  screenshot: "only-on-failure" as const,
  trace: "retain-on-failure" as const,
};

/**
 * A browser journey signs in, walks several pages and often runs axe: 10 to 20 s on a quiet 2-core
 * machine, two to three times that when the machine is shared. The HTTP projects keep 30 s.
 */
const BROWSER_TIMEOUT = 60_000;

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
    // With E2E_PROVIDER=stripe the server bills through Stripe (the test server): the browser
    // journeys that only Stripe has (Checkout, 3-D Secure on the bank's page) run then, and the
    // simulated provider's journeys do not.
    ...(stripe
      ? [
          {
            name: "stripe-dashboard",
            testMatch: "**/e2e/stripe/**/*.spec.ts",
            use: browser,
            timeout: BROWSER_TIMEOUT,
          },
          // `npm run stripe:fake` as a person runs it, beside its own `next start` (ports E2E_PORT+60…69).
          { name: "stripe-fake", testMatch: "**/e2e/stripe-fake/**/*.spec.ts" },
          // Last: reads the test server's log of every webhook delivery the whole run made.
          {
            name: "stripe-deliveries",
            testMatch: "**/e2e/stripe-deliveries/**/*.spec.ts",
            dependencies: ["api", "stripe-dashboard"],
          },
          // Last on the app's server: reads its log of the whole run (e2e/serve.ts tees it to a file).
          // After the deliveries too: it counts the purchases it makes, so no other project may buy meanwhile.
          {
            name: "observability",
            testMatch: "**/e2e/observability/**/*.spec.ts",
            dependencies: ["api", "stripe-dashboard", "stripe-deliveries"],
          },
        ]
      : [
          // Production servers of their own (startup refusals, signals, the drain, the standalone image)
          // and the per-address sign-in limits: none of it depends on the provider the Playwright
          // server bills with (the drain specs bill through the Stripe test server in both runs), so
          // it runs once, here.
          { name: "server", testMatch: "**/e2e/server/**/*.spec.ts" },
          { name: "dashboard", testMatch: "**/e2e/dashboard/**/*.spec.ts", use: browser, timeout: BROWSER_TIMEOUT },
          // The main journeys again on a phone: 390 px wide, touch.
          {
            name: "phone",
            testMatch: "**/e2e/phone/**/*.spec.ts",
            timeout: BROWSER_TIMEOUT,
            use: {
              ...browser,
              viewport: { width: 390, height: 844 },
              isMobile: true,
              hasTouch: true,
              deviceScaleFactor: 2,
            },
          },
          // Last on the app's server: reads its log of the whole run (e2e/serve.ts tees it to a file).
          {
            name: "observability",
            testMatch: "**/e2e/observability/**/*.spec.ts",
            dependencies: ["api", "server", "dashboard", "phone"],
          },
          // `next dev` started twice: it compiles on both cores, so it runs once the rest is done.
          {
            name: "dev",
            testMatch: "**/e2e/dev/**/*.spec.ts",
            use: browser,
            dependencies: ["api", "server", "dashboard", "phone"],
          },
        ]),
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
