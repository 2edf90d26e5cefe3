import path from "node:path";
import { migratePostgres as migratePostgresIn } from "./migrate-postgres.mjs";

/** drizzle-kit writes the SQL here; resolved from the working directory because the app is bundled. */
export function migrationsFolder(): string {
  return path.join(process.cwd(), "drizzle");
}

/**
 * Applies pending migrations to a Postgres server, under an advisory lock (several app instances
 * may start at once). The code is plain JavaScript that the Docker image's migrate command shares.
 */
export function migratePostgres(url: string): Promise<void> {
  return migratePostgresIn(url, migrationsFolder());
}

/** Applies pending migrations to an open PGlite database (one process owns it, so no lock). */
export async function migratePglite(db: unknown): Promise<void> {
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  await migrate(db as Parameters<typeof migrate>[0], { migrationsFolder: migrationsFolder() });
}
