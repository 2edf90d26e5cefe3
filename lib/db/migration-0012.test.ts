import type { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { applyMigration, pgliteBefore } from "@/lib/testing/migrations";

/*
 * Migration 0012 records, on every purchase, the provider that charged it. Purchases made before it
 * are given theirs from what they hold: the simulated provider's customers and payments, or Stripe's.
 */

describe("migration 0012 on existing purchases", () => {
  let db: PGlite | undefined;
  afterEach(async () => db?.close());

  it("gives each older purchase the provider that charged it, and refuses any other name", async () => {
    db = await pgliteBefore("0012_top_up_provider");
    await db.exec(`insert into sim_customers (id) values ('cus_sim_A'), ('cus_legacy')`);
    await db.exec(`insert into organizations (id, name, billing_customer_id) values
      ('org_sim', 'Simulated', 'cus_sim_A'), ('org_legacy', 'Legacy', 'cus_legacy'), ('org_stripe', 'Stripe', 'cus_Q1')`);
    const row = (id: string, org: string, customer: string, status: string, payment: string | null) =>
      `('${id}', '${org}', '${id}', 100, 'USD', 1000, 'pm_x', '${customer}', 'api', '${status}', 'topup_${id}', ${
        payment ? `'${payment}'` : "null"
      }, now(), now(), ${status === "paid" ? "now()" : "null"})`;
    await db.exec(`insert into top_ups (id, organization_id, reference, points, currency, amount, payment_source_id,
      billing_customer_id, source, status, provider_idempotency_key, provider_payment_id, created_at, updated_at, paid_at) values
      ${[
        row("tu_sim_paid", "org_sim", "cus_sim_A", "paid", "pi_sim_1"),
        row("tu_sim_open", "org_sim", "cus_sim_A", "processing", null),
        row("tu_legacy", "org_legacy", "cus_legacy", "processing", null),
        row("tu_stripe_paid", "org_stripe", "cus_Q1", "paid", "pi_3Qx"),
        row("tu_stripe_open", "org_stripe", "cus_Q1", "processing", null),
      ].join(",\n")}`);
    await applyMigration(db, "0012_top_up_provider");

    const { rows } = await db.query<{ id: string; provider: string }>("select id, provider from top_ups order by id");
    expect(Object.fromEntries(rows.map((found) => [found.id, found.provider]))).toEqual({
      tu_legacy: "simulated",
      tu_sim_open: "simulated",
      tu_sim_paid: "simulated",
      tu_stripe_open: "stripe",
      tu_stripe_paid: "stripe",
    });
    await expect(db.exec(`update top_ups set provider = 'paypal' where id = 'tu_sim_paid'`)).rejects.toThrow(
      /top_ups_provider_check/,
    );
  });
});
