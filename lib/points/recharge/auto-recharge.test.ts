import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Bundle } from "@/lib/catalog";
import { auditLog, organizations, type TopUp, topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { deliverEvents } from "@/lib/testing/after-payment";
import { backendsAndProviders, expectPointsError, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { createOrganization } from "../accounts/organizations";
import { refundTopUp } from "../after-payment/refunds";
import { toEventJson, toTopUpJson } from "../api/json";
import { listEvents } from "../events/events";
import { purchasePoints } from "../purchase";
import { spendPoints } from "../spends/spends";
import {
  monthStart,
  RECHARGES_PER_HOUR,
  rechargeDueOrganizations,
  rechargedThisMonth,
  runDueRecharge,
} from "./auto-recharge";
import { type BalanceSettings, NO_BALANCE_SETTINGS, saveBalanceSettings } from "./balance-settings";

describe.each(backendsAndProviders())("Low balance and auto-recharge (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  /** An organisation with 1,000 Points bought on `card`, and these balance settings. */
  async function setup(settings: Partial<BalanceSettings> & { auto?: Partial<BalanceSettings["autoRecharge"]> }) {
    const { organization, paymentMethods } = await createOrganization(ctx, {
      name: `Recharge ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa", "declined"],
      defaultCardIndex: 0,
    });
    track(organization.id);
    await purchasePoints(ctx, { organization, request: { points: 1000, reference: "fund" }, source: "api" });
    const save = (auto: Partial<BalanceSettings["autoRecharge"]> = {}) =>
      saveBalanceSettings(ctx, organization.id, {
        lowBalanceThreshold: settings.lowBalanceThreshold ?? null,
        autoRecharge: { ...NO_BALANCE_SETTINGS.autoRecharge, ...settings.auto, ...auto },
      });
    await save();
    let n = 0;
    const spend = (points: number) =>
      spendPoints(ctx, { organizationId: organization.id, request: { points, reference: `s-${n++}` }, source: "api" });
    const eventsOf = async (type: string) =>
      (await listEvents(ctx.db, organization.id, { after: 0, limit: 100 })).events
        .map(toEventJson)
        .filter((event) => event.type === type);
    const recharges = () =>
      ctx.db
        .select()
        .from(topUps)
        .where(and(eq(topUps.organizationId, organization.id), eq(topUps.source, "auto_recharge")));
    const org = async () => (await ctx.db.select().from(organizations).where(eq(organizations.id, organization.id)))[0];
    return { organization, paymentMethods, save, spend, eventsOf, recharges, org };
  }

  const on = (below: number, points: Bundle, monthlyMax: number | null = null) => ({
    auto: { enabled: true, below, points, monthlyMax },
  });

  it("announces balance.low once when the balance goes below the threshold, again only after it was back above", async () => {
    const { spend, eventsOf, organization } = await setup({ lowBalanceThreshold: 500 });
    await spend(400);
    expect(await eventsOf("balance.low")).toEqual([]);
    await spend(200);
    await spend(100);
    const low = await eventsOf("balance.low");
    expect(low.map((event) => event.data)).toEqual([{ points_balance: 400, threshold: 500 }]);
    await purchasePoints(ctx, { organization, request: { points: 250, reference: "up" }, source: "api" });
    await spend(200);
    expect((await eventsOf("balance.low")).map((event) => event.data)).toEqual([
      { points_balance: 400, threshold: 500 },
      { points_balance: 350, threshold: 500 },
    ]);
  });

  it("buys the bundle once per crossing, after the spend, with source auto_recharge", async () => {
    const { spend, recharges, org } = await setup(on(300, 500));
    const first = await spend(600);
    expect(first.rechargeDue).toBe(false);
    const crossing = await spend(200);
    expect(crossing.rechargeDue).toBe(true);
    expect(crossing.pointsBalance).toBe(200);
    const outcome = await runDueRecharge(ctx, crossing.spend.organizationId);
    expect(outcome).toMatchObject({ kind: "bought", topUp: { points: 500, source: "auto_recharge", status: "paid" } });
    // Again, and the reconciler: nothing more is bought.
    expect(await runDueRecharge(ctx, crossing.spend.organizationId)).toEqual({ kind: "none" });
    await rechargeDueOrganizations(ctx);
    expect(await recharges()).toHaveLength(1);
    expect((await org())?.pointsBalance).toBe(700);
    // A spend that stays above the level crosses nothing.
    expect((await spend(300)).rechargeDue).toBe(false);
  });

  it("finishes a crossing whose recharge never ran (a crash) from the reconciler, charging once", async () => {
    const { spend, recharges, org } = await setup(on(300, 250));
    const crossed = await spend(800);
    expect(crossed.rechargeDue).toBe(true);
    // The process died here: the recharge after the commit never ran.
    expect(await recharges()).toEqual([]);
    await rechargeDueOrganizations(ctx);
    await rechargeDueOrganizations(ctx);
    expect((await recharges()).map((topUp) => [topUp.status, topUp.reference])).toEqual([["paid", "auto-recharge:1"]]);
    expect((await org())?.pointsBalance).toBe(450);
  });

  it("pauses on a decline: one auto_recharge.failed, an audit entry, no retry, until the setting is saved again", async () => {
    const { spend, recharges, org, save, eventsOf, organization, paymentMethods } = await setup(on(300, 250));
    await ctx.provider.setDefaultPaymentMethod(organization.billingCustomerId, paymentMethods[1]?.id ?? null);
    const crossed = await spend(800);
    const outcome = await runDueRecharge(ctx, organization.id);
    expect(outcome).toMatchObject({ kind: "paused", topUp: { status: "failed" } });
    await rechargeDueOrganizations(ctx);
    expect(await runDueRecharge(ctx, organization.id)).toEqual({ kind: "none" });
    expect(await recharges()).toHaveLength(1);
    const failed = await eventsOf("auto_recharge.failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]?.data).toMatchObject({ reason: "card_declined", top_up: { status: "failed" } });
    expect((await org())?.autoRechargePausedReason).toBe("card_declined");
    const audit = await ctx.db.select().from(auditLog).where(eq(auditLog.organizationId, organization.id));
    expect(audit.filter((entry) => entry.action === "auto_recharge.paused")).toHaveLength(1);
    // Paused: a new crossing buys nothing.
    const refill = (reference: string) =>
      purchasePoints(ctx, {
        organization,
        request: { points: 500, reference, paymentSourceId: paymentMethods[0]?.id },
        source: "api",
      });
    await refill("refill");
    expect((await spend(500)).rechargeDue).toBe(false);
    // An admin picks a working card and saves the setting again: it resumes.
    await ctx.provider.setDefaultPaymentMethod(organization.billingCustomerId, paymentMethods[0]?.id ?? null);
    await save();
    expect((await org())?.autoRechargePausedReason).toBeNull();
    await refill("refill-2");
    expect((await spend(500)).rechargeDue).toBe(true);
    expect(await runDueRecharge(ctx, organization.id)).toMatchObject({ kind: "bought" });
    expect(crossed.spend.points).toBe(800);
  });

  it("pauses when the card asks for its holder (an off-session payment needing authentication)", async () => {
    const { organization, paymentMethods } = await createOrganization(ctx, {
      name: `Recharge 3DS ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa", "authentication_required"],
      defaultCardIndex: 1,
    });
    track(organization.id);
    await saveBalanceSettings(ctx, organization.id, {
      lowBalanceThreshold: null,
      autoRecharge: { enabled: true, below: 1, points: 100, monthlyMax: null },
    });
    // Points bought with the card that needs no cardholder, then all spent: below the level.
    const visa = paymentMethods.find((method) => method.kind === "visa");
    await purchasePoints(ctx, {
      organization,
      request: { points: 100, reference: "fund-visa", paymentSourceId: visa?.id },
      source: "api",
    });
    const crossed = await spendPoints(ctx, {
      organizationId: organization.id,
      request: { points: 100, reference: "all" },
      source: "api",
    });
    expect(crossed.rechargeDue).toBe(true);
    const outcome = await runDueRecharge(ctx, organization.id);
    expect(outcome).toMatchObject({ kind: "paused", reason: "authentication_required" });
    expect(await runDueRecharge(ctx, organization.id)).toEqual({ kind: "none" });
  });

  it("holds the monthly cap, and buys again once a new month (UTC) begins", async () => {
    const { spend, recharges, organization } = await setup(on(900, 250, 500));
    const crossAndRecharge = async (points = 250) => {
      expect((await spend(points)).rechargeDue).toBe(true);
      return runDueRecharge(ctx, organization.id);
    };
    expect(await crossAndRecharge()).toMatchObject({ kind: "bought" }); // 1000 - 250 = 750 < 900: 250 bought
    expect(await crossAndRecharge()).toMatchObject({ kind: "bought" }); // 500 of 500 this month
    expect(await rechargedThisMonth(ctx.db, organization.id, ctx.clock.now())).toBe(500);
    expect(await crossAndRecharge()).toEqual({ kind: "capped", boughtThisMonth: 500 });
    expect(await recharges()).toHaveLength(2);
    // Into the next month: the cap starts again.
    const now = ctx.clock.now();
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1));
    ctx.clock.advance(next.getTime() - now.getTime());
    expect(monthStart(ctx.clock.now()).getTime()).toBe(Date.UTC(next.getUTCFullYear(), next.getUTCMonth(), 1));
    // 750 now; 500 bought takes it above the level again, and 400 spent crosses it.
    await purchasePoints(ctx, { organization, request: { points: 500, reference: "next-month" }, source: "api" });
    expect(await crossAndRecharge(400)).toMatchObject({ kind: "bought" });
    expect(await rechargedThisMonth(ctx.db, organization.id, ctx.clock.now())).toBe(250);
  });

  it("keeps its references to itself: a client's earlier `auto-recharge:1` neither answers nor blocks crossing 1", async () => {
    const { organization, spend, recharges, org } = await setup(on(900, 500));
    // A purchase made before clients were refused the prefix (purchasePoints takes any reference).
    await purchasePoints(ctx, { organization, request: { points: 500, reference: "auto-recharge:1" }, source: "api" });
    expect((await spend(700)).rechargeDue).toBe(true);
    expect(await runDueRecharge(ctx, organization.id)).toMatchObject({
      kind: "bought",
      topUp: { source: "auto_recharge", reference: "auto-recharge:1:recharge", status: "paid" },
    });
    expect((await org())?.pointsBalance).toBe(1000 + 500 - 700 + 500);
    expect(await runDueRecharge(ctx, organization.id)).toEqual({ kind: "none" });
    expect(await recharges()).toHaveLength(1);
  });

  it(`recharges at most ${RECHARGES_PER_HOUR} times in an hour, whatever the cap; the next waits for the hour, then buys`, async () => {
    const { organization, spend, recharges, org } = await setup(on(900, 250));
    // Each spend takes the balance from 1,000 or 1,050 to 800, below the level; each recharge back above it.
    for (let n = 0; n < RECHARGES_PER_HOUR; n++) {
      expect((await spend(n === 0 ? 200 : 250)).rechargeDue).toBe(true);
      expect(await runDueRecharge(ctx, organization.id)).toMatchObject({ kind: "bought" });
    }
    expect((await spend(250)).rechargeDue).toBe(true);
    expect(await runDueRecharge(ctx, organization.id)).toEqual({ kind: "pending", why: "hourly_limit" });
    await rechargeDueOrganizations(ctx);
    expect(await recharges()).toHaveLength(RECHARGES_PER_HOUR);
    ctx.clock.advance(60 * 60 * 1000);
    await rechargeDueOrganizations(ctx);
    expect(await recharges()).toHaveLength(RECHARGES_PER_HOUR + 1);
    expect(await runDueRecharge(ctx, organization.id)).toEqual({ kind: "none" });
    expect((await org())?.pointsBalance).toBe(1000 - 200 - 3 * 250 + 4 * 250);
  });

  it("pauses when a recharge is disputed, and charges that card no more until the setting is saved again", async () => {
    const { organization, paymentMethods } = await createOrganization(ctx, {
      name: `Recharge dispute ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa", "dispute"],
      defaultCardIndex: 1,
    });
    track(organization.id);
    const visa = paymentMethods.find((method) => method.kind === "visa");
    await purchasePoints(ctx, {
      organization,
      request: { points: 1000, reference: "fund-visa", paymentSourceId: visa?.id },
      source: "api",
    });
    await saveBalanceSettings(ctx, organization.id, {
      lowBalanceThreshold: null,
      autoRecharge: { enabled: true, below: 500, points: 500, monthlyMax: null },
    });
    await ctx.probe.takeEvents();
    const crossed = await spendPoints(ctx, {
      organizationId: organization.id,
      request: { points: 600, reference: "below" },
      source: "api",
    });
    expect(crossed.rechargeDue).toBe(true);
    const bought = await runDueRecharge(ctx, organization.id);
    expect(bought).toMatchObject({ kind: "bought", topUp: { status: "paid" } });
    // The cardholder disputes the recharge: its Points leave the balance, below the level again.
    await deliverEvents(ctx);
    const [now] = await ctx.db.select().from(organizations).where(eq(organizations.id, organization.id));
    expect(now?.pointsBalance).toBe(400);
    expect(now?.autoRechargePausedReason).toBe("disputed");
    expect(await runDueRecharge(ctx, organization.id)).toEqual({ kind: "none" });
    await rechargeDueOrganizations(ctx);
    const recharges = await ctx.db
      .select()
      .from(topUps)
      .where(and(eq(topUps.organizationId, organization.id), eq(topUps.source, "auto_recharge")));
    expect(recharges).toHaveLength(1);
    const failed = (await listEvents(ctx.db, organization.id, { after: 0, limit: 100 })).events
      .map(toEventJson)
      .filter((event) => event.type === "auto_recharge.failed");
    const [disputed] = await ctx.db
      .select()
      .from(topUps)
      .where(eq(topUps.id, recharges[0]?.id ?? ""));
    expect(disputed?.disputeStatus).toBe("open");
    expect(failed.map((event) => event.data)).toEqual([{ reason: "disputed", top_up: toTopUpJson(disputed as TopUp) }]);
    const audit = await ctx.db.select().from(auditLog).where(eq(auditLog.organizationId, organization.id));
    expect(audit.filter((entry) => entry.action === "auto_recharge.paused")).toHaveLength(1);
  });

  it("starts the recharge a spend's or a refund's crossing calls for through defer, with no reconciler", async () => {
    const { organization, recharges, org } = await setup(on(500, 250));
    const deferred: Promise<void>[] = [];
    const services = { ...ctx, defer: (task: () => Promise<void>) => void deferred.push(task()) };
    const [fund] = await ctx.db
      .select()
      .from(topUps)
      .where(and(eq(topUps.organizationId, organization.id), eq(topUps.reference, "fund")));
    // A refund of 600 of the 1,000 Points bought takes the balance to 400, below the level.
    await refundTopUp(services, { topUpId: fund?.id ?? "", points: 600 });
    await deliverEvents(ctx, services);
    await Promise.all(deferred.splice(0));
    expect((await recharges()).map((topUp) => [topUp.points, topUp.status])).toEqual([[250, "paid"]]);
    expect((await org())?.pointsBalance).toBe(650);
    // A spend below the level again: its recharge too, from the spend itself.
    const crossed = await spendPoints(services, {
      organizationId: organization.id,
      request: { points: 200, reference: "deferred-spend" },
      source: "api",
    });
    expect(crossed.rechargeDue).toBe(true);
    await Promise.all(deferred.splice(0));
    expect(await recharges()).toHaveLength(2);
    expect((await org())?.pointsBalance).toBe(700);
  });

  it("refuses settings that could not work, naming each field, and saves nothing", async () => {
    const { organization, org } = await setup({});
    const error = await expectPointsError(() =>
      saveBalanceSettings(ctx, organization.id, {
        lowBalanceThreshold: 0,
        autoRecharge: { enabled: true, below: null, points: 300 as Bundle, monthlyMax: 0 },
      }),
    );
    expect(error.code).toBe("invalid_request");
    expect(error.details).toEqual({
      fields: {
        lowBalanceThreshold: "must be a whole number of Points above zero, or none",
        autoRechargeBelow: "is needed to turn auto-recharge on",
        autoRechargePoints: "must be one of the bundles 100, 250, 500, 1000, 2500, 5000, 7500",
        autoRechargeMonthlyMax: "must be a whole number of Points above zero, or none",
      },
    });
    expect((await org())?.autoRechargeEnabled).toBe(false);
  });
});
