import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Pgbouncer, startPgbouncer } from "@/lib/testing/pgbouncer";
import { createScratchDatabase, type ScratchDatabase } from "@/lib/testing/scratch-database";
import { migratePostgres, migrationsFolder } from "./migrate";

/*
 * Startup and `db:migrate` behind a transaction-mode pooler (PgBouncer), where consecutive
 * statements of one client may reach different server connections: no session state may outlive a
 * transaction, or a lock taken on one connection is left on it for the next instance to wait on.
 */
const serverUrl = process.env.TEST_DATABASE_URL ?? "";

function within<T>(ms: number, what: string, run: Promise<T>): Promise<T> {
  return Promise.race([
    run,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)),
  ]);
}

describe("migrations through PgBouncer in transaction mode", () => {
  let bouncer: Pgbouncer;
  let scratch: ScratchDatabase;
  const prepare = process.env.DATABASE_PREPARE;

  beforeAll(async () => {
    process.env.DATABASE_PREPARE = "false";
    bouncer = await startPgbouncer(serverUrl, { poolSize: 2 });
    scratch = await createScratchDatabase(serverUrl, "pooler", { migrate: false });
  });
  afterAll(async () => {
    if (prepare === undefined) delete process.env.DATABASE_PREPARE;
    else process.env.DATABASE_PREPARE = prepare;
    await scratch?.drop();
    await bouncer?.stop();
  });

  it("lets instances that start at once, and each restart after, migrate once and leave no lock behind", async () => {
    const pooled = bouncer.urlFor(scratch.url);
    await within(30_000, "four migrators at once", Promise.all([1, 2, 3, 4].map(() => migratePostgres(pooled))));
    for (let restart = 0; restart < 3; restart += 1)
      await within(15_000, `restart ${restart + 1}`, migratePostgres(pooled));

    const { default: postgres } = await import("postgres");
    const direct = postgres(scratch.url, { max: 1, onnotice: () => {} });
    try {
      const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), "meta", "_journal.json"), "utf8")) as {
        entries: unknown[];
      };
      const [applied] = await direct`select count(*)::int as count from drizzle.__drizzle_migrations`;
      expect(applied?.count).toBe(journal.entries.length);
      const [locks] =
        await direct`select count(*)::int as count from pg_locks l join pg_database d on d.oid = l.database
        where l.locktype = 'advisory' and d.datname = current_database()`;
      expect(locks?.count).toBe(0);
      const [tables] =
        await direct`select count(*)::int as count from information_schema.tables where table_name = 'top_ups'`;
      expect(tables?.count).toBe(1);
    } finally {
      await direct.end({ timeout: 5 });
    }
  });
});
