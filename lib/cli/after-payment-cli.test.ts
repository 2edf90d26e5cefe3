import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organizations, refunds, simRefunds, topUps } from "@/lib/db/schema";
import { createOrganization } from "@/lib/points/organizations";
import { purchasePoints } from "@/lib/points/purchase";
import { parseTopUpRequest } from "@/lib/points/top-up-request";
import { backends } from "@/lib/testing/harness";
import { createTarget, expectRefused, parseJsonOutput, runPoints, SPAWNING_TIMEOUT_MS, type Target } from "./points-cli-fixture";

/*
 * The operator's commands after the charge, run as an operator runs them: a refund (again, and by
 * two operators at once), a dispute taken from the provider's events and settled, Points spent.
 */
describe.each(backends())("refunds and disputes from npm run points against %s", { timeout: SPAWNING_TIMEOUT_MS }, (backend) => {
  let target: Target;
  const points = (...args: string[]) => runPoints(target.env, args);
  let organizationId = "";
  let refunded = "";
  let disputed = "";

  beforeAll(async () => {
    target = await createTarget(backend);
    // The database is made and migrated by the first command.
    expect((await points("reconcile")).code).toBe(0);
    await target.withDb(async (services) => {
      const { organization, paymentMethods } = await createOrganization(services, {
        name: "After payment",
        settings: { currency: "USD", apiPurchasesEnabled: true },
        cards: ["visa", "dispute"],
        defaultCardIndex: 0,
      });
      organizationId = organization.id;
      const buy = async (reference: string, points: number, paymentSourceId?: string) => {
        const request = parseTopUpRequest({ points, reference, ...(paymentSourceId ? { payment_source_id: paymentSourceId } : {}) });
        const result = await purchasePoints(services, { organization, request, source: "api" });
        expect(result.topUp.status).toBe("paid");
        return result.topUp.id;
      };
      refunded = await buy("to-refund", 1000);
      disputed = await buy("to-dispute", 500, paymentMethods[1]?.id);
    });
  }, SPAWNING_TIMEOUT_MS);
  afterAll(async () => {
    await target?.dispose();
  });

  const state = () =>
    target.withDb(async (services) => {
      const [org] = await services.db.select().from(organizations).where(eq(organizations.id, organizationId));
      const rows = await services.db.select().from(topUps).where(eq(topUps.organizationId, organizationId));
      return { balance: org?.pointsBalance, held: org?.heldPoints, topUps: new Map(rows.map((row) => [row.id, row])) };
    });

  it("refunds part of a purchase, prints it, and the same command again refunds nothing more", async () => {
    const first = parseJsonOutput(await points("top-up", "refund", refunded, "--points", "250", "--reason", "duplicate order", "--json"));
    expect(first).toMatchObject({
      top_up_id: refunded,
      organization_id: organizationId,
      status: "succeeded",
      points: 250,
      amount: 2125,
      currency: "USD",
      shortfall_points: 0,
      points_balance: 1250,
      replayed: false,
      failure: null,
    });
    expect(first.refund_id).toMatch(/^rf_/);
    const again = await points("top-up", "refund", refunded, "--points", "250", "--reason", "duplicate order");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`Already refunded 250 Points \\(\\$21\\.25\\) of ${refunded}`));
    const after = await state();
    expect(after.balance).toBe(1250);
    expect(after.topUps.get(refunded)).toMatchObject({ refundedPoints: 250, refundedAmount: 2125 });
  });

  it("refuses more Points than are left, exiting 1 with the reason and changing nothing", async () => {
    expectRefused(await points("top-up", "refund", refunded, "--points", "751"), /has 750 Points left to refund, not 751/);
    expectRefused(await points("top-up", "refund", "tu_nobody"), /No top-up tu_nobody/);
    const usage = await points("top-up", "refund");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/TOP_UP_ID/);
    expect((await state()).balance).toBe(1250);
  });

  it("refunds once when two operators run the same refund at once", async () => {
    const both = await target.runAll([
      ["top-up", "refund", refunded, "--points", "100", "--json"],
      ["top-up", "refund", refunded, "--points", "100", "--json"],
    ]);
    // One may find the provider still busy with the other's identical request: running it again settles it.
    const settled = await Promise.all(
      both.map(async (result) => (result.code === 0 ? result : points("top-up", "refund", refunded, "--points", "100", "--json"))),
    );
    const outputs = settled.map((result) => parseJsonOutput(result));
    expect(new Set(outputs.map((output) => output.refund_id)).size).toBe(1);
    await target.withDb(async (services) => {
      const rows = await services.db.select().from(refunds).where(eq(refunds.topUpId, refunded));
      expect(rows.map((row) => row.points).sort()).toEqual([100, 250]);
      const [made] = await services.db.select().from(topUps).where(eq(topUps.id, refunded));
      const atProvider = await services.db.select().from(simRefunds).where(eq(simRefunds.paymentId, made?.providerPaymentId ?? ""));
      expect(atProvider).toHaveLength(2);
    });
    expect((await state()).balance).toBe(1150);
  });

  it("takes the dispute from the provider's events, settles it lost in test mode, and removes the Points", async () => {
    expect((await points("reconcile")).code).toBe(0);
    const opened = await state();
    expect(opened.topUps.get(disputed)).toMatchObject({ disputeStatus: "open", disputePointsState: "held", disputePoints: 500 });
    expect(opened).toMatchObject({ balance: 650, held: 500 });
    expectRefused(await points("top-up", "refund", disputed), /no Points left to refund \(a dispute covers them\)/);
    const settled = parseJsonOutput(await points("dispute", "settle", disputed, "--outcome", "lost", "--json"));
    expect(settled).toMatchObject({ top_up_id: disputed, status: "lost", points: 500, points_state: "removed", points_balance: 650 });
    expectRefused(await points("dispute", "settle", disputed, "--outcome", "won"), /is lost already/);
    expect(await state()).toMatchObject({ balance: 650, held: 0 });
    const report = parseJsonOutput(await points("reconcile", "--report", "--json"));
    expect(report).toEqual({ needs_attention: [], unmatched_events: [], deferred_events: [], unanswered_refunds: [] });
  });

  it("records Points spent, never more than the spendable balance", async () => {
    const spent = parseJsonOutput(await points("org", "spend", organizationId, "--points", "600", "--json"));
    expect(spent).toEqual({ organization_id: organizationId, points: 600, points_balance: 50 });
    expectRefused(await points("org", "spend", organizationId, "--points", "51"), /has 50 Points to spend, not 51/);
    // The rest of the partly refunded purchase: 650 Points, of which 600 were spent: a shortfall.
    const result = await points("top-up", "refund", refunded, "--json");
    expect(result.code, result.stderr).toBe(0);
    // Reported to the operator on stderr; stdout stays one JSON object.
    expect(result.stderr).toMatch(/took 50 of 650 Points: 600 had been spent already \(shortfall\)/);
    const rest = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(rest).toMatchObject({ status: "succeeded", points: 650, shortfall_points: 600, points_balance: 0 });
    expect((await state()).topUps.get(refunded)).toMatchObject({ refundedPoints: 1000, refundedAmount: 8500 });
  });
});
