import { runDbMigrate } from "@/lib/cli/db-migrate";

// `npm run db:migrate`: DATABASE_URL's Postgres, else the embedded PGlite directory.
process.exitCode = await runDbMigrate({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
