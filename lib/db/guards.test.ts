import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organizations, pointsLedger, topUps } from "@/lib/db/schema";
import { newId, randomString } from "@/lib/ids";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { purchasePoints } from "@/lib/points/purchase";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";

/*
 * The database guards the money by itself, whatever a bug, a script or a console session tries:
 * each statement below must be refused by Postgres, and leave the row as it was.
 */
describe.each(backends())("database guards (%s)", (backend) => {
  let ctx: TestContext;
  let organizationId: string;
  let paidTopUpId: string;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
    const { organization } = await createOrganization(ctx, {
      name: `Guards ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    organizationId = organization.id;
    const paid = await purchasePoints(ctx, {
      organization,
      request: { points: 100, reference: "paid-1" },
      source: "api",
    });
    paidTopUpId = paid.topUp.id;
  });
  afterAll(async () => ctx?.close());

  /** Fails the test unless the database refuses the write, naming what refused it. */
  async function refused(write: () => Promise<unknown>, why: RegExp): Promise<void> {
    let error: unknown;
    try {
      await write();
    } catch (caught) {
      error = caught;
    }
    if (!error) throw new Error("The database accepted the write.");
    const message = [error, (error as { cause?: unknown }).cause].map(String).join(" ");
    expect(message).toMatch(why);
  }

  const topUpRow = (overrides: Partial<typeof topUps.$inferInsert>) => {
    const id = newId("topUp");
    return {
      id,
      organizationId,
      reference: `guard-${randomString(6)}`,
      points: 100,
      currency: "USD",
      amount: 1000,
      paymentSourceId: "pm_x",
      billingCustomerId: "cus_x",
      source: "api",
      status: "pending",
      providerIdempotencyKey: `topup_${id}`,
      ...overrides,
    };
  };

  it("refuses to change or remove a ledger entry", async () => {
    await refused(
      () => ctx.db.update(pointsLedger).set({ delta: 1_000_000 }).where(eq(pointsLedger.topUpId, paidTopUpId)),
      /append-only/,
    );
    await refused(() => ctx.db.delete(pointsLedger).where(eq(pointsLedger.topUpId, paidTopUpId)), /append-only/);
    const rows = await ctx.db.select().from(pointsLedger).where(eq(pointsLedger.topUpId, paidTopUpId));
    expect(rows.map((row) => row.delta)).toEqual([100]);
  });

  it("refuses a negative balance", async () => {
    await refused(
      () => ctx.db.update(organizations).set({ pointsBalance: -1 }).where(eq(organizations.id, organizationId)),
      /organizations_points_balance_check/,
    );
  });

  it.each([
    ["an amount of zero", { amount: 0 }, /top_ups_amount_check/],
    ["a negative amount", { amount: -500 }, /top_ups_amount_check/],
    ["points outside the bundles", { points: 99 }, /top_ups_points_check/],
    ["paid without paid_at", { status: "paid" }, /top_ups_paid_at_check/],
    ["paid_at on an unpaid purchase", { status: "failed", paidAt: new Date() }, /top_ups_paid_at_check/],
  ] as const)("refuses a top-up with %s", async (_, overrides, why) => {
    await refused(() => ctx.db.insert(topUps).values(topUpRow(overrides)), why);
  });

  it("refuses a second purchase under the same provider idempotency key", async () => {
    const [paid] = await ctx.db.select().from(topUps).where(eq(topUps.id, paidTopUpId));
    await refused(
      () => ctx.db.insert(topUps).values(topUpRow({ providerIdempotencyKey: paid?.providerIdempotencyKey })),
      /top_ups_provider_idempotency_key_idx|duplicate key/,
    );
  });

  it("refuses a second purchase with the same provider payment or dispute", async () => {
    const [paid] = await ctx.db.select().from(topUps).where(eq(topUps.id, paidTopUpId));
    await refused(
      () => ctx.db.insert(topUps).values(topUpRow({ providerPaymentId: paid?.providerPaymentId })),
      /top_ups_provider_payment_idx|duplicate key/,
    );
    const disputeId = `du_${randomString(8)}`;
    await ctx.db.insert(topUps).values(topUpRow({ disputeId }));
    await refused(() => ctx.db.insert(topUps).values(topUpRow({ disputeId })), /top_ups_dispute_idx|duplicate key/);
    // Purchases with neither, any number of them, are what every new purchase is.
    await ctx.db.insert(topUps).values([topUpRow({}), topUpRow({})]);
  });

  it("refuses a second ledger move by the same refund", async () => {
    const move = () => ({
      id: newId("ledger"),
      organizationId,
      topUpId: paidTopUpId,
      kind: "refund",
      delta: -1,
      balanceAfter: 99,
      causeId: "re_guard",
      reason: "refund",
    });
    await ctx.db.insert(pointsLedger).values(move());
    await refused(() => ctx.db.insert(pointsLedger).values(move()), /points_ledger_cause_idx|duplicate key/);
  });

  it("keeps balances and amounts past 32 bits", async () => {
    const big = 5_000_000_000;
    await ctx.db
      .update(organizations)
      .set({ pointsBalance: sql`${organizations.pointsBalance} + ${big}` })
      .where(eq(organizations.id, organizationId));
    const [org] = await ctx.db.select().from(organizations).where(eq(organizations.id, organizationId));
    expect(org?.pointsBalance).toBe(big + 100);
    await ctx.db.update(organizations).set({ pointsBalance: 100 }).where(eq(organizations.id, organizationId));
  });
});
