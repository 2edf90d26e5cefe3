import path from "node:path";

/** drizzle-kit writes the SQL here; resolved from the working directory because the app is bundled. */
export function migrationsFolder(): string {
  return path.join(process.cwd(), "drizzle");
}

/**
 * Applies pending migrations to a Postgres server. Several app instances may start at once,
 * so the migrator runs on one dedicated connection under a session advisory lock.
 */
export async function migratePostgres(url: string): Promise<void> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(74201117)`;
    await migrate(drizzle(client), { migrationsFolder: migrationsFolder() });
    await client`select pg_advisory_unlock(74201117)`;
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** Applies pending migrations to an open PGlite database (one process owns it, so no lock). */
export async function migratePglite(db: unknown): Promise<void> {
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  await migrate(db as Parameters<typeof migrate>[0], { migrationsFolder: migrationsFolder() });
}
