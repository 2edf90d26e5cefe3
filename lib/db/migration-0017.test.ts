import type { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { applyMigration, pgliteBefore } from "@/lib/testing/migrations";

/*
 * Migration 0017 gives API keys a name. Keys made before it have none to keep, so each is named
 * "Unnamed key", the name of a key made without one; a name must be 1 to 100 characters.
 */

describe("migration 0017 on existing keys", () => {
  let db: PGlite | undefined;
  afterEach(async () => db?.close());

  it("names every older key 'Unnamed key', and refuses an empty or overlong name", async () => {
    db = await pgliteBefore("0017_api_key_names");
    await db.exec(
      `insert into organizations (id, name, billing_customer_id) values ('org_old', 'Old Keys Ltd', 'cus_old')`,
    );
    await db.exec(`insert into api_keys (id, organization_id, prefix, hash, scope) values
      ('key_a', 'org_old', 'pts_aaaaaaaa', 'hash-a', 'purchase'),
      ('key_b', 'org_old', 'pts_bbbbbbbb', 'hash-b', 'read')`);
    await applyMigration(db, "0017_api_key_names");

    const { rows } = await db.query<{ id: string; name: string }>("select id, name from api_keys order by id");
    expect(rows).toEqual([
      { id: "key_a", name: "Unnamed key" },
      { id: "key_b", name: "Unnamed key" },
    ]);
    await expect(db.exec(`update api_keys set name = '' where id = 'key_a'`)).rejects.toThrow(/api_keys_name_check/);
    await expect(db.exec(`update api_keys set name = repeat('n', 101) where id = 'key_a'`)).rejects.toThrow(
      /api_keys_name_check/,
    );
    await db.exec(`update api_keys set name = repeat('n', 100) where id = 'key_a'`);
  });
});
