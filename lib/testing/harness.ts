import { SimulatedBillingProvider } from "@/lib/billing/simulated";
import type { BillingProvider } from "@/lib/billing/provider";
import type { Clock } from "@/lib/clock";
import { type Database, openDatabase } from "@/lib/db/client";
import { migratePglite } from "@/lib/db/migrate";
import { PointsError } from "@/lib/points/errors";
import type { Services } from "@/lib/points/services";
import { createScratchDatabase } from "./scratch-database";

/** A clock that only moves when a test moves it. */
export class TestClock implements Clock {
  private current: number;
  constructor(start = Date.parse("2026-11-22T12:00:00.000Z")) {
    this.current = start;
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export type Backend = "pglite" | "postgres";

/** The backends a service suite runs on: PGlite always, real Postgres when TEST_DATABASE_URL is set. */
export function backends(): Backend[] {
  return process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];
}

export interface TestContext extends Services {
  database: Database;
  /** The database's URL on the Postgres backend, for tests that open a second "instance". */
  url?: string;
  provider: SimulatedBillingProvider;
  clock: TestClock;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or a new database of its
 * own on the TEST_DATABASE_URL server (dropped on close).
 */
export async function createTestContext(
  backend: Backend,
  options: { maxConnections?: number } = {},
): Promise<TestContext> {
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
    database = await openDatabase({ pgliteDir: "memory://" });
    await migratePglite(database.db);
  }
  const provider = new SimulatedBillingProvider(database.db, clock);
  return {
    db: database.db,
    provider,
    clock,
    database,
    url: databaseUrl,
    close: async () => {
      await database.close();
      await dropDatabase();
    },
  };
}

/** The same services with another provider in front, e.g. one that injects faults. */
export function withProvider(context: TestContext, provider: BillingProvider): Services {
  return { db: context.db, clock: context.clock, provider };
}

/**
 * Another app instance on the same Postgres database: its own connection pool and provider
 * object, sharing only the database (and the test clock), as a second server process would.
 */
export async function openInstance(context: TestContext): Promise<TestContext> {
  if (!context.url) throw new Error("A second instance needs the Postgres backend.");
  const database = await openDatabase({ url: context.url, maxConnections: 20 });
  return {
    db: database.db,
    provider: new SimulatedBillingProvider(database.db, context.clock),
    clock: context.clock,
    database,
    url: context.url,
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

/**
 * The Stripe provider, through the official SDK, against a fresh Stripe-compatible test server
 * (lib/testing/fake-stripe) with the product's prices set up, as `npm run points -- stripe
 * setup-prices` would. No SDK retries, so each fault a test injects is seen exactly once.
 */
export async function startStripeTestProvider(clock: Clock, options: { maxNetworkRetries?: number } = {}) {
  const { startFakeStripe } = await import("./fake-stripe/server");
  const { default: Stripe } = await import("stripe");
  const { StripeBillingProvider } = await import("@/lib/billing/stripe/provider");
  const { setupStripePrices } = await import("@/lib/billing/stripe/setup-prices");
  const { SIMULATED_PRICES } = await import("@/lib/billing/simulated");
  const fake = await startFakeStripe();
  const stripe = new Stripe("sk_test_points_suite", {
    host: fake.host,
    port: fake.port,
    protocol: "http",
    maxNetworkRetries: options.maxNetworkRetries ?? 0,
    timeout: 5_000,
  });
  await setupStripePrices(stripe, SIMULATED_PRICES);
  const provider = new StripeBillingProvider(stripe, clock, true);
  return { fake, stripe, provider, close: () => fake.close() };
}
