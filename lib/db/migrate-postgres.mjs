// Plain JavaScript, so that the Docker image's migrate command (scripts/migrate.mjs) runs the same
// code as the app's startup and `npm run db:migrate` with only production dependencies installed.

/** One lock for every migrator of this database: instances starting at once, and the migrate command. */
const MIGRATION_LOCK = 74201117;

/** drizzle's own record of applied migrations, so databases migrated before keep their history. */
const MIGRATIONS_TABLE = `"drizzle"."__drizzle_migrations"`;

/**
 * Applies the migrations in `migrationsFolder` to a Postgres server, in one transaction that first
 * takes a transaction-level advisory lock: several app instances may start at once, and each waits
 * for the one migrating, then finds nothing left to do. No session state outlives the transaction
 * (the lock ends with it, and with DATABASE_PREPARE=false nothing is prepared), so it works through
 * a transaction-mode pooler (PgBouncer), where consecutive statements may reach different server
 * connections. What counts as applied is drizzle's rule: every migration newer than the newest
 * recorded one, as drizzle-kit's migrator decides it.
 * @param {string} url
 * @param {string} migrationsFolder
 * @returns {Promise<void>}
 */
export async function migratePostgres(url, migrationsFolder) {
  const { default: postgres } = await import("postgres");
  const { readMigrationFiles } = await import("drizzle-orm/migrator");
  const migrations = readMigrationFiles({ migrationsFolder });
  const prepare = process.env.DATABASE_PREPARE !== "false";
  // Behind a transaction-mode pooler, one query at a time (lib/db/client.ts says why).
  const client = postgres(url, { max: 1, onnotice: () => {}, prepare, ...(prepare ? {} : { max_pipeline: 0 }) });
  try {
    await client.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      await tx.unsafe(`create schema if not exists "drizzle"`);
      await tx.unsafe(
        `create table if not exists ${MIGRATIONS_TABLE} (id serial primary key, hash text not null, created_at bigint)`,
      );
      const [last] = await tx.unsafe(`select created_at from ${MIGRATIONS_TABLE} order by created_at desc limit 1`);
      for (const migration of migrations) {
        if (last && Number(last.created_at) >= migration.folderMillis) continue;
        for (const statement of migration.sql) {
          if (statement.trim()) await tx.unsafe(statement);
        }
        await tx.unsafe(`insert into ${MIGRATIONS_TABLE} (hash, created_at) values ($1, $2)`, [
          migration.hash,
          migration.folderMillis,
        ]);
      }
    });
  } finally {
    await client.end({ timeout: 5 });
  }
}
