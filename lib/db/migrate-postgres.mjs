// Plain JavaScript, so that the Docker image's migrate command (scripts/migrate.mjs) runs the same
// code as the app's startup and `npm run db:migrate` with only production dependencies installed.

/** One lock for every migrator of this database: instances starting at once, and the migrate command. */
const MIGRATION_LOCK = 74201117;

/**
 * Applies the migrations in `migrationsFolder` to a Postgres server. Several app instances may
 * start at once, so the migrator runs on one dedicated connection under a session advisory lock.
 * @param {string} url
 * @param {string} migrationsFolder
 * @returns {Promise<void>}
 */
export async function migratePostgres(url, migrationsFolder) {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(client), { migrationsFolder });
    await client`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
