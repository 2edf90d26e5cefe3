import { SimulatedBillingProvider } from "@/lib/billing/simulated";
import type { BillingProvider } from "@/lib/billing/provider";
import type { Clock } from "@/lib/clock";
import { type Database, openDatabase } from "@/lib/db/client";
import { migratePglite, migratePostgres } from "@/lib/db/migrate";
import { randomString } from "@/lib/ids";
import type { Services } from "@/lib/points/services";

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
  if (backend === "postgres") {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
    const name = `points_test_${randomString(10).toLowerCase()}`;
    const { default: postgres } = await import("postgres");
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    await migratePostgres(url.toString());
    database = await openDatabase({ url: url.toString(), maxConnections: options.maxConnections ?? 20 });
    dropDatabase = async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    };
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
