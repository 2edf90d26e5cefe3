// The Docker image's migrate command: `node scripts/migrate.mjs`, run once per release before the
// new servers start. Plain JavaScript on production dependencies only (the image has no tsx);
// `npm run db:migrate` is the same migration from a checkout. Postgres only: the embedded database
// is one process's, so the server migrates it when it starts.
import { fileURLToPath } from "node:url";
import { migratePostgres } from "../lib/db/migrate-postgres.mjs";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error(
    "DATABASE_URL is not set: this command migrates a Postgres database. The embedded database is migrated by the server when it starts.",
  );
  process.exit(1);
}
// The layout's drizzle/, which the server also reads (from its working directory, the same folder).
const folder = fileURLToPath(new URL("../drizzle/", import.meta.url));
try {
  await migratePostgres(url, folder);
  console.log(`Migrated the Postgres database at ${redact(url)} (${folder}).`);
} catch (error) {
  console.error(`Migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

/** The URL without its password, as lib/db/client.ts's redactUrl prints it. */
function redact(value) {
  try {
    const parsed = new URL(value);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
