import type { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { purchaseCardLabel } from "@/lib/points/views/history";
import { applyMigration, pgliteBefore } from "@/lib/testing/migrations";

/*
 * Migration 0004 gives a purchase the label of the card it was made with. Purchases made before it
 * keep everything they had and no label, and are shown with the provider's label as before.
 */

describe("migration 0004 on existing purchases", () => {
  let db: PGlite | undefined;
  afterEach(async () => db?.close());

  it("keeps an older purchase as it was, with no label, shown as before", async () => {
    db = await pgliteBefore("0004_top_up_payment_method_label");
    await db.exec(`insert into organizations (id, name, billing_customer_id) values ('org_a', 'A', 'cus_a')`);
    await db.exec(`insert into top_ups (id, organization_id, reference, points, currency, amount, payment_source_id,
      billing_customer_id, source, status, provider_idempotency_key, created_at, updated_at, paid_at)
      values ('tu_old', 'org_a', 'old', 100, 'USD', 1000, 'pm_old', 'cus_a', 'api', 'paid', 'topup_tu_old', now(), now(), now())`);
    await applyMigration(db, "0004_top_up_payment_method_label");

    const { rows } = await db.query<{
      reference: string;
      payment_source_id: string;
      payment_method_label: string | null;
    }>("select reference, payment_source_id, payment_method_label from top_ups");
    expect(rows).toEqual([{ reference: "old", payment_source_id: "pm_old", payment_method_label: null }]);
    const old = { paymentSourceId: "pm_old", paymentMethodLabel: null };
    expect(purchaseCardLabel(old, new Map([["pm_old", "Visa •••• 4242"]]))).toBe("Visa •••• 4242");
    expect(purchaseCardLabel(old, new Map())).toBeNull();
    // A stored label wins over whatever the provider says now.
    expect(purchaseCardLabel({ ...old, paymentMethodLabel: "Visa •••• 0341" }, new Map())).toBe("Visa •••• 0341");
  });
});
