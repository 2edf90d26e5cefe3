import type { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { applyMigration, pgliteBefore } from "@/lib/testing/migrations";

/*
 * Migration 0020 turns every balance into lots without changing one: a paid lot per paid top-up,
 * holding what is left of it once the ledger is replayed in the order of use (spends from the
 * oldest lot, a refund or a dispute from its own top-up's lot first, a released dispute back to it).
 */

describe("migration 0020 on existing balances", () => {
  let db: PGlite | undefined;
  afterEach(async () => db?.close());

  it("makes one paid lot per paid top-up, their Points left summing to each balance, unchanged", async () => {
    db = await pgliteBefore("0020_point_lots");
    await db.exec(`insert into organizations (id, name, billing_customer_id, points_balance, held_points) values
      ('org_a', 'Spent and refunded', 'cus_a', 950, 0),
      ('org_b', 'Never bought', 'cus_b', 0, 0),
      ('org_c', 'Spent before its refund', 'cus_c', 0, 0),
      ('org_d', 'Still disputed', 'cus_d', 300, 200)`);
    const topUp = (id: string, org: string, points: number, at: string, source = "api") =>
      `('${id}', '${org}', '${id}', ${points}, 'USD', ${points * 10}, 'pm_x', 'cus_x', '${source}', 'paid', 'topup_${id}',
        'pi_${id}', '${at}', '${at}', '${at}')`;
    await db.exec(`insert into top_ups (id, organization_id, reference, points, currency, amount, payment_source_id,
      billing_customer_id, source, status, provider_idempotency_key, provider_payment_id, created_at, updated_at, paid_at) values
      ${[
        topUp("tu_a1", "org_a", 500, "2026-11-01T10:00:00Z"),
        topUp("tu_a2", "org_a", 1000, "2026-11-02T10:00:00Z", "auto_recharge"),
        topUp("tu_c1", "org_c", 100, "2026-11-01T10:00:00Z"),
        topUp("tu_d1", "org_d", 250, "2026-11-01T10:00:00Z"),
        topUp("tu_d2", "org_d", 250, "2026-11-02T10:00:00Z"),
      ].join(",")}`);
    const row = (
      id: string,
      org: string,
      topUpId: string | null,
      kind: string,
      delta: number,
      held: number,
      after: number,
      at: string,
      cause: string | null,
      shortfall = 0,
    ) =>
      `('${id}', '${org}', ${topUpId ? `'${topUpId}'` : "null"}, '${kind}', ${delta}, ${held}, ${after}, ${shortfall},
        ${cause ? `'${cause}'` : "null"}, '${kind}', '${at}')`;
    await db.exec(`insert into points_ledger (id, organization_id, top_up_id, kind, delta, held_delta, balance_after,
      shortfall, cause_id, reason, created_at) values ${[
        row("led_1", "org_a", "tu_a1", "purchase", 500, 0, 500, "2026-11-01T10:00:00Z", null),
        row("led_2", "org_a", "tu_a2", "purchase", 1000, 0, 1500, "2026-11-02T10:00:00Z", null),
        row("led_3", "org_a", null, "usage", -300, 0, 1200, "2026-11-03T10:00:00Z", "sp_1"),
        row("led_4", "org_a", "tu_a2", "refund", -250, 0, 950, "2026-11-04T10:00:00Z", "re_1"),
        row("led_5", "org_a", "tu_a1", "dispute_hold", -200, 200, 750, "2026-11-05T10:00:00Z", "du_1"),
        row("led_6", "org_a", "tu_a1", "dispute_release", 200, -200, 950, "2026-11-06T10:00:00Z", "du_1"),
        row("led_7", "org_c", "tu_c1", "purchase", 100, 0, 100, "2026-11-01T10:00:00Z", null),
        row("led_8", "org_c", null, "usage", -100, 0, 0, "2026-11-02T10:00:00Z", "sp_2"),
        row("led_9", "org_c", "tu_c1", "refund", 0, 0, 0, "2026-11-03T10:00:00Z", "re_2", 100),
        // A credit and a spend of the same instant: the credit goes first.
        row("led_10", "org_d", "tu_d1", "purchase", 250, 0, 250, "2026-11-01T10:00:00Z", null),
        row("led_11", "org_d", "tu_d2", "purchase", 250, 0, 500, "2026-11-02T10:00:00Z", null),
        row("led_12", "org_d", "tu_d2", "dispute_hold", -200, 200, 300, "2026-11-02T10:00:00Z", "du_2"),
      ].join(",")}`);
    await applyMigration(db, "0020_point_lots");

    const { rows: lots } = await db.query<{ id: string; category: string; points: number; remaining: number }>(
      "select id, category, points, remaining from point_lots order by id",
    );
    expect(lots).toEqual([
      // 500 bought, 300 spent from it (the oldest), 200 held and released back to it.
      { id: "lot_tu_a1", category: "paid", points: 500, remaining: 200 },
      // 1000 bought, 250 refunded from its own lot.
      { id: "lot_tu_a2", category: "paid", points: 1000, remaining: 750 },
      { id: "lot_tu_c1", category: "paid", points: 100, remaining: 0 },
      { id: "lot_tu_d1", category: "paid", points: 250, remaining: 250 },
      // Still held by its dispute: out of the balance, and so out of the lot.
      { id: "lot_tu_d2", category: "paid", points: 250, remaining: 50 },
    ]);
    const { rows: balances } = await db.query<{ id: string; balance: number; lots: number }>(
      `select o.id, o.points_balance::int as balance,
        coalesce((select sum(l.remaining) from point_lots l where l.organization_id = o.id), 0)::int as lots
       from organizations o order by o.id`,
    );
    expect(balances).toEqual([
      { id: "org_a", balance: 950, lots: 950 },
      { id: "org_b", balance: 0, lots: 0 },
      { id: "org_c", balance: 0, lots: 0 },
      { id: "org_d", balance: 300, lots: 300 },
    ]);
  });

  it("refuses to finish when an organisation's ledger does not add up to its balance", async () => {
    db = await pgliteBefore("0020_point_lots");
    await db.exec(
      `insert into organizations (id, name, billing_customer_id, points_balance) values ('org_x', 'Off', 'cus_x', 10)`,
    );
    await expect(applyMigration(db, "0020_point_lots")).rejects.toThrow(/do not sum to its balance/);
  });
});
