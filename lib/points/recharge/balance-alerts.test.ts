import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { createOrganization, getOrganization } from "../accounts/organizations";
import { purchasePoints } from "../purchase";
import { spendPoints } from "../spends/spends";
import { runDueRecharge } from "./auto-recharge";
import {
  autoRechargeSentence,
  isCapReached,
  isLowBalance,
  lowBalanceText,
  pausedReasonText,
  rechargedThisMonthText,
} from "./balance-alerts";
import { saveBalanceSettings } from "./balance-settings";
import { loadBalanceAlerts, lowBalanceThresholdOf } from "./load-balance-alerts";

describe("the dashboard's words for the balance settings", () => {
  it("calls a balance low only below the threshold, never at it or with no threshold", () => {
    expect(isLowBalance(499, 500)).toBe(true);
    expect(isLowBalance(500, 500)).toBe(false);
    expect(isLowBalance(0, null)).toBe(false);
    expect(lowBalanceText(120, 500)).toBe("Your balance is low: 120 Points, below your alert at 500.");
  });

  it("says what auto-recharge will do, and nothing while it is off or not fully set", () => {
    expect(autoRechargeSentence({ enabled: true, below: 300, points: 1000, monthlyMax: 5000 })).toBe(
      "When your balance falls below 300 Points, we buy 1,000 Points on your default card, at most 5,000 Points a month.",
    );
    expect(autoRechargeSentence({ enabled: true, below: 300, points: 1000, monthlyMax: null })).toBe(
      "When your balance falls below 300 Points, we buy 1,000 Points on your default card, with no monthly cap.",
    );
    expect(autoRechargeSentence({ enabled: false, below: 300, points: 1000, monthlyMax: null })).toBeNull();
    expect(autoRechargeSentence({ enabled: true, below: null, points: 1000, monthlyMax: null })).toBeNull();
  });

  it("counts the month against the cap, and calls it reached when no further bundle fits", () => {
    expect(rechargedThisMonthText(2500, 5000)).toBe("2,500 of 5,000 Points bought this month");
    expect(rechargedThisMonthText(2500, null)).toBe("2,500 Points bought this month");
    expect(rechargedThisMonthText(5000, 5000, true)).toBe(
      "5,000 of 5,000 Points bought this month; the cap is reached: no more auto-recharge this month",
    );
    // auto-recharge.ts skips a bundle that would take the month above the cap, so 4,500 + 1,000 > 5,000 is reached.
    expect(isCapReached(4500, 1000, 5000)).toBe(true);
    expect(isCapReached(4000, 1000, 5000)).toBe(false);
    expect(isCapReached(99_000, 1000, null)).toBe(false);
  });

  it("words every pause reason, and names an unknown one by its code", () => {
    expect(pausedReasonText("card_declined")).toBe("your default card was declined");
    expect(pausedReasonText("authentication_required")).toMatch(/authentication/);
    expect(pausedReasonText("something_new")).toBe("its last purchase was refused (something_new)");
  });
});

describe.each(backends())("loading the balance alerts on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  /** 1,000 Points bought on the visa card; the default card is `defaultCard`. */
  async function fundedOrganization(defaultCard: "visa" | "declined") {
    const { organization, paymentMethods } = await createOrganization(ctx, {
      name: "Alerts Ltd",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: [defaultCard, defaultCard === "visa" ? "declined" : "visa"],
      defaultCardIndex: 0,
    });
    const visa = paymentMethods.find((method) => method.kind === "visa");
    await purchasePoints(ctx, {
      organization,
      request: { points: 1000, reference: "fund", paymentSourceId: visa?.id },
      source: "api",
    });
    return organization.id;
  }

  async function alertsOf(id: string) {
    const organization = await getOrganization(ctx.db, id);
    if (!organization) throw new Error(`No organisation ${id}`);
    return loadBalanceAlerts(ctx.db, organization, ctx.clock.now());
  }

  it("reads the threshold, the month's recharges and the cap after a spend crosses the level", async () => {
    const id = await fundedOrganization("visa");
    expect(await lowBalanceThresholdOf(ctx.db, id)).toBeNull();
    await saveBalanceSettings(ctx, id, {
      lowBalanceThreshold: 500,
      autoRecharge: { enabled: true, below: 300, points: 1000, monthlyMax: 1500 },
    });
    expect(await lowBalanceThresholdOf(ctx.db, id)).toBe(500);
    expect((await alertsOf(id)).low).toBe(false);

    const spent = await spendPoints(ctx, {
      organizationId: id,
      request: { points: 800, reference: "s-1" },
      source: "api",
    });
    expect(spent.rechargeDue).toBe(true);
    const low = await alertsOf(id);
    expect(low).toMatchObject({ pointsBalance: 200, lowBalanceThreshold: 500, low: true });
    expect(low.autoRecharge).toMatchObject({ boughtThisMonth: 0, capReached: false, pausedReason: null });

    expect((await runDueRecharge(ctx, id)).kind).toBe("bought");
    const after = await alertsOf(id);
    expect(after).toMatchObject({ pointsBalance: 1200, low: false });
    // 1,000 bought and a cap of 1,500: another 1,000 would not fit, so no more this month.
    expect(after.autoRecharge).toMatchObject({ boughtThisMonth: 1000, monthlyMax: 1500, capReached: true });
  });

  it("says why auto-recharge is paused after the default card is declined", async () => {
    const id = await fundedOrganization("declined");
    await saveBalanceSettings(ctx, id, {
      lowBalanceThreshold: null,
      autoRecharge: { enabled: true, below: 500, points: 500, monthlyMax: null },
    });
    await spendPoints(ctx, { organizationId: id, request: { points: 600, reference: "s-1" }, source: "api" });
    expect((await runDueRecharge(ctx, id)).kind).toBe("paused");
    const paused = await alertsOf(id);
    expect(paused.autoRecharge).toMatchObject({ enabled: true, pausedReason: "card_declined", boughtThisMonth: 0 });
    expect(paused.low).toBe(false);
  });
});
