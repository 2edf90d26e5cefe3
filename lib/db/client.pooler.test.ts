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

  it("answers every query, each with its own rows, when more are in flight than the pool has connections", async () => {
    // Ten connections for 2,000 requests: a driver that pipelines queued queries onto a busy
    // connection sends several through one pooled session, and the pooler loses their answers.
    const N = 2000;
    const answers = await Promise.all(
      Array.from({ length: N }, async (_, n) => {
        if (n % 4 === 0) {
          return database.db.transaction(async (tx) => {
            await tx.execute(sql`insert into probe values (${1000 + n}) on conflict do nothing`);
            const [row] = rowsOf<{ v: number }>(await tx.execute(sql`select ${n}::int as v, pg_sleep(0.002)`));
            await tx.execute(sql`select count(*) from probe`);
            return Number(row?.v);
          });
        }
        if (n % 4 === 1) {
          // No parameters: the driver sends it whole, and may send the next query behind it at once.
          await database.db.execute(sql`select pg_sleep(0.001)`);
          return n;
        }
        const [row] = rowsOf<{ v: number }>(await database.db.execute(sql`select ${n}::int as v`));
        return Number(row?.v);
      }),
    );
    expect(answers).toEqual(Array.from({ length: N }, (_, n) => n));
  }, 15_000);
});
