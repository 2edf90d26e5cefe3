/**
 * The Playwright web server: a fresh database provisioned with every fixture organisation, then
 * `next start -p $E2E_PORT` (3100 by default) on it. Run by playwright.config.ts as `npx tsx e2e/serve.ts`.
 *
 * With TEST_DATABASE_URL a new database is created on that server (and dropped on exit); without
 * it a temporary PGlite directory is used (and removed on exit), so a laptop needs no Postgres.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readOrCreateDevSecret } from "@/lib/auth/secret";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { createStripeClient } from "@/lib/billing/stripe/client";
import { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import { systemClock } from "@/lib/clock";
import { openDatabase } from "@/lib/db/client";
import { migratePglite } from "@/lib/db/migrate";
import { randomString } from "@/lib/ids";
import { createApiKey, revokeApiKey } from "@/lib/points/accounts/api-keys";
import { type CreateOrganizationInput, createOrganization } from "@/lib/points/accounts/organizations";
import { type FakeStripe, newWebhookSecret, startFakeStripe } from "@/lib/testing/fake-stripe/server";
import { createScratchDatabase, simulatedServices } from "@/lib/testing/scratch-database";
import { addEndpoint } from "@/lib/webhooks/endpoints";
import { provisionScopedKeysFixtures } from "./api/scoped-keys.fixtures";
import { provisionSpendsFixtures } from "./api/spends.fixtures";
import { provisionAccountFixtures } from "./dashboard/account.fixtures";
import { provisionAfterPaymentFixtures } from "./dashboard/after-payment.fixtures";
import { provisionAutoRechargeFixtures } from "./dashboard/auto-recharge.fixtures";
import { provisionBillingProblemFixtures } from "./dashboard/billing-problem.fixtures";
import { provisionBuyFixtures } from "./dashboard/buy.fixtures";
import { provisionDashboardSpendsFixtures } from "./dashboard/spends.fixtures";
import {
  type E2eFixtures,
  FIXTURE_ORGANIZATIONS,
  type FixtureOrganization,
  type FixtureOrganizationName,
} from "./fixture-types";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const ROOT = process.cwd();
const ARTIFACTS = path.join(ROOT, "e2e", ".artifacts");
const FIXTURES_FILE = path.join(ARTIFACTS, "fixtures.json");
/** Everything the server prints, for e2e/observability to read (its log lines, and the secrets it must not hold). */
const SERVER_LOG = path.join(ARTIFACTS, "server.log");
/** What `npm run build` and `npm start` run (package.json): the Next.js CLI with our defaults. */
const NEXT = path.join(ROOT, "scripts", "next.mjs");

const ALL_CARDS = [
  "visa",
  "mastercard",
  "declined",
  "insufficient_funds",
  "authentication_required",
  "processing",
  "expired",
];
const enabledUsd = { currency: "USD", apiPurchasesEnabled: true } as const;

/** Every scenario's organisation, as an operator would provision it. */
const scenarios: Record<FixtureOrganizationName, Omit<CreateOrganizationInput, "name">> = {
  main: { settings: enabledUsd, cards: ALL_CARDS, defaultCardIndex: 0 },
  other: { settings: enabledUsd, cards: ["visa"], defaultCardIndex: 0 },
  // A saved currency other than USD proves an omitted currency is the organisation's, not a default.
  balance: { settings: { currency: "GBP", apiPurchasesEnabled: true }, cards: ["visa"], defaultCardIndex: 0 },
  concurrent: { settings: enabledUsd, cards: ["visa"], defaultCardIndex: 0 },
  defaults: { settings: enabledUsd, cards: ["visa", "mastercard"], defaultCardIndex: 0 },
  // Each refusing organisation also fails every later check, so only the order of checks decides.
  disabled: { settings: { apiPurchasesEnabled: false }, cards: [], simulateOutage: true },
  unavailable: { settings: { apiAvailable: false, apiPurchasesEnabled: false }, cards: [], simulateOutage: true },
  unavailableEnabled: { settings: { ...enabledUsd, apiAvailable: false }, cards: ["visa"], defaultCardIndex: 0 },
  noCurrency: { settings: { apiPurchasesEnabled: true }, cards: ["visa", "mastercard"] },
  severalNoDefault: { settings: enabledUsd, cards: ["visa", "mastercard"] },
  singleCard: { settings: enabledUsd, cards: ["mastercard"] },
  noCards: { settings: enabledUsd, cards: [] },
  expiredOnly: { settings: enabledUsd, cards: ["expired"], defaultCardIndex: 0 },
  outage: { settings: { apiPurchasesEnabled: true }, cards: ["visa"], defaultCardIndex: 0, simulateOutage: true },
  maxPerTopUp: { settings: { ...enabledUsd, maxPointsPerTopUp: 500 }, cards: ["visa"], defaultCardIndex: 0 },
  maxBalance: { settings: { ...enabledUsd, maxPointsBalance: 600 }, cards: ["visa"], defaultCardIndex: 0 },
  frequency: {
    settings: { ...enabledUsd, frequencyLimit: { count: 2, windowSeconds: 3600 }, maxPointsPerTopUp: 5000 },
    cards: ["visa", "declined"],
    defaultCardIndex: 0,
  },
  daily: { settings: { ...enabledUsd, dailyPointsLimit: 1000 }, cards: ["visa", "declined"], defaultCardIndex: 0 },
  // The README's limits walkthrough: its `org create` flags, as settings.
  readmeLimits: {
    settings: { ...enabledUsd, maxPointsPerTopUp: 1000, frequencyLimit: { count: 3, windowSeconds: 60 } },
    cards: ["visa"],
    defaultCardIndex: 0,
  },
  // e2e/api/balance-and-quotes.spec.ts: every limit set, so the balance lists each and a quote meets each.
  balanceQuotes: {
    settings: {
      ...enabledUsd,
      maxPointsPerTopUp: 1000,
      maxPointsBalance: 5000,
      frequencyLimit: { count: 2, windowSeconds: 3600 },
      dailyPointsLimit: 2000,
    },
    cards: ["visa", "mastercard", "declined"],
    defaultCardIndex: 0,
  },
  // e2e/stripe-deliveries: purchases and a card whose webhooks the test server's log is read for.
  webhooks: { settings: enabledUsd, cards: ["visa", "authentication_required"], defaultCardIndex: 0 },
  // e2e/api/read-top-ups: purchases only its spec makes, so listing them all is deterministic.
  reads: { settings: enabledUsd, cards: ["visa", "declined", "authentication_required"], defaultCardIndex: 0 },
  // e2e/api/events.spec.ts: purchases only its spec makes, announced to a webhook endpoint its spec listens at.
  events: { settings: enabledUsd, cards: ["visa", "declined"], defaultCardIndex: 0 },
  // e2e/api/typed-client.spec.ts: a journey through the client generated from the OpenAPI document.
  typedClient: { settings: enabledUsd, cards: ["visa", "declined"], defaultCardIndex: 0 },
  // e2e/api/compression.spec.ts: purchases enough for a list over 1 KiB.
  compression: { settings: enabledUsd, cards: ["visa"], defaultCardIndex: 0 },
  // e2e/observability: purchases of every outcome whose log lines and metrics it reads.
  observability: {
    settings: enabledUsd,
    cards: ["visa", "declined", "processing", "authentication_required"],
    defaultCardIndex: 0,
  },
};

interface Backend {
  kind: "postgres" | "pglite";
  /** The variables the Next server needs to open the same database. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

async function prepareBackend(): Promise<Backend> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-e2e-"));
    return {
      kind: "pglite",
      env: { PGLITE_DIR: path.join(dir, "pglite") },
      cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const scratch = await createScratchDatabase(adminUrl, "points_e2e");
  return { kind: "postgres", env: { DATABASE_URL: scratch.url }, cleanup: scratch.drop };
}

/**
 * With E2E_PROVIDER=stripe the server runs on the Stripe provider, against a Stripe-compatible
 * test server started here (lib/testing/fake-stripe), with the product's prices set up and its
 * webhooks delivered to the app; so the same contract suite holds both providers.
 */
interface StripeBackend {
  fake: FakeStripe;
  provider: StripeBillingProvider;
  env: Record<string, string>;
  secrets: { secretKey: string; webhookSecret: string };
}

async function startStripeBackend(): Promise<StripeBackend> {
  const secretKey = `sk_test_${randomString(24)}`;
  const webhookSecret = newWebhookSecret();
  const fake = await startFakeStripe({
    apiKey: secretKey,
    webhookUrl: `http://127.0.0.1:${PORT}/api/stripe/webhook`,
    webhookSecret,
  });
  // Delivered once the app answers (releaseWhenUp), as Stripe retries an endpoint that is down.
  fake.control.holdDeliveries();
  const stripe = createStripeClient({ secretKey, apiUrl: fake.url });
  await setupStripePrices(stripe, SIMULATED_PRICES);
  return {
    fake,
    provider: new StripeBillingProvider(stripe, systemClock, true),
    env: { STRIPE_SECRET_KEY: secretKey, STRIPE_API_URL: fake.url, STRIPE_WEBHOOK_SECRET: webhookSecret },
    secrets: { secretKey, webhookSecret },
  };
}

/** Releases the test server's held deliveries once the app answers HTTP. */
async function releaseWhenUp(stripe: StripeBackend): Promise<void> {
  for (let attempt = 0; attempt < 960; attempt += 1) {
    const up = await fetch(`http://127.0.0.1:${PORT}/v3/points/payment-methods`).then(
      () => true,
      () => false,
    );
    if (up) {
      await stripe.fake.control.releaseDeliveries();
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  console.error("[e2e] The app never answered: the test server's webhook deliveries stay held.");
}

async function provision(backend: Backend, stripe: StripeBackend | null): Promise<E2eFixtures> {
  const database = await openDatabase(
    backend.kind === "postgres" ? { url: backend.env.DATABASE_URL } : { pgliteDir: backend.env.PGLITE_DIR },
  );
  try {
    if (database.kind === "pglite") await migratePglite(database.db);
    const services = stripe
      ? { db: database.db, provider: stripe.provider, clock: systemClock }
      : simulatedServices(database.db);
    const organizations: Partial<Record<FixtureOrganizationName, FixtureOrganization>> = {};
    for (const name of FIXTURE_ORGANIZATIONS) {
      const { simulateOutage, ...scenario } = scenarios[name];
      const created = await createOrganization(services, {
        name: `e2e ${name}`,
        ...scenario,
        ...(stripe ? {} : { simulateOutage }),
      });
      if (stripe && simulateOutage) {
        // Stripe's outage: retrieving this customer fails, so its cards cannot be listed.
        const path = `/v1/customers/${created.organization.billingCustomerId}`;
        stripe.fake.control.fault({ method: "GET", path, kind: "500_before", times: Number.POSITIVE_INFINITY });
      }
      organizations[name] = {
        id: created.organization.id,
        apiKey: created.apiKey.apiKey,
        keyId: created.apiKey.keyId,
        paymentMethods: created.paymentMethods.map((method) => ({
          id: method.id,
          label: method.label,
          kind: method.kind ?? "",
          isDefault: method.isDefault,
        })),
      };
    }
    const main = organizations.main;
    if (!main) throw new Error("The main organisation was not provisioned.");
    const receiverPort = PORT + 70;
    const hooked = await addEndpoint(services, organizations.events?.id ?? "", {
      url: `http://127.0.0.1:${receiverPort}/hooks`,
      allowPrivate: true,
    });
    const revoked = await createApiKey(database.db, main.id, systemClock);
    if (!(await revokeApiKey(database.db, revoked.keyId, systemClock))) throw new Error("The key was not revoked.");
    return {
      baseUrl: `http://127.0.0.1:${PORT}`,
      database: backend.kind,
      organizations: organizations as Record<FixtureOrganizationName, FixtureOrganization>,
      revokedKey: revoked.apiKey,
      events: { receiverPort, endpointId: hooked.endpoint.id, secret: hooked.secret },
      buy: await provisionBuyFixtures(services),
      account: await provisionAccountFixtures(services),
      afterPayment: { ...(await provisionAfterPaymentFixtures(services)) },
      billingProblem: { ...(await provisionBillingProblemFixtures(services)) },
      dashboardSpends: { ...(await provisionDashboardSpendsFixtures(services)) },
      autoRecharge: { ...(await provisionAutoRechargeFixtures(services)) },
      scopedKeys: {
        ...(await provisionScopedKeysFixtures(
          services,
          organizations as Record<FixtureOrganizationName, FixtureOrganization>,
        )),
      },
      spends: {
        ...(await provisionSpendsFixtures(
          services,
          organizations as Record<FixtureOrganizationName, FixtureOrganization>,
        )),
      },
      ...(stripe ? { stripe: { apiUrl: stripe.fake.url, ...stripe.secrets } } : {}),
    };
  } finally {
    // PGlite allows one process per directory: the server must find it closed.
    await database.close();
  }
}

function ensureBuilt(): void {
  if (fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) return;
  console.log("[e2e] .next/BUILD_ID is missing: running next build first.");
  // A developer's checkout has the secret `npm run dev` generated: build as in one, so that
  // e2e/server/security.spec.ts would see the file if the build traced it into the server's output.
  readOrCreateDevSecret();
  const built = spawnSync(process.execPath, [NEXT, "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (built.status !== 0) throw new Error(`next build failed with status ${built.status ?? built.signal}`);
}

/**
 * The fixtures' users are made with their passwords hashed at the test cost (lib/auth/password.ts, as
 * under vitest): some sixty hashes at the production cost took 32 s of the server's start on two
 * cores. The cost is stored with each hash, and the server, at the production cost, upgrades each
 * user's hash at their first sign-in, as it would a hash made by an older release.
 */
async function atTestPasswordCost<T>(make: () => Promise<T>): Promise<T> {
  const processEnv = process.env as Record<string, string | undefined>;
  const before = processEnv.NODE_ENV;
  processEnv.NODE_ENV = "test";
  try {
    return await make();
  } finally {
    if (before === undefined) delete processEnv.NODE_ENV;
    else processEnv.NODE_ENV = before;
  }
}

const METRICS_TOKEN = process.env.METRICS_TOKEN ?? randomString(32);
// Production mode wants a secret; a throwaway one is right for a throwaway server.
const AUTH_SECRET = process.env.AUTH_SECRET ?? process.env.NEXTAUTH_SECRET ?? randomString(40);

async function main(): Promise<void> {
  fs.rmSync(FIXTURES_FILE, { force: true });
  fs.rmSync(SERVER_LOG, { force: true });
  const backend = await prepareBackend();
  let child: ChildProcess | undefined;
  let stripe: StripeBackend | null = null;
  let cleaning: Promise<void> | undefined;
  const cleanup = () => {
    cleaning ??= backend.cleanup().catch((error: unknown) => {
      console.error("[e2e] Cleanup failed:", error instanceof Error ? error.message : error);
    });
    return cleaning;
  };

  // Signals arrive before, during or after the child exists: forward them, and clean up when it is gone.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
      } else {
        void cleanup().then(() => process.exit(1));
      }
    });
  }

  try {
    ensureBuilt();
    stripe = process.env.E2E_PROVIDER === "stripe" ? await startStripeBackend() : null;
    const fixtures = {
      ...(await atTestPasswordCost(() => provision(backend, stripe))),
      observability: { logFile: SERVER_LOG, metricsToken: METRICS_TOKEN, authSecret: AUTH_SECRET },
    };
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(FIXTURES_FILE, `${JSON.stringify(fixtures, null, 2)}\n`);
    console.log(
      `[e2e] ${FIXTURE_ORGANIZATIONS.length} organisations provisioned on ${backend.kind}, billing ${stripe ? `Stripe (test server ${stripe.fake.url})` : "simulated"}.`,
    );
  } catch (error) {
    console.error("[e2e] Could not prepare the server:", error);
    await cleanup();
    process.exit(1);
  }

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...backend.env,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
    PORT: String(PORT),
    AUTH_SECRET,
    METRICS_TOKEN,
    NEXTAUTH_URL: process.env.NEXTAUTH_URL ?? `http://127.0.0.1:${PORT}`,
    // No balancer in front: Playwright's SIGTERM at the end of the run need not wait to close the listener.
    POINTS_SHUTDOWN_DELAY_SECONDS: "0",
    // e2e/api/events.spec.ts receives the webhooks on loopback.
    POINTS_WEBHOOKS_ALLOW_PRIVATE: "1",
    ...(stripe?.env ?? {}),
  };
  // The fixtures live only in the database prepared above; nothing else may be opened.
  if (backend.kind === "pglite") delete env.DATABASE_URL;
  else delete env.PGLITE_DIR;
  delete env.TEST_DATABASE_URL;

  child = spawn(process.execPath, [NEXT, "start", "-p", String(PORT)], { stdio: ["inherit", "pipe", "pipe"], env });
  // Kept whole in a file (e2e/observability reads it). Printed: what the server said before it logged
  // JSON, and JSON lines of level warn and above; the info lines, one or more per request, would
  // bury a failing test's output.
  const serverLog = fs.openSync(SERVER_LOG, "a");
  let pending = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    fs.writeSync(serverLog, chunk);
    const lines = (pending + chunk.toString("utf8")).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (worthPrinting(line)) process.stdout.write(`${line}\n`);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk);
    fs.writeSync(serverLog, chunk);
  });
  if (stripe) void releaseWhenUp(stripe);
  child.on("exit", (code, signal) => {
    void cleanup().then(() => process.exit(code ?? (signal ? 1 : 0)));
  });
  child.on("error", (error) => {
    console.error("[e2e] Could not start next:", error.message);
    void cleanup().then(() => process.exit(1));
  });
}

function worthPrinting(line: string): boolean {
  if (!line.startsWith("{")) return true;
  try {
    const { level } = JSON.parse(line) as { level?: unknown };
    return typeof level === "number" ? level >= 40 : ["warn", "error", "fatal"].includes(String(level));
  } catch {
    return true;
  }
}

void main();
