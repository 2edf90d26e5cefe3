import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events, organizations, pointLots, pointsLedger } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { backendsAndProviders, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { createOrganization, updateOrganization } from "../accounts/organizations";
import { toQuoteJson, toTopUpJson } from "../api/json";
import { createGrant } from "../grants/grants";
import { purchasePoints, quotePurchase } from "../purchase";
import { spendPoints } from "../spends/spends";
import { announceExpiringLots, expireDueLots } from "./expiry";

const DAY = 24 * 60 * 60 * 1000;

/*
 * Expiry (docs/contract.md §10): what is left of a lot leaves the balance once at its time, with
 * points.expired; points.expiring says so 30 and 7 days before, once per lot and lead time.
 */
describe.each(backendsAndProviders())("expiry of lots (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function organization() {
    const { organization } = await createOrganization(ctx, {
      name: `Expiry ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
    });
    track(organization.id);
    return organization.id;
  }

  const eventsOf = async (organizationId: string, type: string) =>
    (
      await ctx.db
        .select()
        .from(events)
        .where(and(eq(events.organizationId, organizationId), eq(events.type, type)))
    ).map((event) => event.data);

  const balanceOf = async (organizationId: string) =>
    (await ctx.db.select().from(organizations).where(eq(organizations.id, organizationId)))[0]?.pointsBalance;

  it("takes what is left of a lot out of the balance once, at its time, with points.expired", async () => {
    const id = await organization();
    const expiresAt = new Date(ctx.clock.now().getTime() + 3 * DAY);
    const granted = await createGrant(ctx, id, { points: 300, reason: "Trial", expiresAt });
    await createGrant(ctx, id, { points: 100, reason: "Kept" });
    await spendPoints(ctx, { organizationId: id, request: { points: 120, reference: "use" }, source: "operator" });
    expect(await expireDueLots(ctx)).toBe(0);
    ctx.clock.advance(3 * DAY);
    expect(await expireDueLots(ctx)).toBeGreaterThanOrEqual(1);
    expect(await balanceOf(id)).toBe(100);
    expect(await eventsOf(id, "points.expired")).toEqual([
      { points: 180, category: "promotional", expires_at: expiresAt.toISOString(), points_balance: 100 },
    ]);
    // Run again, here or on another instance: nothing leaves twice.
    await expireDueLots(ctx);
    expect(await balanceOf(id)).toBe(100);
    const rows = await ctx.db
      .select()
      .from(pointsLedger)
      .where(and(eq(pointsLedger.organizationId, id), eq(pointsLedger.kind, "expiry")));
    expect(rows.map((row) => [row.causeId, row.delta])).toEqual([[`lot_${granted.grant.id}`, -180]]);
  });

  it("announces points.expiring 30 and 7 days ahead, once each; a lot made with 7 days or less, once", async () => {
    const id = await organization();
    const start = ctx.clock.now().getTime();
    const far = new Date(start + 40 * DAY);
    await createGrant(ctx, id, { points: 50, reason: "Far", expiresAt: far });
    const near = new Date(start + 5 * DAY);
    await createGrant(ctx, id, { points: 20, reason: "Near", expiresAt: near });
    await announceExpiringLots(ctx);
    expect(await eventsOf(id, "points.expiring")).toEqual([{ points: 20, expires_at: near.toISOString() }]);
    await announceExpiringLots(ctx);
    expect(await eventsOf(id, "points.expiring")).toHaveLength(1);
    ctx.clock.advance(11 * DAY); // 29 days left of the far one
    await announceExpiringLots(ctx);
    await announceExpiringLots(ctx);
    expect(await eventsOf(id, "points.expiring")).toEqual([
      { points: 20, expires_at: near.toISOString() },
      { points: 50, expires_at: far.toISOString() },
    ]);
    ctx.clock.advance(23 * DAY); // 6 days left
    await announceExpiringLots(ctx);
    await announceExpiringLots(ctx);
    expect((await eventsOf(id, "points.expiring")).slice(2)).toEqual([{ points: 50, expires_at: far.toISOString() }]);
  });

  it("paid Points expire the organisation's days after purchase when the operator says so, said on the quote and the top-up", async () => {
    const { organization } = await createOrganization(ctx, {
      name: `Paid expiry ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true, paidPointsExpireAfterDays: 365 },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    track(organization.id);
    const now = ctx.clock.now().getTime();
    const inAYear = new Date(now + 365 * DAY).toISOString();
    expect(toQuoteJson(await quotePurchase(ctx, organization, { points: 500 })).points_expire_at).toBe(inAYear);
    const bought = await purchasePoints(ctx, {
      organization,
      request: { points: 500, reference: "yearly" },
      source: "api",
    });
    expect(toTopUpJson(bought.topUp).points_expire_at).toBe(inAYear);
    const [lot] = await ctx.db.select().from(pointLots).where(eq(pointLots.topUpId, bought.topUp.id));
    expect(lot?.expiresAt?.toISOString()).toBe(inAYear);
    // Set to never again: Points bought from then on never expire; those bought before keep their date.
    await updateOrganization(ctx, organization.id, { settings: { paidPointsExpireAfterDays: null } });
    const [now2] = await ctx.db.select().from(organizations).where(eq(organizations.id, organization.id));
    if (!now2) throw new Error("no organisation");
    const later = await purchasePoints(ctx, {
      organization: now2,
      request: { points: 100, reference: "forever" },
      source: "api",
    });
    expect(toTopUpJson(later.topUp).points_expire_at).toBeNull();
    expect(toQuoteJson(await quotePurchase(ctx, now2, { points: 100 })).points_expire_at).toBeNull();
    ctx.clock.advance(365 * DAY);
    await expireDueLots(ctx);
    expect(await balanceOf(organization.id)).toBe(100);
  });
});
