import type { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { migrationStatements, pgliteBefore } from "@/lib/testing/migrations";

/*
 * Migration 0003 makes one billing customer back one organisation. A database that already has two
 * organisations on one customer (the defect it closes) must be refused with their IDs named, and
 * left as it was, rather than fail on a bare duplicate key.
 */

async function apply0003(db: PGlite): Promise<void> {
  await db.transaction(async (tx) => {
    for (const statement of migrationStatements("0003_session_version_unique_customer")) await tx.exec(statement);
  });
}

describe("migration 0003 on existing data", () => {
  let db: PGlite | undefined;
  afterEach(async () => db?.close());

  it("refuses organisations that share a billing customer, naming them, and changes nothing", async () => {
    db = await pgliteBefore("0003_session_version_unique_customer");
    await db.exec(`insert into organizations (id, name, billing_customer_id) values
      ('org_a', 'A', 'cus_shared'), ('org_b', 'B', 'cus_shared'), ('org_c', 'C', 'cus_own')`);
    const applying = apply0003(db);
    await expect(applying).rejects.toThrow(/Organisations share a billing customer: cus_shared \(org_a, org_b\)/);
    const columns = await db.query(
      `select column_name from information_schema.columns where table_name = 'users' and column_name = 'session_version'`,
    );
    expect(columns.rows).toEqual([]);
  });

  it("applies to organisations with a customer each, and then holds one organisation per customer", async () => {
    db = await pgliteBefore("0003_session_version_unique_customer");
    await db.exec(
      `insert into organizations (id, name, billing_customer_id) values ('org_a', 'A', 'cus_a'), ('org_b', 'B', 'cus_b')`,
    );
    await apply0003(db);
    await expect(
      db.exec(`insert into organizations (id, name, billing_customer_id) values ('org_c', 'C', 'cus_a')`),
    ).rejects.toThrow(/organizations_billing_customer_idx/);
  });
});
