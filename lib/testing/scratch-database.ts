import { SimulatedBillingProvider } from "@/lib/billing/simulated/provider";
import { type Clock, systemClock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { migratePostgres } from "@/lib/db/migrate";
import { randomString } from "@/lib/ids";
import type { Services } from "@/lib/points/services";

export interface ScratchDatabase {
  /** The new database's URL on the same server. */
  url: string;
  /** Drops it (ending any connection still open on it). */
  drop(): Promise<void>;
}

/**
 * A new database of its own on a Postgres server, for a test file, the e2e server or the bench:
 * named `<prefix>_<random>` so runs never share state, and migrated unless asked not to.
 */
export async function createScratchDatabase(
  adminUrl: string,
  prefix: string,
  options: { migrate?: boolean } = {},
): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomString(10).toLowerCase()}`;
  const { default: postgres } = await import("postgres");
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  if (options.migrate !== false) await migratePostgres(url.toString());
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** The services the app runs with on the simulated provider, for tooling that opened `db` itself. */
export function simulatedServices(db: Db, clock: Clock = systemClock): Services {
  return { db, provider: new SimulatedBillingProvider(db, clock), clock };
}
