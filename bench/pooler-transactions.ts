/**
 * A finding to keep reproducing until it is fixed (issue 28): behind PgBouncer 1.18 in transaction
 * mode, postgres.js transactions (sql.begin) that overlap are not all kept, with no error. Direct to
 * Postgres, every one is. Run: `TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx
 * bench/pooler-transactions.ts`; it prints how many of 40 committed transactions each setup kept.
 *
 * What is known so far: it is postgres.js's `sql.begin` racing under concurrency (porsager/postgres
 * PRs 1206 and 1207: the connection BEGIN went to is sometimes left unmarked, so other queries are
 * pipelined into its transaction); PgBouncer turns that into silent loss. A transaction on a
 * connection taken with `sql.reserve()` first (BEGIN, statements, COMMIT by hand) kept all 40, but
 * postgres.js 3.4's `reserve()` never resolves when it has to open the connection itself (with
 * fetch_types off, connection.js hands a reservation no connection it opened), so using it needs an
 * idle connection guaranteed first: that is the fix still to make.
 */
import postgres from "postgres";
import { startPgbouncer } from "@/lib/testing/pgbouncer";
import { createScratchDatabase } from "@/lib/testing/scratch-database";

async function kept(url: string, pools: number, max: number): Promise<number> {
  const setup = postgres(url, { max: 1, onnotice: () => {} });
  await setup.unsafe("drop table if exists pooler_probe; create table pooler_probe (id int primary key)");
  const clients = Array.from({ length: pools }, () => postgres(url, { max, onnotice: () => {} }));
  const each = Math.ceil(40 / pools);
  await Promise.all(
    clients.flatMap((sql, pool) =>
      Array.from({ length: each }, (_, index) =>
        sql.begin(async (tx) => {
          await tx.unsafe("insert into pooler_probe values ($1)", [pool * 1000 + index]);
        }),
      ),
    ),
  );
  const [row] = await setup.unsafe("select count(*)::int as n from pooler_probe");
  for (const client of clients) await client.end();
  await setup.end();
  return Number(row?.n ?? 0);
}

async function main(): Promise<void> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) throw new Error("Set TEST_DATABASE_URL to a Postgres server.");
  const bouncer = await startPgbouncer(server, { poolSize: 20 });
  const scratch = await createScratchDatabase(server, "pooler_probe", { migrate: false });
  try {
    const pooled = bouncer.urlFor(scratch.url);
    for (const [name, url, pools, max] of [
      ["direct, one pool of 10", scratch.url, 1, 10],
      ["PgBouncer, one pool of 10", pooled, 1, 10],
      ["PgBouncer, two pools of 1", pooled, 2, 1],
      ["PgBouncer, one pool of 1", pooled, 1, 1],
    ] as const) {
      console.log(`${name}: ${await kept(url, pools, max)} of 40 committed transactions kept`);
    }
  } finally {
    await scratch.drop();
    await bouncer.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
