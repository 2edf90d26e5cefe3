import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Pgbouncer, startPgbouncer } from "@/lib/testing/pgbouncer";
import { createScratchDatabase, type ScratchDatabase } from "@/lib/testing/scratch-database";
import { type Database, openDatabase } from "./client";
import { rowsOf } from "./rows";

/*
 * The service's own pool behind PgBouncer in transaction mode, configured as docs/operations.md
 * says (DATABASE_PREPARE=false, here `prepare: false`). Each transaction may reach a different server connection there,
 * so a statement prepared on one is missing on the next.
 */
const serverUrl = process.env.TEST_DATABASE_URL ?? "";

describe("transactions through PgBouncer in transaction mode", () => {
  let bouncer: Pgbouncer;
  let scratch: ScratchDatabase;
  let database: Database;

  beforeAll(async () => {
    bouncer = await startPgbouncer(serverUrl, { poolSize: 20 });
    scratch = await createScratchDatabase(serverUrl, "pooler_tx", { migrate: false });
    database = await openDatabase({ url: bouncer.urlFor(scratch.url), maxConnections: 10, prepare: false });
    await database.db.execute(sql`create table probe (id int primary key)`);
  });
  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
    await bouncer?.stop();
  });

  async function count(): Promise<number> {
    const [row] = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from probe`));
    return Number(row?.n);
  }

  it("keeps every transaction that committed, and none that rolled back, however many overlap", async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 60 }, (_, id) =>
        database.db.transaction(async (tx) => {
          await tx.execute(sql`insert into probe values (${id})`);
          if (id % 3 === 2) throw new Error("rolled back on purpose");
        }),
      ),
    );
    const committed = outcomes.filter((outcome) => outcome.status === "fulfilled").length;
    expect(committed).toBe(40);
    expect(await count()).toBe(40);
    const [kept] = rowsOf<{ n: number }>(
      await database.db.execute(sql`select count(*)::int as n from probe where id % 3 = 2`),
    );
    expect(Number(kept?.n)).toBe(0);
  });
});
