import { asc, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { Db } from "@/lib/db/client";
import {
  events,
  type LedgerEntry,
  organizations,
  pointLots,
  pointsLedger,
  simPayments,
  spends,
  type TopUp,
  topUps,
} from "@/lib/db/schema";
import { type Backend, createTestContext, type ProviderName, type ProviderTestContext } from "./harness";
import type { ProviderProbe } from "./provider-probe";

export interface LedgerState {
  balance: number;
  ledgerSum: number;
  paidTopUps: number;
  credits: number;
  /** Ledger credits for top-ups that are not paid: must be zero. */
  strayCredits: number;
  /** Paid top-ups credited other than exactly once: must be zero. */
  miscredited: number;
  /** Provider payments executed for this organisation's customer. */
  charges: number;
}

/**
 * docs/contract.md §9 (I1–I3) for one organisation, read straight from the tables; its charges from the
 * provider the probe reads (by default the simulated provider's table in the same database).
 */
export async function ledgerState(
  db: Db,
  organizationId: string,
  probe?: Pick<ProviderProbe, "countPayments">,
): Promise<LedgerState> {
  const [org] = await db.select().from(organizations).where(eq(organizations.id, organizationId));
  if (!org) throw new Error(`No organisation ${organizationId}`);
  const [ledger] = await db
    .select({
      sum: sql<string>`coalesce(sum(${pointsLedger.delta}), 0)`,
      count: sql<string>`count(*) filter (where ${pointsLedger.kind} = 'purchase')`,
    })
    .from(pointsLedger)
    .where(eq(pointsLedger.organizationId, organizationId));
  const perTopUp = await db
    .select({
      status: topUps.status,
      credits: sql<string>`(select count(*) from points_ledger l where l.top_up_id = "top_ups"."id" and l.kind = 'purchase')`,
    })
    .from(topUps)
    .where(eq(topUps.organizationId, organizationId));
  const charges = probe
    ? { count: await probe.countPayments(org.billingCustomerId) }
    : (
        await db
          .select({ count: sql<string>`count(*)` })
          .from(simPayments)
          .where(eq(simPayments.customerId, org.billingCustomerId))
      )[0];
  return {
    balance: org.pointsBalance,
    ledgerSum: Number(ledger?.sum ?? 0),
    paidTopUps: perTopUp.filter((row) => row.status === "paid").length,
    credits: Number(ledger?.count ?? 0),
    strayCredits: perTopUp.filter((row) => row.status !== "paid" && Number(row.credits) > 0).length,
    miscredited: perTopUp.filter((row) => row.status === "paid" && Number(row.credits) !== 1).length,
    charges: Number(charges?.count ?? 0),
  };
}

/**
 * I2 and I3 as assertions: the balance is the sum of the ledger, every paid top-up is credited
 * exactly its Points once, and nothing else is credited. After the charge, too: the held Points are
 * the sum of the ledger's held deltas; each top-up's Points credited, less those refunded and
 * lost to a dispute, are never below zero, and its recorded refunds and dispute agree with its
 * ledger rows; each provider refund and dispute step moved Points at most once.
 */
export async function expectBooksBalance(db: Db, organizationId: string): Promise<void> {
  const { expect } = await import("vitest");
  const [org] = await db.select().from(organizations).where(eq(organizations.id, organizationId));
  const ledger = await db.select().from(pointsLedger).where(eq(pointsLedger.organizationId, organizationId));
  const purchases = await db.select().from(topUps).where(eq(topUps.organizationId, organizationId));
  expect(ledger.reduce((sum, row) => sum + row.delta, 0)).toBe(org?.pointsBalance);
  expect(
    ledger.reduce((sum, row) => sum + row.heldDelta, 0),
    "held Points equal the ledger's held deltas",
  ).toBe(org?.heldPoints);
  for (const topUp of purchases) {
    const rows = ledger.filter((row) => row.topUpId === topUp.id);
    const credits = rows.filter((row) => row.kind === "purchase").map((row) => row.delta);
    expect(credits, `credits of ${topUp.status} top-up ${topUp.reference}`).toEqual(
      topUp.status === "paid" ? [topUp.points] : [],
    );
    // Points a refund took, or should have taken but had been spent (its shortfall).
    const refunded = rows
      .filter((row) => row.kind === "refund")
      .reduce((sum, row) => sum - row.delta + row.shortfall, 0);
    expect(refunded, `Points refunded of top-up ${topUp.reference}`).toBe(topUp.refundedPoints);
    const lost = topUp.disputePointsState === "removed" ? (topUp.disputePoints ?? 0) : 0;
    expect(
      topUp.points - topUp.refundedPoints - lost,
      `Points left of top-up ${topUp.reference}`,
    ).toBeGreaterThanOrEqual(topUp.status === "paid" ? 0 : topUp.points);
    const heldNow = rows.reduce((sum, row) => sum + row.heldDelta, 0);
    expect(heldNow, `Points held for top-up ${topUp.reference}`).toBe(
      topUp.disputePointsState === "held" ? (rows.find((row) => row.kind === "dispute_hold")?.heldDelta ?? 0) : 0,
    );
  }
  const causes = ledger.filter((row) => row.causeId !== null).map((row) => `${row.kind} ${row.causeId}`);
  expect(new Set(causes).size, "each provider refund and dispute step moves Points at most once").toBe(causes.length);
  const purchaseIds = new Set(purchases.map((topUp) => topUp.id));
  const withoutTopUp = ["usage", "grant", "grant_void", "expiry"];
  expect(
    ledger.every((row) => withoutTopUp.includes(row.kind) || (row.topUpId !== null && purchaseIds.has(row.topUpId))),
    "every ledger row but a spend's, a grant's and an expiry's is a top-up's",
  ).toBe(true);
  const spent = await db.select().from(spends).where(eq(spends.organizationId, organizationId));
  const usage = ledger.filter((row) => row.kind === "usage" && row.causeId !== null);
  expect(
    usage.map((row) => [row.causeId, -row.delta, row.balanceAfter]).sort(),
    "each spend took its Points once, in one ledger row, and left the balance it says",
  ).toEqual(spent.map((spend) => [spend.id, spend.points, spend.balanceAfter]).sort());
  await expectLotsAddUp(db, organizationId, org?.pointsBalance ?? 0, purchases, ledger);
  await expectEventsInOrder(db, organizationId, purchases, spent);
}

/**
 * Points in lots (docs/contract.md §10): the lots' Points left are the spendable balance; each paid
 * top-up has its one paid lot of its Points; each ledger row since lots records the lots it changed,
 * by as much as it changed the balance.
 */
export async function expectLotsAddUp(
  db: Db,
  organizationId: string,
  pointsBalance: number,
  purchases: TopUp[],
  ledger: LedgerEntry[],
): Promise<void> {
  const { expect } = await import("vitest");
  const lots = await db.select().from(pointLots).where(eq(pointLots.organizationId, organizationId));
  expect(
    lots.reduce((sum, lot) => sum + lot.remaining, 0),
    "the lots' Points left are the balance",
  ).toBe(pointsBalance);
  for (const topUp of purchases) {
    const own = lots.filter((lot) => lot.topUpId === topUp.id).map((lot) => [lot.category, lot.points]);
    expect(own, `the lot of ${topUp.status} top-up ${topUp.reference}`).toEqual(
      topUp.status === "paid" ? [["paid", topUp.points]] : [],
    );
  }
  for (const row of ledger) {
    if (row.lots === null) continue;
    expect(
      row.lots.reduce((sum, lot) => sum + lot.points, 0),
      `the lots ledger row ${row.kind} ${row.causeId ?? row.topUpId} changed`,
    ).toBe(row.delta);
  }
}

/**
 * The events of docs/contract.md §8 for one organisation: numbered 1 to N with no gap, N the
 * organisation's counter (the first ones may have been deleted after 30 days); each paid top-up
 * announced paid exactly once, each failed one failed exactly once, none of them both; each
 * event's top-up is the organisation's own.
 */
export async function expectEventsInOrder(
  db: Db,
  organizationId: string,
  purchases?: Array<{ id: string; status: string; reference: string }>,
  spent?: Array<{ id: string }>,
): Promise<void> {
  const { expect } = await import("vitest");
  const [org] = await db.select().from(organizations).where(eq(organizations.id, organizationId));
  const rows = await db
    .select()
    .from(events)
    .where(eq(events.organizationId, organizationId))
    .orderBy(asc(events.sequence));
  // Events older than 30 days are deleted: the ones kept are the last, still with no gap.
  const first = rows[0]?.sequence ?? 1;
  expect(
    rows.map((row) => row.sequence),
    "event sequences are 1, 2, 3… with no gap",
  ).toEqual(rows.map((_, index) => first + index));
  expect(rows.length + first - 1, "the organisation's counter is its last event's sequence").toBe(org?.eventSequence);
  const topUpOf = (row: (typeof rows)[number]) => (row.data as { top_up?: { id?: string } }).top_up?.id;
  const list = purchases ?? (await db.select().from(topUps).where(eq(topUps.organizationId, organizationId)));
  const ids = new Set(list.map((topUp) => topUp.id));
  for (const row of rows) {
    const id = topUpOf(row);
    if (id !== undefined)
      expect(ids.has(id), `${row.type} #${row.sequence} names a top-up of the organisation`).toBe(true);
  }
  const spendOf = (row: (typeof rows)[number]) => (row.data as { spend?: { id?: string } }).spend?.id;
  const spendIds = (spent ?? (await db.select().from(spends).where(eq(spends.organizationId, organizationId)))).map(
    (spend) => spend.id,
  );
  for (const row of rows.filter((row) => row.type === "points.spent")) {
    expect(spendIds, `points.spent #${row.sequence} names a spend of the organisation`).toContain(spendOf(row));
  }
  if (first === 1) {
    expect(
      rows
        .filter((row) => row.type === "points.spent")
        .map(spendOf)
        .sort(),
      "each spend announced once",
    ).toEqual([...spendIds].sort());
  }
  for (const topUp of first === 1 ? list : []) {
    const announced = (type: string) => rows.filter((row) => row.type === type && topUpOf(row) === topUp.id).length;
    expect(announced("top_up.paid"), `paid events of ${topUp.status} top-up ${topUp.reference}`).toBe(
      topUp.status === "paid" ? 1 : 0,
    );
    expect(announced("top_up.failed"), `failed events of ${topUp.status} top-up ${topUp.reference}`).toBe(
      topUp.status === "failed" ? 1 : 0,
    );
  }
}

/**
 * I1 and I4 at the provider: per top-up at most one payment that succeeded; exactly one when it is
 * paid (the one it recorded), none when it failed (money taken for a failed purchase); an
 * unresolved one may have one not yet learned. Every payment made for this organisation's
 * customer belongs to one of its top-ups.
 */
export async function expectOneSucceededPaymentPerPaidTopUp(
  db: Db,
  probe: ProviderProbe,
  organizationId: string,
): Promise<void> {
  const { expect } = await import("vitest");
  const [org] = await db.select().from(organizations).where(eq(organizations.id, organizationId));
  if (!org) throw new Error(`No organisation ${organizationId}`);
  const payments = await probe.payments(org.billingCustomerId);
  const purchases = await db.select().from(topUps).where(eq(topUps.organizationId, organizationId));
  for (const topUp of purchases) {
    const succeeded = payments.filter((payment) => payment.topUpId === topUp.id && payment.state === "succeeded");
    const label = `succeeded payments of ${topUp.status} top-up ${topUp.reference}`;
    if (topUp.status === "paid") expect(succeeded.length, label).toBe(1);
    else if (topUp.status === "failed") expect(succeeded.length, label).toBe(0);
    else expect(succeeded.length, label).toBeLessThanOrEqual(1);
    if (topUp.status === "paid")
      expect(topUp.providerPaymentId, `payment of ${topUp.reference}`).toBe(succeeded[0]?.id);
  }
  const purchaseIds = new Set(purchases.map((topUp) => topUp.id));
  expect(payments.filter((payment) => !payment.topUpId || !purchaseIds.has(payment.topUpId))).toEqual([]);
}

/** Everything that must hold after any test, on either provider: the books balance, and the provider agrees. */
export async function expectInvariants(
  context: { db: Db; probe: ProviderProbe },
  organizationId: string,
): Promise<void> {
  await expectBooksBalance(context.db, organizationId);
  await expectOneSucceededPaymentPerPaidTopUp(context.db, context.probe, organizationId);
}

/**
 * The frame of a service suite on one backend and provider: its context, made before the suite
 * (handed to `onContext`) and closed after it; and after each test, once the probe's steering is
 * reset, every organisation the test tracked is checked: whatever the test did, the books balance,
 * and the provider holds one succeeded payment per paid top-up and none for the others. Returns
 * `track`, to call with each organisation a test creates.
 */
export function serviceSuite(
  backend: Backend,
  provider: ProviderName,
  onContext: (ctx: ProviderTestContext) => void,
): (organizationId: string) => void {
  let ctx: ProviderTestContext | undefined;
  beforeAll(async () => {
    ctx = await createTestContext(backend, { provider });
    onContext(ctx);
  });
  afterAll(async () => {
    await ctx?.close();
  });
  const tracked: string[] = [];
  afterEach(async () => {
    if (!ctx) throw new Error("serviceSuite: no context (its beforeAll failed)");
    ctx.probe.reset();
    for (const id of tracked.splice(0)) await expectInvariants(ctx, id);
  });
  return (organizationId) => {
    tracked.push(organizationId);
  };
}
