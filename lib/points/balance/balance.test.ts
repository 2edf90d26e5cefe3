import { describe, expect, it } from "vitest";
import { deliverEvents, organizationWith, paidPurchase } from "@/lib/testing/after-payment";
import { backendsAndProviders, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import {
  type CreateOrganizationInput,
  createOrganization,
  type OrganizationSettings,
  requireOrganization,
} from "../accounts/organizations";
import { toBalanceJson } from "../api/json";
import type { TopUpRequest } from "../api/top-up-request";
import { PointsError } from "../errors";
import { createGrant } from "../grants/grants";
import { type PurchaseResult, purchasePoints } from "../purchase";
import { spendPoints } from "../spends/spends";
import { getBalance } from "./balance";

const SECOND = 1_000;
const HOUR = 3_600 * SECOND;

describe.each(backendsAndProviders())(
  "GET /v3/points/balance's answer on %s with the %s provider",
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
        name: "Balance GmbH",
        cards: ["visa", "declined"],
        defaultCardIndex: 0,
        ...input,
        settings: { apiPurchasesEnabled: true, currency: "USD", ...settings },
      });
      track(created.organization.id);
      return created;
    }

    const organization = (id: string) => requireOrganization(ctx.db, id);

    async function buy(id: string, request: TopUpRequest): Promise<PurchaseResult> {
      return purchasePoints(ctx, { organization: await organization(id), request, source: "api" });
    }

    async function refusal(id: string, request: TopUpRequest): Promise<PointsError> {
      try {
        const result = await buy(id, request);
        throw new Error(`Expected a refusal, got ${result.outcome}`);
      } catch (error) {
        if (error instanceof PointsError) return error;
        throw error;
      }
    }

    const balance = async (id: string) =>
      toBalanceJson(await getBalance(ctx.db, await organization(id), ctx.clock.now()));
    const nowIso = () => ctx.clock.now().toISOString();
    const inSeconds = (seconds: number) => new Date(ctx.clock.now().getTime() + seconds * SECOND).toISOString();

    it("lists no limits for an organisation without any, and a purchase may be made now", async () => {
      const created = await newOrg({});
      expect(await balance(created.organization.id)).toEqual({
        points_balance: 0,
        points_held: 0,
        points_reserved: 0,
        points_by_category: { paid: 0, promotional: 0 },
        expiring: [],
        limits: {},
        next_purchase_at: nowIso(),
      });
    });

    it("shows each configured limit with what is used and what remains, counted as the purchase counts it", async () => {
      const created = await newOrg({
        maxPointsPerTopUp: 5000,
        maxPointsBalance: 10000,
        frequencyLimit: { count: 5, windowSeconds: 3600 },
        dailyPointsLimit: 3000,
      });
      const id = created.organization.id;
      const declined = created.paymentMethods[1]?.id;
      expect((await buy(id, { points: 1000, reference: "paid" })).outcome).toBe("paid_now");
      // A failed purchase counts toward frequency, not toward the daily Points nor the balance.
      expect((await buy(id, { points: 500, reference: "failed", paymentSourceId: declined })).outcome).toBe("failed");

      expect(await balance(id)).toEqual({
        points_balance: 1000,
        points_held: 0,
        points_reserved: 0,
        points_by_category: { paid: 1000, promotional: 0 },
        expiring: [],
        limits: {
          max_points_per_top_up: { limit: 5000 },
          max_points_balance: { limit: 10000, used: 1000, remaining: 9000 },
          frequency_limit: { limit: 5, window_seconds: 3600, used: 2, remaining: 3 },
          daily_points_limit: { limit: 3000, used: 1000, remaining: 2000 },
        },
        next_purchase_at: nowIso(),
      });
    });

    it("splits the balance by category, and lists what expires within 60 days in the order spends use it", async () => {
      const id = (await newOrg({})).organization.id;
      expect((await buy(id, { points: 500, reference: "bought" })).outcome).toBe("paid_now");
      const at = (days: number) => new Date(ctx.clock.now().getTime() + days * 24 * 3600 * SECOND);
      await createGrant(ctx, id, { points: 200, reason: "Later", expiresAt: at(30) });
      await createGrant(ctx, id, { points: 100, reason: "Sooner", expiresAt: at(5) });
      await createGrant(ctx, id, { points: 50, reason: "Past the 60 days", expiresAt: at(90) });
      await createGrant(ctx, id, { points: 25, reason: "Never" });
      expect(await balance(id)).toMatchObject({
        points_balance: 875,
        points_by_category: { paid: 500, promotional: 375 },
        expiring: [
          { points: 100, category: "promotional", expires_at: at(5).toISOString() },
          { points: 200, category: "promotional", expires_at: at(30).toISOString() },
        ],
      });
      // A spend takes from the first lot listed, then the next: what the balance shows is what a spend uses.
      await spendPoints(ctx, { organizationId: id, request: { points: 120, reference: "use" }, source: "operator" });
      expect(await balance(id)).toMatchObject({
        points_balance: 755,
        points_by_category: { paid: 500, promotional: 255 },
        expiring: [{ points: 180, category: "promotional", expires_at: at(30).toISOString() }],
      });
    });

    it("shows Points a dispute holds apart from the spendable balance", async () => {
      const made = await organizationWith(ctx, ["dispute", "visa"], track);
      await paidPurchase(ctx, made, 1000, 0);
      await paidPurchase(ctx, made, 250, 1);
      await deliverEvents(ctx);
      // The simulated bank holds a disputed purchase's Points; on Stripe the money leaves at once, so they are removed.
      expect(await balance(made.organization.id)).toMatchObject({
        points_balance: 250,
        points_held: provider === "stripe" ? 0 : 1000,
      });
    });

    it("names the time the frequency limit frees a place: the time a refused purchase's Retry-After names", async () => {
      const created = await newOrg({ frequencyLimit: { count: 2, windowSeconds: 60 } });
      const id = created.organization.id;
      expect((await buy(id, { points: 100, reference: "f1" })).outcome).toBe("paid_now");
      ctx.clock.advance(10 * SECOND);
      expect((await buy(id, { points: 100, reference: "f2" })).outcome).toBe("paid_now");
      ctx.clock.advance(5 * SECOND);

      const full = await balance(id);
      expect(full.limits.frequency_limit).toEqual({ limit: 2, window_seconds: 60, used: 2, remaining: 0 });
      expect(full.next_purchase_at).toBe(inSeconds(45));
      const error = await refusal(id, { points: 100, reference: "f3" });
      expect(error.code).toBe("frequency_limit_reached");
      expect(error.retryAfterSeconds).toBe(45);

      // At that time a purchase passes, and the balance says so.
      ctx.clock.advance(45 * SECOND);
      expect((await balance(id)).next_purchase_at).toBe(nowIso());
      expect((await buy(id, { points: 100, reference: "f4" })).outcome).toBe("paid_now");
    });

    it("names the time enough Points roll out of the daily limit for the smallest bundle", async () => {
      const created = await newOrg({ dailyPointsLimit: 1000 });
      const id = created.organization.id;
      expect((await buy(id, { points: 500, reference: "d1" })).outcome).toBe("paid_now");
      ctx.clock.advance(1 * HOUR);
      expect((await buy(id, { points: 500, reference: "d2" })).outcome).toBe("paid_now");
      ctx.clock.advance(1 * HOUR);

      const full = await balance(id);
      expect(full.limits.daily_points_limit).toEqual({ limit: 1000, used: 1000, remaining: 0 });
      // The first 500 leave the rolling 24 hours 22 hours from now.
      expect(full.next_purchase_at).toBe(inSeconds(22 * 3600));
      const error = await refusal(id, { points: 100, reference: "d3" });
      expect(error.code).toBe("daily_limit_reached");
      expect(error.retryAfterSeconds).toBe(22 * 3600);
    });

    it("names the later of the two times when both rate limits are reached", async () => {
      const created = await newOrg({ frequencyLimit: { count: 1, windowSeconds: 60 }, dailyPointsLimit: 100 });
      const id = created.organization.id;
      expect((await buy(id, { points: 100, reference: "both" })).outcome).toBe("paid_now");
      expect((await balance(id)).next_purchase_at).toBe(inSeconds(24 * 3600));
      ctx.clock.advance(60 * SECOND);
      // The frequency window is free again, the day is not: the purchase is refused until the daily time.
      const error = await refusal(id, { points: 100, reference: "later" });
      expect([error.code, error.retryAfterSeconds]).toEqual(["daily_limit_reached", 24 * 3600 - 60]);
      expect((await balance(id)).next_purchase_at).toBe(inSeconds(24 * 3600 - 60));
    });

    it("counts the Points of a purchase that may still be credited against the balance cap", async () => {
      const created = await newOrg({ maxPointsBalance: 1000 }, { cards: ["visa", "authentication_required"] });
      const id = created.organization.id;
      const waiting = created.paymentMethods[1]?.id;
      expect((await buy(id, { points: 500, reference: "paid" })).outcome).toBe("paid_now");
      expect((await buy(id, { points: 250, reference: "waits", paymentSourceId: waiting })).outcome).toBe(
        "awaiting_payment",
      );
      expect((await balance(id)).limits.max_points_balance).toEqual({ limit: 1000, used: 750, remaining: 250 });
      expect((await refusal(id, { points: 500, reference: "over" })).code).toBe("limit_exceeded");
    });
  },
);
