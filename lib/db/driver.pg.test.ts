import postgres from "postgres";
import { describe, expect, it } from "vitest";

/*
 * The driver as installed, with patches/postgres+3.4.9.patch applied: a transaction's BEGIN that
 * fills a connection's pipeline still reserves that connection. The pipeline here is 5 deep so
 * that a few hundred queries reach its end; the service's is 100 deep, reached under load or while
 * a database restart holds queries back.
 */
const url = process.env.TEST_DATABASE_URL ?? "";

describe("postgres.js transactions at the end of a full pipeline", () => {
  it("runs each transaction on a connection of its own, and no other query inside it", async () => {
    // max_pipeline is an option postgres.js reads but its types do not list.
    const options = { max: 2, max_pipeline: 5, prepare: false, fetch_types: false, onnotice: () => {} };
    const sql = postgres(url, options);
    const outcomes: string[] = [];
    try {
      for (let round = 0; round < 5; round += 1) {
        // Both connections busy, so that what follows queues and is pipelined as they free up.
        const busy = [sql`select pg_sleep(0.1)`, sql`select pg_sleep(0.1)`];
        const work = Array.from({ length: 200 }, (_, index) =>
          index % 10 === 3
            ? sql
                .begin(async (tx) => {
                  const [first] = await tx`select txid_current()::text as id`;
                  await tx`select 1`;
                  const [last] = await tx`select txid_current()::text as id`;
                  return first?.id === last?.id ? `transaction ${first?.id}` : "split across transactions";
                })
                .catch((error: { code?: string }) => `error ${error.code}`)
            : sql`select txid_current_if_assigned()::text as id`.then(([row]) =>
                row?.id === null || row?.id === undefined ? "alone" : "inside a transaction",
              ),
        );
        outcomes.push(...(await Promise.all(work)));
        await Promise.all(busy);
      }
    } finally {
      await sql.end({ timeout: 5 });
    }
    const kinds = outcomes.map((outcome) => outcome.replace(/^transaction \d+$/, "transaction"));
    expect(kinds.filter((kind) => kind !== "transaction" && kind !== "alone")).toEqual([]);
    const transactions = outcomes.filter((outcome) => outcome.startsWith("transaction "));
    expect(transactions).toHaveLength(100);
    expect(new Set(transactions).size).toBe(100);
  });
});
