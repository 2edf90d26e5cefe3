import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { createOrganization, getOrganization, type OrganizationSettings } from "../accounts/organizations";
import type { TopUpRequest } from "../api/top-up-request";
import { PointsError } from "../errors";
import { purchasePoints } from "../purchase";
import { getLimitUsage } from "./limit-usage";

const HOUR = 3_600_000;

describe.each(backends())("the Limits page's usage on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  async function newOrg(settings: OrganizationSettings) {
    const created = await createOrganization(ctx, {
      name: "Usage AG",
      settings: { apiPurchasesEnabled: true, currency: "USD", ...settings },
      cards: ["visa", "declined", "processing"],
      defaultCardIndex: 0,
    });
    const [visa, declined, processing] = created.paymentMethods;
    if (!visa || !declined || !processing) throw new Error("Three cards were expected.");
    return { id: created.organization.id, visa: visa.id, declined: declined.id, processing: processing.id };
  }

  async function organization(id: string) {
    const found = await getOrganization(ctx.db, id);
    if (!found) throw new Error(`No organisation ${id}`);
    return found;
  }

  async function buy(id: string, request: TopUpRequest) {
    return purchasePoints(ctx, { organization: await organization(id), request, source: "api" });
  }

  const usage = async (id: string) => getLimitUsage(ctx.db, await organization(id), ctx.clock.now());

  it("shows the configured limits, and none where none are set", async () => {
    const limited = await newOrg({
      maxPointsPerTopUp: 2500,
      maxPointsBalance: 10000,
      frequencyLimit: { count: 5, windowSeconds: 3600 },
      dailyPointsLimit: 5000,
    });
    expect(await usage(limited.id)).toEqual({
      maxPointsPerTopUp: 2500,
      balance: { limit: 10000, pointsBalance: 0, pendingPoints: 0, disputedPoints: 0, used: 0 },
      frequency: { limit: { count: 5, windowSeconds: 3600 }, used: 0 },
      daily: { limit: 5000, used: 0 },
    });
    const open = await newOrg({});
    expect(await usage(open.id)).toEqual({
      maxPointsPerTopUp: null,
      balance: { limit: null, pointsBalance: 0, pendingPoints: 0, disputedPoints: 0, used: 0 },
      frequency: { limit: null, used: null },
      daily: { limit: null, used: 0 },
    });
  });

  it("counts purchases the way the limits themselves do: failed ones toward frequency, not toward daily Points", async () => {
    const org = await newOrg({
      frequencyLimit: { count: 10, windowSeconds: 3600 },
      dailyPointsLimit: 5000,
      maxPointsBalance: 20000,
    });
    expect((await buy(org.id, { points: 500, reference: "paid-1" })).outcome).toBe("paid_now");
    expect((await buy(org.id, { points: 1000, reference: "failed-1", paymentSourceId: org.declined })).outcome).toBe(
      "failed",
    );
    // A purchase whose outcome is unknown may still be credited: it counts against the balance cap and the day.
    expect(
      (await buy(org.id, { points: 250, reference: "unresolved-1", paymentSourceId: org.processing })).outcome,
    ).toBe("unresolved");

    const now = await usage(org.id);
    expect(now.balance).toEqual({ limit: 20000, pointsBalance: 500, pendingPoints: 250, disputedPoints: 0, used: 750 });
    expect(now.frequency.used).toBe(3);
    expect(now.daily.used).toBe(750);
  });

  it("the frequency window and the 24 hours roll forward with time", async () => {
    const org = await newOrg({ frequencyLimit: { count: 3, windowSeconds: 3600 }, dailyPointsLimit: 5000 });
    await buy(org.id, { points: 1000, reference: "early" });
    ctx.clock.advance(2 * HOUR);
    await buy(org.id, { points: 100, reference: "later" });

    let now = await usage(org.id);
    expect(now.frequency.used).toBe(1);
    expect(now.daily.used).toBe(1100);

    ctx.clock.advance(23 * HOUR);
    now = await usage(org.id);
    expect(now.frequency.used).toBe(0);
    expect(now.daily.used).toBe(100);
  });

  it("what the page shows as used is what the next purchase is held to", async () => {
    const org = await newOrg({ dailyPointsLimit: 1000 });
    await buy(org.id, { points: 500, reference: "first" });
    await buy(org.id, { points: 250, reference: "second" });
    const { daily } = await usage(org.id);
    expect(daily).toEqual({ limit: 1000, used: 750 });
    // 250 more fits exactly; 500 would not.
    const refused = await buy(org.id, { points: 500, reference: "too-much" }).catch((error: unknown) => error);
    if (!(refused instanceof PointsError)) throw new Error("The purchase past the daily limit was not refused.");
    expect(refused.code).toBe("daily_limit_reached");
    expect(refused.details).toMatchObject({ points_last_24h: daily.used });
    expect((await buy(org.id, { points: 250, reference: "fits" })).outcome).toBe("paid_now");
  });

  it("another organisation's purchases never count", async () => {
    const busy = await newOrg({ dailyPointsLimit: 5000 });
    const quiet = await newOrg({ dailyPointsLimit: 5000, frequencyLimit: { count: 2, windowSeconds: 60 } });
    await buy(busy.id, { points: 2500, reference: "busy-1" });
    const now = await usage(quiet.id);
    expect(now.daily.used).toBe(0);
    expect(now.frequency.used).toBe(0);
    expect(now.balance.used).toBe(0);
  });
});
