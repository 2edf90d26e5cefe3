import type Stripe from "stripe";
import type { BillingProvider } from "@/lib/billing/provider";
import { SimulatedBillingProvider } from "@/lib/billing/simulated/provider";
import type { Clock } from "@/lib/clock";
import { type Database, type Db, openDatabase } from "@/lib/db/client";
import { PointsError } from "@/lib/points/errors";
import { type PurchaseResult, resolveTopUp } from "@/lib/points/purchase";
import { beginAuthentication, completeSimulatedAuthentication } from "@/lib/points/purchase/complete-authentication";
import type { Services } from "@/lib/points/services";
import type { FakeStripe } from "./fake-stripe/server";
import { migratedPgliteTemplate } from "./pglite-template";
import { type ChargeLog, type ProviderName, type ProviderProbe, simulatedProbe, stripeProbe } from "./provider-probe";
import { createScratchDatabase } from "./scratch-database";

export type { PaymentState, ProbedPayment, ProviderName, ProviderProbe } from "./provider-probe";

/** A clock that only moves when a test moves it. */
export class TestClock implements Clock {
  private current: number;
  private followers: ((ms: number) => void)[] = [];
  constructor(start = Date.parse("2026-11-22T12:00:00.000Z")) {
    this.current = start;
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
    for (const follower of this.followers) follower(ms);
  }
  /** Something with a clock of its own (the Stripe test server) moves whenever this one does. */
  onAdvance(follower: (ms: number) => void): void {
    this.followers.push(follower);
  }
}

export type Backend = "pglite" | "postgres";

/** The backends a service suite runs on: PGlite always, real Postgres when TEST_DATABASE_URL is set. */
export function backends(): Backend[] {
  return process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];
}

/**
 * The billing providers a purchase suite runs against: both, unless TEST_PROVIDERS names some
 * (comma-separated, e.g. TEST_PROVIDERS=stripe to run the Stripe path alone).
 */
export function providers(): ProviderName[] {
  const all: ProviderName[] = ["simulated", "stripe"];
  const wanted = (process.env.TEST_PROVIDERS ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  if (wanted.length === 0) return all;
  const unknown = wanted.filter((name) => !all.includes(name as ProviderName));
  if (unknown.length)
    throw new Error(`TEST_PROVIDERS names unknown providers: ${unknown.join(", ")} (use simulated, stripe).`);
  return all.filter((name) => wanted.includes(name));
}

/** Every backend with every provider, for `describe.each(backendsAndProviders())("… on %s with %s", …)`. */
export function backendsAndProviders(): [Backend, ProviderName][] {
  return backends().flatMap((backend) => providers().map((provider): [Backend, ProviderName] => [backend, provider]));
}

export interface TestContext<P extends BillingProvider = SimulatedBillingProvider> extends Services {
  database: Database;
  /** The database's URL on the Postgres backend, for tests that open a second "instance". */
  url?: string;
  provider: P;
  clock: TestClock;
  /** Reads and steers the provider the same way on either one (see ProviderProbe). */
  probe: ProviderProbe;
  /** The Stripe test server and SDK client behind a Stripe context; undefined on the simulated provider. */
  stripe?: { fake: FakeStripe; client: Stripe };
  /** Makes this context's provider for another instance's database (openInstance). */
  instanceProvider(db: Db): P;
  close(): Promise<void>;
}

/** A test context on either provider: only what every BillingProvider offers is typed. */
export type ProviderTestContext = TestContext<BillingProvider>;

interface ContextOptions {
  maxConnections?: number;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or a new database of its
 * own on the TEST_DATABASE_URL server (dropped on close), with the simulated provider in it; or,
 * with `provider: "stripe"`, the Stripe provider against a Stripe test server of its own (closed
 * on close) that keeps the context's clock.
 */
export async function createTestContext(
  backend: Backend,
  options?: ContextOptions & { provider?: "simulated" },
): Promise<TestContext>;
export async function createTestContext(
  backend: Backend,
  options: ContextOptions & { provider: ProviderName },
): Promise<ProviderTestContext>;
export async function createTestContext(
  backend: Backend,
  options: ContextOptions & { provider?: ProviderName } = {},
): Promise<ProviderTestContext> {
  const clock = new TestClock();
  let database: Database;
  let dropDatabase = async () => {};
  let databaseUrl: string | undefined;
  if (backend === "postgres") {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
    const scratch = await createScratchDatabase(adminUrl, "points_test");
    databaseUrl = scratch.url;
    database = await openDatabase({ url: scratch.url, maxConnections: options.maxConnections ?? 20 });
    dropDatabase = scratch.drop;
  } else {
    database = await openDatabase({ pgliteDir: "memory://", pgliteDataDir: await migratedPgliteTemplate() });
  }
  let parts: ProviderParts;
  try {
    parts = options.provider === "stripe" ? await stripeParts(clock) : simulatedParts(database.db, clock);
  } catch (error) {
    await database.close();
    await dropDatabase();
    throw error;
  }
  return {
    db: database.db,
    provider: parts.provider,
    probe: parts.probe,
    stripe: parts.stripe,
    instanceProvider: parts.instanceProvider,
    clock,
    database,
    url: databaseUrl,
    close: async () => {
      await parts.close();
      await database.close();
      await dropDatabase();
    },
  };
}

interface ProviderParts {
  provider: BillingProvider;
  instanceProvider(db: Db): BillingProvider;
  probe: ProviderProbe;
  stripe?: TestContext["stripe"];
  close(): Promise<void>;
}

/** Records each charge request that reaches the provider, for ProviderProbe.chargeRequests. */
function recordingCharges<P extends BillingProvider>(inner: P, log: ChargeLog): P {
  return patchProvider(inner, {
    charge: (request) => {
      log.push(request);
      return inner.charge(request);
    },
  }) as P;
}

function simulatedParts(db: Db, clock: TestClock): ProviderParts {
  const log: ChargeLog = [];
  const own = new SimulatedBillingProvider(db, clock);
  return {
    provider: recordingCharges(own, log),
    instanceProvider: (instanceDb) => recordingCharges(new SimulatedBillingProvider(instanceDb, clock), log),
    probe: simulatedProbe(db, own, log),
    close: async () => {},
  };
}

async function stripeParts(clock: TestClock): Promise<ProviderParts> {
  const started = await startStripeTestProvider(clock);
  const { fake } = started;
  // The server's clock is the test clock, and moves with it: the keys it forgets after 24 hours
  // and the creation times findPayment searches by are on the purchases' time line.
  fake.control.advanceClock(clock.now().getTime() - fake.control.now());
  clock.onAdvance((ms) => fake.control.advanceClock(ms));
  const log: ChargeLog = [];
  const { StripeBillingProvider } = await import("@/lib/billing/stripe/provider");
  return {
    provider: recordingCharges(started.provider, log),
    // Another instance has an SDK client and caches of its own, on the same Stripe.
    instanceProvider: () =>
      recordingCharges(new StripeBillingProvider(started.newClient(), clock, true, started.webhookSecret), log),
    probe: stripeProbe(fake, started.stripe, started.provider, log),
    stripe: { fake, client: started.stripe },
    close: () => started.close(),
  };
}

/** The same services with another provider in front, e.g. one that injects faults. */
export function withProvider(context: Pick<Services, "db" | "clock">, provider: BillingProvider): Services {
  return { db: context.db, clock: context.clock, provider };
}

/**
 * Another app instance on the same Postgres database: its own connection pool and provider
 * object (on Stripe, its own SDK client and caches, on the same Stripe), sharing only the
 * database, the provider's state and the test clock, as a second server process would.
 */
export async function openInstance<P extends BillingProvider>(context: TestContext<P>): Promise<TestContext<P>> {
  if (!context.url) throw new Error("A second instance needs the Postgres backend.");
  const database = await openDatabase({ url: context.url, maxConnections: 20 });
  return {
    ...context,
    db: database.db,
    provider: context.instanceProvider(database.db),
    database,
    close: () => database.close(),
  };
}

/** The given provider with some of its methods replaced; the rest still reach it. */
export function patchProvider(inner: BillingProvider, overrides: Partial<BillingProvider>): BillingProvider {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const override = Reflect.get(overrides, property);
      if (override !== undefined) return override;
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A provider that answers like the given one, after a delay: it widens race windows. */
export function slowProvider(inner: BillingProvider, delayMs: number): BillingProvider {
  const wait = () => new Promise((resolve) => setTimeout(resolve, delayMs));
  return patchProvider(inner, {
    charge: async (request) => {
      await wait();
      return inner.charge(request);
    },
    retrievePayment: async (paymentId) => {
      await wait();
      return inner.retrievePayment(paymentId);
    },
  });
}

export type ProviderFault = "execute_then_throw" | "throw_before_execute";

/**
 * A provider that fails the next charges as queued: after executing (a timeout once the payment
 * was taken) or before (an error before anything happened). Other calls pass through.
 */
export function faultyProvider(inner: BillingProvider, faults: ProviderFault[]): BillingProvider {
  return patchProvider(inner, {
    charge: async (request) => {
      const fault = faults.shift();
      if (fault === "throw_before_execute") throw new Error("connect ECONNREFUSED (injected)");
      const outcome = await inner.charge(request);
      if (fault === "execute_then_throw") throw new Error("request timed out (injected)");
      return outcome;
    },
  });
}

/** Runs `run` and returns the error of class `kind` it throws; fails the test on any other outcome. */
export async function expectThrown<T extends Error>(
  kind: abstract new (...args: never[]) => T,
  run: () => unknown,
): Promise<T> {
  try {
    await run();
  } catch (error) {
    if (error instanceof kind) return error;
    throw error;
  }
  throw new Error(`Expected a ${kind.name}, but the call succeeded.`);
}

export const expectPointsError = (run: () => unknown): Promise<PointsError> => expectThrown(PointsError, run);

/** The webhook secret a Stripe test context's provider verifies with, and its test server signs with. */
export const TEST_STRIPE_WEBHOOK_SECRET = "whsec_test_suite_secret_value";

/**
 * The Stripe provider, through the official SDK, against a fresh Stripe-compatible test server
 * (lib/testing/fake-stripe) with the product's prices set up, as `npm run points -- stripe
 * setup-prices` would. No SDK retries, so each fault a test injects is seen exactly once.
 */
export async function startStripeTestProvider(
  clock: Clock,
  options: { maxNetworkRetries?: number; webhookSecret?: string } = {},
) {
  const { startFakeStripe } = await import("./fake-stripe/server");
  const { default: Stripe } = await import("stripe");
  const { StripeBillingProvider } = await import("@/lib/billing/stripe/provider");
  const { setupStripePrices } = await import("@/lib/billing/stripe/setup-prices");
  const { SIMULATED_PRICES } = await import("@/lib/billing/prices");
  const fake = await startFakeStripe();
  const newClient = () =>
    new Stripe("sk_test_points_suite", {
      host: fake.host,
      port: fake.port,
      protocol: "http",
      maxNetworkRetries: options.maxNetworkRetries ?? 0,
      timeout: 5_000,
    });
  const stripe = newClient();
  await setupStripePrices(stripe, SIMULATED_PRICES);
  const webhookSecret = options.webhookSecret ?? TEST_STRIPE_WEBHOOK_SECRET;
  const provider = new StripeBillingProvider(stripe, clock, true, webhookSecret);
  return { fake, stripe, provider, newClient, webhookSecret, close: () => fake.close() };
}

/**
 * The dashboard's "Complete payment" for a purchase awaiting the cardholder, who then succeeds or
 * fails, on either provider: the simulated step; or with Stripe the on-session confirmation of the
 * same PaymentIntent, its 3-D Secure page answered, and the return page settling the purchase.
 */
export async function completeAuthenticationInDashboard(
  services: Services,
  input: { organizationId: string; topUpId: string; succeed: boolean },
): Promise<PurchaseResult> {
  if (services.provider.testMode?.completeAuthentication) return completeSimulatedAuthentication(services, input);
  const returnUrl = `http://127.0.0.1:3000/dashboard/buy/${input.topUpId}/return`;
  const started = await beginAuthentication(services, { ...input, returnUrl });
  if ("result" in started) return started.result;
  const page = new URL(started.redirectUrl);
  page.pathname += input.succeed ? "/complete" : "/fail";
  page.search = "";
  const answer = await fetch(page, { method: "POST", redirect: "manual" });
  const back = answer.headers.get("location") ?? "";
  if (!back.startsWith(`${returnUrl}?`))
    throw new Error(`The 3-D Secure page sent the cardholder to ${back || "nowhere"}`);
  // The return page settles it as a retry would.
  const result = await resolveTopUp(services, input.topUpId);
  if (!result) throw new Error(`No top-up ${input.topUpId}`);
  return result;
}
