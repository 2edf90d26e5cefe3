import type { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { applyMigration, pgliteBefore } from "@/lib/testing/migrations";

/*
 * Migration 0019 keeps every secret rotated away in the last 24 hours (retired_secrets) where one
 * column kept the last. A previous secret still signing when it runs keeps signing until its time.
 */

describe("migration 0019 on existing webhook endpoints", () => {
  let db: PGlite | undefined;
  afterEach(async () => db?.close());

  it("carries a previous secret still signing into retired_secrets, and leaves an expired one behind", async () => {
    db = await pgliteBefore("0019_webhook_retired_secrets");
    await db.exec(
      `insert into organizations (id, name, billing_customer_id) values ('org_old', 'Old Hooks Ltd', 'cus_old')`,
    );
    await db.exec(`insert into webhook_endpoints
      (organization_id, id, url, secret, previous_secret, previous_secret_expires_at, fanned_out_through) values
      ('org_old', 'we_signing', 'https://a.example/h', 'whsec_new', 'whsec_old', '2999-01-02T03:04:05.678Z', 0),
      ('org_old', 'we_expired', 'https://b.example/h', 'whsec_b', 'whsec_gone', '2001-01-01T00:00:00Z', 0),
      ('org_old', 'we_never', 'https://c.example/h', 'whsec_c', null, null, 0)`);
    await applyMigration(db, "0019_webhook_retired_secrets");

    const { rows } = await db.query<{ id: string; retired_secrets: unknown }>(
      "select id, retired_secrets from webhook_endpoints order by id",
    );
    expect(rows).toEqual([
      { id: "we_expired", retired_secrets: [] },
      { id: "we_never", retired_secrets: [] },
      { id: "we_signing", retired_secrets: [{ secret: "whsec_old", signs_until: "2999-01-02T03:04:05.678Z" }] },
    ]);
  });
});
