import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { topUps } from "@/lib/db/schema";
import { deliverEvents } from "@/lib/testing/after-payment";
import { backendsAndProviders, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import {
  type CreateOrganizationInput,
  createOrganization,
  getOrganization,
  type OrganizationSettings,
  updateOrganization,
} from "../accounts/organizations";
import { toBalanceJson } from "../api/json";
import type { TopUpRequest } from "../api/top-up-request";
import { getBalance } from "../balance/balance";
import { PointsError } from "../errors";
import { type PurchaseResult, purchasePoints } from "../purchase";

const SECOND = 1_000;
const HOUR = 3_600 * SECOND;

describe.each(backendsAndProviders())(
  "organisation limits and rate limits on %s with the %s provider",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });

    async function newOrg(
      settings: OrganizationSettings,
      input: Omit<CreateOrganizationInput, "name" | "settings"> = {},
    ) {
      const created = await createOrganization(ctx, {
        name: "Limits Inc",
        cards: ["visa"],
        defaultCardIndex: 0,
        ...input,
        settings: { apiPurchasesEnabled: true, currency: "USD", ...settings },
      });
      track(created.organization.id);
      return created;
    }

    async function buy(organizationId: string, request: TopUpRequest): Promise<PurchaseResult> {
      const organization = await getOrganization(ctx.db, organizationId);
      if (!organization) throw new Error(`No organisation ${organizationId}`);
      return purchasePoints(ctx, { organization, request, source: "api" });
    }

    async function refusal(organizationId: string, request: TopUpRequest): Promise<PointsError> {
      try {
        const result = await buy(organizationId, request);
        throw new Error(`Expected a refusal, got ${result.outcome}`);
      } catch (error) {
        if (error instanceof PointsError) return error;
        throw error;
      }
    }

    async function topUpCount(organizationId: string): Promise<number> {
      return (await ctx.db.select({ id: topUps.id }).from(topUps).where(eq(topUps.organizationId, organizationId)))
        .length;
    }

    /** A refused purchase leaves no trace: no top-up row and no charge at the provider. */
    async function expectNothingRecorded(
      created: { organization: { id: string; billingCustomerId: string } },
      expected: { topUps: number; payments: number },
    ): Promise<void> {
      expect(await topUpCount(created.organization.id)).toBe(expected.topUps);
      expect(await ctx.probe.countPayments(created.organization.billingCustomerId)).toBe(expected.payments);
    }

    describe("the order of checks", () => {
      it("is max_points_per_top_up, then max_points_balance, then frequency, then daily", async () => {
        const created = await newOrg({
          maxPointsPerTopUp: 250,
          maxPointsBalance: 300,
          frequencyLimit: { count: 1, windowSeconds: 3_600 },
          dailyPointsLimit: 300,
        });
        const orgId = created.organization.id;
        expect((await buy(orgId, { points: 250, reference: "fill" })).outcome).toBe("paid_now");
        // A 500 bundle now breaks all four; each relaxed limit reveals the next.
        const request = { points: 500, reference: "too-much" } as const;

        const perTopUp = await refusal(orgId, request);
        expect([perTopUp.code, perTopUp.details.limit]).toEqual(["limit_exceeded", "max_points_per_top_up"]);
        expect(perTopUp.status).toBe(409);

        await updateOrganization(ctx, orgId, { settings: { maxPointsPerTopUp: null } });
        const balance = await refusal(orgId, request);
        expect([balance.code, balance.details.limit]).toEqual(["limit_exceeded", "max_points_balance"]);
        expect(balance.status).toBe(409);

        await updateOrganization(ctx, orgId, { settings: { maxPointsBalance: null } });
        const frequency = await refusal(orgId, request);
        expect(frequency.code).toBe("frequency_limit_reached");
        expect(frequency.status).toBe(429);

        await updateOrganization(ctx, orgId, { settings: { frequencyLimit: null } });
        const daily = await refusal(orgId, request);
        expect(daily.code).toBe("daily_limit_reached");
        expect(daily.status).toBe(429);

        await updateOrganization(ctx, orgId, { settings: { dailyPointsLimit: null } });
        expect((await buy(orgId, request)).outcome).toBe("paid_now");
        await expectNothingRecorded(created, { topUps: 2, payments: 2 });
      });
    });

    describe("max_points_per_top_up", () => {
      it("allows a bundle equal to the maximum and refuses a larger one, recording and charging nothing", async () => {
        const created = await newOrg({ maxPointsPerTopUp: 500 });
        expect((await buy(created.organization.id, { points: 500, reference: "at-max" })).outcome).toBe("paid_now");
        const error = await refusal(created.organization.id, { points: 1000, reference: "over-max" });
        expect(error.details).toMatchObject({
          limit: "max_points_per_top_up",
          max_points_per_top_up: 500,
          points: 1000,
        });
        await expectNothingRecorded(created, { topUps: 1, payments: 1 });
      });
    });

    describe("max_points_balance", () => {
      it("allows reaching the maximum exactly and refuses passing it", async () => {
        const created = await newOrg({ maxPointsBalance: 600 });
        await buy(created.organization.id, { points: 500, reference: "a" });
        await buy(created.organization.id, { points: 100, reference: "b" });
        const error = await refusal(created.organization.id, { points: 100, reference: "c" });
        expect(error.details).toMatchObject({
          limit: "max_points_balance",
          max_points_balance: 600,
          points_balance: 600,
        });
        await expectNothingRecorded(created, { topUps: 2, payments: 2 });
      });

      it("counts purchases still in flight (awaiting payment, processing) as if they were credited", async () => {
        const created = await newOrg(
          { maxPointsBalance: 1000 },
          { cards: ["visa", "authentication_required", "processing"] },
        );
        const orgId = created.organization.id;
        const [visa, authentication, processing] = created.paymentMethods.map((m) => m.id);
        expect(
          (await buy(orgId, { points: 500, reference: "awaiting", paymentSourceId: authentication })).outcome,
        ).toBe("awaiting_payment");
        expect((await buy(orgId, { points: 250, reference: "processing", paymentSourceId: processing })).outcome).toBe(
          "unresolved",
        );

        const error = await refusal(orgId, { points: 500, reference: "one-too-many", paymentSourceId: visa });
        expect(error.details).toMatchObject({ limit: "max_points_balance", points_balance: 0, pending_points: 750 });
        expect((await buy(orgId, { points: 250, reference: "fits", paymentSourceId: visa })).outcome).toBe("paid_now");
        await expectNothingRecorded(created, { topUps: 3, payments: 3 });
      });

      it("counts the Points a dispute holds or may give back, until it is lost; the balance's remaining says so", async () => {
        const created = await newOrg({ maxPointsBalance: 1000 }, { cards: ["dispute", "visa"], defaultCardIndex: 0 });
        const orgId = created.organization.id;
        const visa = created.paymentMethods[1]?.id;
        expect((await buy(orgId, { points: 1000, reference: "disputed" })).outcome).toBe("paid_now");
        await deliverEvents(ctx);
        const disputed = await ctx.db.select().from(topUps).where(eq(topUps.reference, "disputed"));
        const topUp = disputed.find((row) => row.organizationId === orgId);
        // Held by the simulated bank, removed with the money by Stripe: either way they may come back.
        expect(topUp).toMatchObject({ disputeStatus: "open", disputePoints: 1000 });
        const remaining = async () => {
          const organization = await getOrganization(ctx.db, orgId);
          if (!organization) throw new Error("no organisation");
          return toBalanceJson(await getBalance(ctx.db, organization, ctx.clock.now())).limits.max_points_balance;
        };
        expect(await remaining()).toEqual({ limit: 1000, used: 1000, remaining: 0 });
        const error = await refusal(orgId, { points: 1000, reference: "second", paymentSourceId: visa });
        expect(error.details).toMatchObject({ limit: "max_points_balance", points_balance: 0, disputed_points: 1000 });

        // Won: the Points are back in the balance, and still count once.
        const settleDispute = ctx.provider.testMode?.settleDispute;
        if (!settleDispute || !topUp?.disputeId) throw new Error("no dispute to settle");
        await settleDispute(topUp.disputeId, "won");
        await deliverEvents(ctx);
        expect(await remaining()).toEqual({ limit: 1000, used: 1000, remaining: 0 });
        expect((await refusal(orgId, { points: 100, reference: "third", paymentSourceId: visa })).code).toBe(
          "limit_exceeded",
        );
        await expectNothingRecorded(created, { topUps: 1, payments: 1 });
      });

      it("no longer counts Points a lost dispute removed", async () => {
        const created = await newOrg({ maxPointsBalance: 1000 }, { cards: ["dispute", "visa"], defaultCardIndex: 0 });
        const orgId = created.organization.id;
        expect((await buy(orgId, { points: 1000, reference: "lost" })).outcome).toBe("paid_now");
        await deliverEvents(ctx);
        const [topUp] = await ctx.db.select().from(topUps).where(eq(topUps.organizationId, orgId));
        const settleDispute = ctx.provider.testMode?.settleDispute;
        if (!settleDispute || !topUp?.disputeId) throw new Error("no dispute to settle");
        await settleDispute(topUp.disputeId, "lost");
        await deliverEvents(ctx);
        expect(
          (await buy(orgId, { points: 1000, reference: "again", paymentSourceId: created.paymentMethods[1]?.id }))
            .outcome,
        ).toBe("paid_now");
      });

      it("no longer counts a purchase that failed", async () => {
        const created = await newOrg({ maxPointsBalance: 500 }, { cards: ["visa", "declined"], defaultCardIndex: 0 });
        const orgId = created.organization.id;
        const declined = created.paymentMethods[1]?.id;
        expect((await buy(orgId, { points: 500, reference: "no", paymentSourceId: declined })).outcome).toBe("failed");
        expect((await buy(orgId, { points: 500, reference: "yes" })).outcome).toBe("paid_now");
      });
    });

    describe("frequency", () => {
      it("allows N purchases in the window, refuses the next until the oldest leaves it, then allows it", async () => {
        const created = await newOrg({ frequencyLimit: { count: 3, windowSeconds: 60 } });
        const orgId = created.organization.id;
        for (const reference of ["f1", "f2", "f3"]) {
          expect((await buy(orgId, { points: 100, reference })).outcome).toBe("paid_now");
          ctx.clock.advance(10 * SECOND);
        }
        // Now 30 s after the first: it leaves the 60 s window in 30 s.
        const error = await refusal(orgId, { points: 100, reference: "f4" });
        expect(error.code).toBe("frequency_limit_reached");
        expect(error.retryAfterSeconds).toBe(30);
        expect(error.details).toMatchObject({ max_purchases: 3, window_seconds: 60 });
        await expectNothingRecorded(created, { topUps: 3, payments: 3 });

        ctx.clock.advance(29 * SECOND);
        expect((await refusal(orgId, { points: 100, reference: "f4" })).retryAfterSeconds).toBe(1);

        ctx.clock.advance(1 * SECOND);
        expect((await buy(orgId, { points: 100, reference: "f4" })).outcome).toBe("paid_now");
        // The window is full again: the second purchase (10 s after the first) leaves it 10 s from now.
        expect((await refusal(orgId, { points: 100, reference: "f5" })).retryAfterSeconds).toBe(10);
      });

      it("counts failed purchases", async () => {
        const created = await newOrg({ frequencyLimit: { count: 2, windowSeconds: 600 } }, { cards: ["declined"] });
        const orgId = created.organization.id;
        expect((await buy(orgId, { points: 100, reference: "x1" })).outcome).toBe("failed");
        expect((await buy(orgId, { points: 100, reference: "x2" })).outcome).toBe("failed");
        const error = await refusal(orgId, { points: 100, reference: "x3" });
        expect(error.code).toBe("frequency_limit_reached");
        expect(error.retryAfterSeconds).toBe(600);
        await expectNothingRecorded(created, { topUps: 2, payments: 2 });
      });
    });

    describe("daily Points", () => {
      it("is a rolling 24 hours, with Retry-After until enough of the oldest Points roll out", async () => {
        const created = await newOrg({ dailyPointsLimit: 1000 });
        const orgId = created.organization.id;
        await buy(orgId, { points: 500, reference: "d1" });
        ctx.clock.advance(1 * HOUR);
        await buy(orgId, { points: 250, reference: "d2" });
        ctx.clock.advance(1 * HOUR);

        // 750 in the last 24 h; 500 more would be 1250. Once d1 (22 h from now) rolls out, it fits.
        const error = await refusal(orgId, { points: 500, reference: "d3" });
        expect(error.code).toBe("daily_limit_reached");
        expect(error.retryAfterSeconds).toBe(22 * 3_600);
        expect(error.details).toMatchObject({ daily_points_limit: 1000, points_last_24h: 750, points: 500 });
        // A bundle that fits in what is left is still allowed.
        expect((await buy(orgId, { points: 250, reference: "d2b" })).outcome).toBe("paid_now");
        await expectNothingRecorded(created, { topUps: 3, payments: 3 });

        ctx.clock.advance(22 * HOUR - SECOND);
        expect((await refusal(orgId, { points: 500, reference: "d3" })).retryAfterSeconds).toBe(1);
        ctx.clock.advance(SECOND);
        expect((await buy(orgId, { points: 500, reference: "d3" })).outcome).toBe("paid_now");
      });

      it("waits for several purchases to roll out when one is not enough", async () => {
        const created = await newOrg({ dailyPointsLimit: 500 });
        const orgId = created.organization.id;
        await buy(orgId, { points: 250, reference: "a" });
        ctx.clock.advance(2 * HOUR);
        await buy(orgId, { points: 250, reference: "b" });
        ctx.clock.advance(1 * HOUR);
        // 500 used; a 500 bundle fits only when both have rolled out: b leaves in 23 h.
        expect((await refusal(orgId, { points: 500, reference: "c" })).retryAfterSeconds).toBe(23 * 3_600);
      });

      it("does not count failed purchases", async () => {
        const created = await newOrg({ dailyPointsLimit: 500 }, { cards: ["visa", "declined"], defaultCardIndex: 0 });
        const orgId = created.organization.id;
        const declined = created.paymentMethods[1]?.id;
        expect((await buy(orgId, { points: 500, reference: "bad", paymentSourceId: declined })).outcome).toBe("failed");
        expect((await buy(orgId, { points: 500, reference: "good" })).outcome).toBe("paid_now");
        expect((await refusal(orgId, { points: 100, reference: "over" })).code).toBe("daily_limit_reached");
      });
    });

    describe("a replay", () => {
      it("is answered even when every limit is exhausted, and does not count toward any", async () => {
        const created = await newOrg({
          maxPointsBalance: 200,
          frequencyLimit: { count: 2, windowSeconds: 3_600 },
          dailyPointsLimit: 200,
        });
        const orgId = created.organization.id;
        expect((await buy(orgId, { points: 100, reference: "r1" })).outcome).toBe("paid_now");
        for (let i = 0; i < 3; i++) {
          expect((await buy(orgId, { points: 100, reference: "r1" })).outcome).toBe("paid");
        }
        // Three replays later, the second purchase still fits under frequency 2 and daily 200.
        expect((await buy(orgId, { points: 100, reference: "r2" })).outcome).toBe("paid_now");

        // Now every limit is exhausted, yet both references are still answered from the stored purchases.
        expect((await refusal(orgId, { points: 100, reference: "r3" })).code).toBe("limit_exceeded");
        const replay = await buy(orgId, { points: 100, reference: "r1" });
        expect([replay.outcome, replay.replayed]).toEqual(["paid", true]);
        expect((await buy(orgId, { points: 100, reference: "r2" })).outcome).toBe("paid");
        await expectNothingRecorded(created, { topUps: 2, payments: 2 });
      });

      it("of an unresolved purchase settles it even when the limits are exhausted", async () => {
        const created = await newOrg({ frequencyLimit: { count: 1, windowSeconds: 3_600 } }, { cards: ["processing"] });
        const orgId = created.organization.id;
        expect((await buy(orgId, { points: 100, reference: "slow" })).outcome).toBe("unresolved");
        expect((await refusal(orgId, { points: 100, reference: "other" })).code).toBe("frequency_limit_reached");
        expect((await buy(orgId, { points: 100, reference: "slow" })).outcome).toBe("paid_now");
      });
    });
  },
);
