import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organizations, pointLots, pointsLedger } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { backendsAndProviders, expectPointsError, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { createOrganization, type OrganizationSettings } from "../accounts/organizations";
import { refundTopUp } from "../after-payment/refunds";
import { purchasePoints } from "../purchase";
import { spendPoints } from "../spends/spends";
import { createGrant, listGrants, voidGrant } from "./grants";

const DAY = 24 * 60 * 60 * 1000;

/*
 * Promotional Points (docs/contract.md §10): a grant is a lot of its own; spends use lots in one
 * order (soonest expiry, never last, promotional before paid, oldest first); refunds never touch a
 * grant; the balance cap counts only Points bought.
 */
describe.each(backendsAndProviders())("grants of promotional Points (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function organization(settings: OrganizationSettings = {}) {
    const { organization } = await createOrganization(ctx, {
      name: `Grants ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true, ...settings },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    track(organization.id);
    return organization;
  }

  async function buy(organizationId: string, points: 100 | 250 | 500 | 1000) {
    const [org] = await ctx.db.select().from(organizations).where(eq(organizations.id, organizationId));
    if (!org) throw new Error("no organisation");
    return purchasePoints(ctx, {
      organization: org,
      request: { points, reference: `buy-${randomString(6)}` },
      source: "api",
    });
  }

  const spend = (organizationId: string, points: number) =>
    spendPoints(ctx, { organizationId, request: { points, reference: `sp-${randomString(6)}` }, source: "operator" });

  async function drawsOf(spendId: string) {
    const [row] = await ctx.db
      .select({ lots: pointsLedger.lots })
      .from(pointsLedger)
      .where(and(eq(pointsLedger.kind, "usage"), eq(pointsLedger.causeId, spendId)));
    return row?.lots ?? [];
  }

  it("credits a promotional lot; the same reference again is the same grant, other terms are refused", async () => {
    const org = await organization();
    const granted = await createGrant(ctx, org.id, { points: 300, reason: "Welcome credit", reference: "welcome" });
    expect(granted).toMatchObject({
      pointsBalance: 300,
      replayed: false,
      grant: { points: 300, reason: "Welcome credit" },
    });
    const [lot] = await ctx.db.select().from(pointLots).where(eq(pointLots.grantId, granted.grant.id));
    expect(lot).toMatchObject({ category: "promotional", points: 300, remaining: 300, expiresAt: null });
    const again = await createGrant(ctx, org.id, { points: 300, reason: " Welcome credit ", reference: "welcome" });
    expect(again).toMatchObject({ replayed: true, pointsBalance: 300, grant: { id: granted.grant.id } });
    const other = await expectPointsError(() =>
      createGrant(ctx, org.id, { points: 500, reason: "Welcome credit", reference: "welcome" }),
    );
    expect(other.details.fields).toEqual({ reference: expect.stringMatching(/other terms/) });
    for (const bad of [
      { points: 0, reason: "x" },
      { points: 1_000_001, reason: "x" },
      { points: 10, reason: "  " },
      { points: 10, reason: "r".repeat(201) },
      { points: 10, reason: "late", expiresAt: new Date(ctx.clock.now().getTime() - 1000) },
      { points: 10, reason: "bad ref", reference: "no spaces allowed" },
    ]) {
      expect((await expectPointsError(() => createGrant(ctx, org.id, bad))).code).toBe("invalid_request");
    }
    expect((await expectPointsError(() => createGrant(ctx, "org_nope", { points: 1, reason: "x" }))).message).toBe(
      "No organisation org_nope.",
    );
    const [after] = await ctx.db.select().from(organizations).where(eq(organizations.id, org.id));
    expect(after?.pointsBalance).toBe(300);
  });

  it("spends the soonest-expiring lot first, never-expiring last, promotional before paid, and records the draws", async () => {
    const org = await organization();
    await buy(org.id, 500);
    const now = ctx.clock.now().getTime();
    const soon = await createGrant(ctx, org.id, { points: 100, reason: "Soon", expiresAt: new Date(now + 10 * DAY) });
    const never = await createGrant(ctx, org.id, { points: 100, reason: "Never" });
    const first = await spend(org.id, 150);
    expect(await drawsOf(first.spend.id)).toEqual([
      { lot_id: `lot_${soon.grant.id}`, category: "promotional", points: -100 },
      { lot_id: `lot_${never.grant.id}`, category: "promotional", points: -50 },
    ]);
    const second = await spend(org.id, 100);
    expect((await drawsOf(second.spend.id)).map((draw) => [draw.category, draw.points])).toEqual([
      ["promotional", -50],
      ["paid", -50],
    ]);
    expect(second.pointsBalance).toBe(450);
  });

  it("never refunds from a grant: a refund takes paid Points only, and what was spent is its shortfall", async () => {
    const org = await organization();
    const bought = await buy(org.id, 100);
    await spend(org.id, 60);
    await createGrant(ctx, org.id, { points: 500, reason: "Goodwill" });
    const refunded = await refundTopUp(ctx, { topUpId: bought.topUp.id });
    expect(refunded.shortfall).toBe(60);
    expect(refunded.pointsBalance).toBe(500);
    const lots = await ctx.db.select().from(pointLots).where(eq(pointLots.organizationId, org.id));
    expect(lots.map((lot) => [lot.category, lot.remaining]).sort()).toEqual([
      ["paid", 0],
      ["promotional", 500],
    ]);
  });

  it("voids what is left of a grant, once; spent Points stay spent", async () => {
    const org = await organization();
    const granted = await createGrant(ctx, org.id, { points: 200, reason: "Trial" });
    await spend(org.id, 50);
    const voided = await voidGrant(ctx, granted.grant.id);
    expect(voided.voidedPoints).toBe(150);
    expect((await voidGrant(ctx, granted.grant.id)).voidedPoints).toBe(150);
    const [after] = await ctx.db.select().from(organizations).where(eq(organizations.id, org.id));
    expect(after?.pointsBalance).toBe(0);
    expect((await expectPointsError(() => voidGrant(ctx, "gr_nope"))).message).toBe("No grant gr_nope.");
  });

  it("lists each grant with what is left and its status: active, used, voided, expired", async () => {
    const org = await organization();
    const now = ctx.clock.now().getTime();
    const active = await createGrant(ctx, org.id, { points: 10, reason: "Active" });
    ctx.clock.advance(1000);
    const used = await createGrant(ctx, org.id, { points: 5, reason: "Used", expiresAt: new Date(now + DAY) });
    ctx.clock.advance(1000);
    const voided = await createGrant(ctx, org.id, { points: 7, reason: "Voided" });
    ctx.clock.advance(1000);
    const expiring = await createGrant(ctx, org.id, {
      points: 3,
      reason: "Expiring",
      expiresAt: new Date(now + 2 * DAY),
    });
    await spend(org.id, 5);
    await voidGrant(ctx, voided.grant.id);
    const statuses = (at: number) =>
      listGrants(ctx.db, org.id, new Date(at)).then((views) =>
        views.map((view) => [view.grant.id, view.remaining, view.status]),
      );
    expect(await statuses(now)).toEqual([
      [active.grant.id, 10, "active"],
      [used.grant.id, 0, "used"],
      [voided.grant.id, 0, "voided"],
      [expiring.grant.id, 3, "active"],
    ]);
    expect((await statuses(now + 3 * DAY))[3]).toEqual([expiring.grant.id, 3, "expired"]);
  });

  it("does not count promotional Points toward max_points_balance, which limits Points bought", async () => {
    const org = await organization({ maxPointsBalance: 1000 });
    await createGrant(ctx, org.id, { points: 5000, reason: "Partner credit" });
    const bought = await buy(org.id, 1000);
    expect(bought.topUp.status).toBe("paid");
    const refused = await buy(org.id, 100).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "limit_exceeded" });
  });
});
