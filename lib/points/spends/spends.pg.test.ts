import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { events, organizations, pointsLedger, spends, topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import {
  createTestContext,
  openInstance,
  type ProviderTestContext,
  patchProvider,
  providers,
} from "@/lib/testing/harness";
import { expectInvariants } from "@/lib/testing/invariants";
import { createOrganization } from "../accounts/organizations";
import { refundTopUp } from "../after-payment/refunds";
import { PointsError } from "../errors";
import { purchasePoints } from "../purchase";
import { rechargeAfterSpend, rechargeDueOrganizations, runDueRecharge } from "../recharge/auto-recharge";
import { saveBalanceSettings } from "../recharge/balance-settings";
import type { Services } from "../services";
import { spendPoints } from "./spends";

/*
 * Spends racing on a real Postgres server, from two "instances" (two pools on one database), as
 * two app servers would.
 */
describe.each(providers())("concurrent spends on Postgres across two instances (%s provider)", (provider) => {
  let first: ProviderTestContext;
  let second: ProviderTestContext;
  let instances: Services[];
  const tracked: string[] = [];

  beforeAll(async () => {
    first = await createTestContext("postgres", { maxConnections: 25, provider });
    second = await openInstance(first);
    instances = [first, second];
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });
  afterEach(async () => {
    for (const id of tracked.splice(0)) await expectInvariants(first, id);
  });

  async function organizationWith1000(): Promise<string> {
    const { organization } = await createOrganization(first, {
      name: `Spend race ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    tracked.push(organization.id);
    await purchasePoints(first, { organization, request: { points: 1000, reference: "fund" }, source: "api" });
    return organization.id;
  }

  it("50 spends that together exceed the balance: it never goes below zero, and only the answered ones are spent", async () => {
    const organizationId = await organizationWith1000();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        spendPoints(instances[index % 2] as Services, {
          organizationId,
          request: { points: 30, reference: `race-${index}` },
          source: "api",
        }).then(
          (result) => ({ reference: result.spend.reference, code: "spent" }),
          (error: unknown) => ({ reference: "", code: error instanceof PointsError ? error.code : String(error) }),
        ),
      ),
    );
    const answered = outcomes.filter((outcome) => outcome.code === "spent");
    expect(answered).toHaveLength(33);
    expect(outcomes.filter((outcome) => outcome.code === "insufficient_points")).toHaveLength(17);
    const [org] = await first.db.select().from(organizations).where(eq(organizations.id, organizationId));
    expect(org?.pointsBalance).toBe(10);
    const rows = await first.db.select().from(spends).where(eq(spends.organizationId, organizationId));
    expect(rows.map((row) => row.reference).sort()).toEqual(answered.map((outcome) => outcome.reference).sort());
    const ledger = await first.db.select().from(pointsLedger).where(eq(pointsLedger.organizationId, organizationId));
    expect(ledger.every((row) => row.balanceAfter >= 0)).toBe(true);
  });

  it("spends across lots race purchases that add lots, on two instances: the lots always sum to the balance", async () => {
    const organizationId = await organizationWith1000();
    const [organization] = await first.db.select().from(organizations).where(eq(organizations.id, organizationId));
    if (!organization) throw new Error("no organisation");
    // Four lots more, so that spends draw across them while new ones are credited.
    for (const points of [100, 100, 100, 100]) {
      await purchasePoints(first, {
        organization,
        request: { points: points as 100, reference: `lot-${randomString(6)}` },
        source: "api",
      });
    }
    const spent = Array.from({ length: 40 }, (_, index) =>
      spendPoints(instances[index % 2] as Services, {
        organizationId,
        request: { points: 45, reference: `across-${index}` },
        source: "api",
      }).then(
        () => "spent",
        (error: unknown) => (error instanceof PointsError ? error.code : String(error)),
      ),
    );
    const bought = Array.from({ length: 6 }, (_, index) =>
      purchasePoints(instances[index % 2] as Services, {
        organization,
        request: { points: 100, reference: `during-${index}` },
        source: "api",
      }),
    );
    const [outcomes] = await Promise.all([Promise.all(spent), Promise.all(bought)]);
    expect(outcomes.every((outcome) => outcome === "spent" || outcome === "insufficient_points")).toBe(true);
    // What expectInvariants checks after the test too: the lots' Points left are the balance, and each
    // spend's ledger row names lots that gave exactly its Points.
    const usage = await first.db
      .select()
      .from(pointsLedger)
      .where(and(eq(pointsLedger.organizationId, organizationId), eq(pointsLedger.kind, "usage")));
    expect(usage.filter((row) => (row.lots ?? []).length > 1).length, "spends drew across lots").toBeGreaterThan(0);
  });

  it("a refund racing spends of the same lot on two instances: the lot never goes below zero, and the books add up", async () => {
    const organizationId = await organizationWith1000();
    const [bought] = await first.db
      .select()
      .from(topUps)
      .where(and(eq(topUps.organizationId, organizationId), eq(topUps.reference, "fund")));
    if (!bought) throw new Error("no purchase");
    const spends = Array.from({ length: 12 }, (_, index) =>
      spendPoints(instances[index % 2] as Services, {
        organizationId,
        request: { points: 60, reference: `beside-refund-${index}` },
        source: "api",
      }).then(
        (result) => result.spend.points,
        (error: unknown) => {
          if (error instanceof PointsError && error.code === "insufficient_points") return 0;
          throw error;
        },
      ),
    );
    const [spent, refund] = await Promise.all([
      Promise.all(spends),
      refundTopUp(second, { topUpId: bought.id, points: 500 }),
    ]);
    const taken = spent.reduce((sum, points) => sum + points, 0);
    const [org] = await first.db.select().from(organizations).where(eq(organizations.id, organizationId));
    // What the refund could not take had been spent: its shortfall. Nothing is taken twice.
    expect(org?.pointsBalance).toBe(1000 - taken - (500 - refund.shortfall));
  });

  it("20 spends crossing the thresholds at once on two instances: one balance.low, one recharge, one charge", async () => {
    const organizationId = await organizationWith1000();
    await saveBalanceSettings(first, organizationId, {
      lowBalanceThreshold: 600,
      autoRecharge: { enabled: true, below: 600, points: 500, monthlyMax: null },
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => {
        const instance = instances[index % 2] as Services;
        return spendPoints(instance, {
          organizationId,
          request: { points: 30, reference: `cross-${index}` },
          source: "api",
        }).then(async (result) => {
          // Each instance runs what its answer calls for, and its reconciler too, all at once.
          await Promise.all([
            result.rechargeDue ? rechargeAfterSpend(instance, organizationId) : undefined,
            rechargeDueOrganizations(instance),
          ]);
          return result;
        });
      }),
    );
    expect(results.filter((result) => result.rechargeDue)).toHaveLength(1);
    await Promise.all(instances.map((instance) => rechargeDueOrganizations(instance)));
    const recharges = await first.db
      .select()
      .from(topUps)
      .where(and(eq(topUps.organizationId, organizationId), eq(topUps.source, "auto_recharge")));
    expect(recharges.map((topUp) => topUp.status)).toEqual(["paid"]);
    const low = await first.db
      .select()
      .from(events)
      .where(and(eq(events.organizationId, organizationId), eq(events.type, "balance.low")));
    expect(low).toHaveLength(1);
    const [org] = await first.db.select().from(organizations).where(eq(organizations.id, organizationId));
    expect(org?.pointsBalance).toBe(1000 - 600 + 500);
  });

  it("two crossings whose recharges race on two instances buy within the monthly cap: one charge", async () => {
    const organizationId = await organizationWith1000();
    await saveBalanceSettings(first, organizationId, {
      lowBalanceThreshold: null,
      autoRecharge: { enabled: true, below: 500, points: 1000, monthlyMax: 1000 },
    });
    const spend = (reference: string, points: number) =>
      spendPoints(first, { organizationId, request: { points, reference }, source: "api" });
    expect((await spend("cross-1", 600)).rechargeDue).toBe(true);
    // Crossing 1's recharge starts on the second instance, and its card listing is slow (on Stripe,
    // the test server delays it): the recharge has decided to buy but recorded nothing yet.
    let listing: () => void = () => {};
    const listed = new Promise<void>((resolve) => {
      listing = resolve;
    });
    const fake = first.stripe?.fake;
    fake?.control.fault({ method: "GET", path: "/v1/payment_methods", kind: "delay", delayMs: 1500, times: 1 });
    const slow = patchProvider(second.provider, {
      listPaymentMethods: async (customerId) => {
        listing();
        if (!fake) await new Promise((resolve) => setTimeout(resolve, 1500));
        return second.provider.listPaymentMethods(customerId);
      },
    });
    const firstRecharge = runDueRecharge({ ...second, provider: slow }, organizationId);
    await listed;
    // Meanwhile, on the first instance, the client buys and spends below the level again: crossing 2.
    const [org] = await first.db.select().from(organizations).where(eq(organizations.id, organizationId));
    await purchasePoints(first, {
      organization: org as NonNullable<typeof org>,
      request: { points: 1000, reference: "more" },
      source: "api",
    });
    expect((await spend("cross-2", 1000)).rechargeDue).toBe(true);
    const outcomes = await Promise.all([runDueRecharge(first, organizationId), firstRecharge]);
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(["bought", "capped"]);
    const recharges = await first.db
      .select()
      .from(topUps)
      .where(and(eq(topUps.organizationId, organizationId), eq(topUps.source, "auto_recharge")));
    expect(recharges.map((topUp) => [topUp.points, topUp.status])).toEqual([[1000, "paid"]]);
  });

  it("20 requests with one reference at once make one spend, and all answer it", async () => {
    const organizationId = await organizationWith1000();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        spendPoints(instances[index % 2] as Services, {
          organizationId,
          request: { points: 70, reference: "same", description: "One job" },
          source: "api",
        }),
      ),
    );
    expect(new Set(results.map((result) => result.spend.id)).size).toBe(1);
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    expect(results.every((result) => result.pointsBalance === 930)).toBe(true);
    const rows = await first.db.select().from(spends).where(eq(spends.organizationId, organizationId));
    expect(rows).toHaveLength(1);
  });
});
