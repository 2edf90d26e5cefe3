import { defaultPgliteDir, openDatabase, redactUrl } from "@/lib/db/client";
import { migratePglite, migratePostgres } from "@/lib/db/migrate";
import { PgliteLockedError } from "@/lib/db/pglite-lock";
import { env } from "@/lib/env";
import type { CliIo } from "./output";

/**
 * `npm run db:migrate`: DATABASE_URL's Postgres when it is set, else the embedded PGlite
 * directory. Returns the exit code; the confirmation is one line on stdout.
 */
export async function runDbMigrate(io: CliIo): Promise<number> {
  try {
    const { DATABASE_URL } = env();
    if (DATABASE_URL) {
      await migratePostgres(DATABASE_URL);
      io.stdout(`Migrated the Postgres database at ${redactUrl(DATABASE_URL)}.\n`);
      return 0;
    }
    const database = await openDatabase({ pgliteDir: defaultPgliteDir() });
    try {
      await migratePglite(database.db);
    } finally {
      await database.close();
    }
    io.stdout(`Migrated the embedded database in ${database.location}.\n`);
    return 0;
  } catch (error) {
    // PgliteLockedError's own message says to stop the server or set DATABASE_URL.
    const reason = error instanceof PgliteLockedError ? error.message : `Migration failed: ${messageOf(error)}`;
    io.stderr(`${reason}\n`);
    return 1;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
