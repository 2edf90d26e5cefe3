import path from "node:path";
import { createBillingProvider } from "@/lib/billing";
import { instrumentProvider } from "@/lib/billing/instrumented";
import type { StripeSettings } from "@/lib/billing/stripe/client";
import { systemClock } from "@/lib/clock";
import { type Database, defaultPgliteDir, openDatabase } from "@/lib/db/client";
import { assertDriverPatched } from "@/lib/db/driver-patch";
import { migratePglite, migratePostgres } from "@/lib/db/migrate";
import { env, stripeEnv } from "@/lib/env";
import { type DemoInfo, seedDemo } from "@/lib/points/accounts/seed";
import { assertLeaseCoversProvider } from "@/lib/points/purchase";
import type { Services } from "@/lib/points/services";

export interface Runtime extends Services {
  database: Database;
  /** The demo organisation: on the embedded default, and never in production. */
  demo: DemoInfo | null;
  leaseMs: number;
}

const globalForRuntime = globalThis as unknown as { pointsRuntime?: Promise<Runtime> };

/**
 * The app's services, created once per process (and kept across hot reloads): the database
 * from DATABASE_URL or the embedded PGlite, migrated; the billing provider; the clock. It refuses
 * when postgres.js is installed without its patch (lib/db/driver-patch.ts), and startServer then exits.
 */
export function getRuntime(): Promise<Runtime> {
  globalForRuntime.pointsRuntime ??= createRuntime().catch((error: unknown) => {
    globalForRuntime.pointsRuntime = undefined;
    throw error;
  });
  return globalForRuntime.pointsRuntime;
}

export async function createRuntime(options: { seed?: boolean } = {}): Promise<Runtime> {
  // Before anything opens the database: an install without patches/ applied refuses to start.
  assertDriverPatched();
  const { DATABASE_URL, DATABASE_READ_URL, POINTS_LEASE_SECONDS } = env();
  if (DATABASE_READ_URL && !DATABASE_URL) {
    throw new Error("DATABASE_READ_URL is a replica of DATABASE_URL's Postgres: set DATABASE_URL too, or unset it.");
  }
  if (DATABASE_URL) await migratePostgres(DATABASE_URL);
  const database = await openDatabase({ url: DATABASE_URL, readUrl: DATABASE_READ_URL, pgliteDir: defaultPgliteDir() });
  return runtimeOver(database, { seed: options.seed, leaseSeconds: POINTS_LEASE_SECONDS, stripe: stripeEnv() });
}

/**
 * createRuntime's steps once the database is open (and, on Postgres, migrated): PGlite migrated,
 * the billing provider, the lease checked against it, and the demo seeded on the embedded
 * database. The operator command's tests run it over a database they opened themselves.
 */
export async function runtimeOver(
  database: Database,
  options: { seed?: boolean; leaseSeconds?: number; stripe: StripeSettings | null },
): Promise<Runtime> {
  const leaseMs = (options.leaseSeconds ?? 90) * 1000;
  if (database.kind === "pglite") await migratePglite(database.db);
  const provider = instrumentProvider(createBillingProvider(database.db, systemClock, options.stripe));
  assertLeaseCoversProvider(leaseMs, provider);
  const services: Services = { db: database.db, readDb: database.readDb, provider, clock: systemClock };
  const seeds = database.kind === "pglite" && options.seed !== false && !isProduction();
  const demo = seeds ? await seedDemo(services, path.dirname(database.location)) : null;
  return { ...services, database, demo, leaseMs };
}

/**
 * `next start` (and any NODE_ENV=production process) seeds no demo: its admin password and API key
 * would be printed to a console that log collectors keep, and a known admin is a way in. The demo
 * is for `npm run dev`.
 */
export function isProduction(): boolean {
  return process.env.NODE_ENV === "production";
}
