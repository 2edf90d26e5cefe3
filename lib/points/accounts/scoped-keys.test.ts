import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys, topUps } from "@/lib/db/schema";
import { backendsAndProviders, expectPointsError, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { toBalanceJson } from "../api/json";
import { getBalance } from "../balance/balance";
import { listUsablePaymentMethods } from "../cards/payment-methods";
import { saveSettings } from "../cards/settings";
import { purchasePoints, quotePurchase } from "../purchase";
import { getTopUpOrThrow, listTopUpsPage } from "../views/top-up-list";
import {
  type ApiCaller,
  authenticateApiCaller,
  authenticateApiPurchase,
  authenticateApiRequest,
  createApiKey,
  listApiKeys,
} from "./api-keys";
import { createOrganization, type OrganizationSettings, requireOrganization } from "./organizations";

describe.each(backendsAndProviders())("scoped API keys on %s with the %s provider", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function newOrg(settings: OrganizationSettings = {}) {
    const created = await createOrganization(ctx, {
      name: "Scopes Ltd",
      cards: ["visa", "declined"],
      defaultCardIndex: 0,
      settings: { apiPurchasesEnabled: true, currency: "USD", ...settings },
    });
    track(created.organization.id);
    return created;
  }

  const bearer = (key: { apiKey: string }) => `Bearer ${key.apiKey}`;

  /** As POST /v3/points/top-ups does: steps 1 to 4, then the purchase with the key. */
  async function buy(key: { apiKey: string }, points: number, reference: string, paymentSourceId?: string) {
    const caller = await authenticateApiPurchase(ctx.db, bearer(key), ctx.clock);
    return purchasePoints(ctx, {
      organization: caller.organization,
      request: { points: points as 100, reference, ...(paymentSourceId ? { paymentSourceId } : {}) },
      source: "api",
      apiKey: caller.key,
    });
  }

  /** As POST /v3/points/quotes does: steps 1 to 3, then the quote with the key. */
  async function quote(key: { apiKey: string }, points: number) {
    const caller: ApiCaller = await authenticateApiCaller(ctx.db, bearer(key), ctx.clock);
    return quotePurchase(ctx, caller.organization, { points: points as 100 }, caller.key);
  }

  async function rows(organizationId: string) {
    return ctx.db.select().from(topUps).where(eq(topUps.organizationId, organizationId));
  }

  it("creates keys as purchase by default, or read, with an optional daily cap, and lists them so", async () => {
    const created = await newOrg();
    const id = created.organization.id;
    expect([created.apiKey.scope, created.apiKey.dailyPointsCap]).toEqual(["purchase", null]);
    const read = await createApiKey(ctx.db, id, ctx.clock, { scope: "read" });
    const capped = await createApiKey(ctx.db, id, ctx.clock, { dailyPointsCap: 500 });
    const listed = await listApiKeys(ctx.db, id);
    const byId = new Map(listed.map((key) => [key.id, [key.scope, key.dailyPointsCap]]));
    expect(byId.get(created.apiKey.keyId)).toEqual(["purchase", null]);
    expect(byId.get(read.keyId)).toEqual(["read", null]);
    expect(byId.get(capped.keyId)).toEqual(["purchase", 500]);

    for (const bad of [0, -5, 2.5, Number.NaN]) {
      const refused = await expectPointsError(() => createApiKey(ctx.db, id, ctx.clock, { dailyPointsCap: bad }));
      expect([refused.code, Object.keys(refused.details.fields as object)]).toEqual([
        "invalid_request",
        ["dailyPointsCap"],
      ]);
    }
    const scope = await expectPointsError(() =>
      createApiKey(ctx.db, id, ctx.clock, { scope: "admin" as "read", dailyPointsCap: 0 }),
    );
    expect(Object.keys(scope.details.fields as object).sort()).toEqual(["dailyPointsCap", "scope"]);
    expect(await listApiKeys(ctx.db, id)).toHaveLength(3);
  });

  it("refuses a daily cap on a read key, which cannot buy, and the database refuses one too", async () => {
    const created = await newOrg();
    const id = created.organization.id;
    const refused = await expectPointsError(() =>
      createApiKey(ctx.db, id, ctx.clock, { scope: "read", dailyPointsCap: 500 }),
    );
    expect([refused.code, refused.details.fields]).toEqual([
      "invalid_request",
      { dailyPointsCap: "must be empty for a read key: it cannot buy, so it has no daily Points to cap" },
    ]);
    expect(await listApiKeys(ctx.db, id)).toHaveLength(1);
    const read = await createApiKey(ctx.db, id, ctx.clock, { scope: "read" });
    await expect(
      ctx.db.update(apiKeys).set({ dailyPointsCap: 500 }).where(eq(apiKeys.id, read.keyId)),
    ).rejects.toThrow();
  });

  it("refuses a read key's purchase with 403 insufficient_scope after availability, and writes nothing", async () => {
    const created = await newOrg();
    const id = created.organization.id;
    const read = await createApiKey(ctx.db, id, ctx.clock, { scope: "read" });

    const refused = await expectPointsError(() => buy(read, 100, "read-1"));
    expect([refused.code, refused.status, refused.details]).toEqual([
      "insufficient_scope",
      403,
      { scope: "read", required_scope: "purchase" },
    ]);
    expect(await rows(id)).toHaveLength(0);
    expect((await getBalance(ctx.db, created.organization, ctx.clock.now())).pointsBalance).toBe(0);

    // Availability is checked first: a disabled organisation says so to a read key too.
    await saveSettings(ctx, id, { apiPurchasesEnabled: false, currency: "USD" });
    expect((await expectPointsError(() => buy(read, 100, "read-2"))).code).toBe("api_purchases_disabled");
  });

  it("lets a read key list, read and quote", async () => {
    const created = await newOrg();
    const id = created.organization.id;
    const read = await createApiKey(ctx.db, id, ctx.clock, { scope: "read" });
    const bought = await buy(created.apiKey, 250, "by-purchase-key");
    expect(bought.outcome).toBe("paid_now");

    const organization = await authenticateApiRequest(ctx.db, bearer(read), ctx.clock);
    expect(organization.id).toBe(id);
    expect((await listUsablePaymentMethods(ctx, organization)).length).toBeGreaterThan(0);
    expect((await getBalance(ctx.db, organization, ctx.clock.now())).pointsBalance).toBe(250);
    const page = await listTopUpsPage(ctx.db, id, { limit: 10 });
    expect(page.topUps.map((topUp) => topUp.reference)).toEqual(["by-purchase-key"]);
    expect((await getTopUpOrThrow(ctx.db, id, bought.topUp.id)).points).toBe(250);
    expect(await quote(read, 500)).toMatchObject({ points: 500, currency: "USD", pointsBalanceAfter: 750 });
  });

  it("refuses a capped key with 429 key_daily_limit_reached and Retry-After; the organisation's other keys still buy", async () => {
    const created = await newOrg();
    const id = created.organization.id;
    const capped = await createApiKey(ctx.db, id, ctx.clock, { dailyPointsCap: 600 });

    const first = await buy(capped, 500, "capped-1");
    expect(first.outcome).toBe("paid_now");
    expect(first.topUp.apiKeyId).toBe(capped.keyId);
    ctx.clock.advance(3_600_000);

    const refused = await expectPointsError(() => buy(capped, 250, "capped-2"));
    expect([refused.code, refused.status, refused.retryAfterSeconds]).toEqual([
      "key_daily_limit_reached",
      429,
      23 * 3600,
    ]);
    expect(refused.details).toEqual({
      limit: "key_daily_points",
      key_daily_points_cap: 600,
      key_points_last_24h: 500,
      points: 250,
    });
    // The quote with the same key refuses the same way; nothing was recorded for the refusal.
    const quoted = await expectPointsError(() => quote(capped, 250));
    expect([quoted.code, quoted.retryAfterSeconds, quoted.details]).toEqual([
      refused.code,
      refused.retryAfterSeconds,
      refused.details,
    ]);
    expect(await rows(id)).toHaveLength(1);

    // A bundle that still fits passes, and the organisation's first key is not held by this cap.
    const asKey = async (key: { keyId: string; dailyPointsCap: number | null }) =>
      toBalanceJson(
        await getBalance(ctx.db, await requireOrganization(ctx.db, id), ctx.clock.now(), {
          id: key.keyId,
          dailyPointsCap: key.dailyPointsCap,
        }),
      );
    // The balance the capped key reads shows its own cap, and a 100-Point purchase may still be made now.
    expect(await asKey(capped)).toMatchObject({
      limits: { key_daily_points: { limit: 600, used: 500, remaining: 100 } },
      next_purchase_at: ctx.clock.now().toISOString(),
    });
    expect((await buy(capped, 100, "capped-3")).outcome).toBe("paid_now");
    // Now full: the key's next purchase waits until the first one leaves the 24 hours; the other key's does not.
    const full = await asKey(capped);
    expect(full.limits.key_daily_points).toEqual({ limit: 600, used: 600, remaining: 0 });
    expect(full.next_purchase_at).toBe(new Date(ctx.clock.now().getTime() + 23 * 3600_000).toISOString());
    const unlimited = await asKey(created.apiKey);
    expect([unlimited.limits.key_daily_points, unlimited.next_purchase_at]).toEqual([
      undefined,
      ctx.clock.now().toISOString(),
    ]);
    const other = await buy(created.apiKey, 2500, "other-key");
    expect([other.outcome, other.topUp.apiKeyId]).toEqual(["paid_now", created.apiKey.keyId]);

    // The window rolls: 24 hours after the first purchase, its Points no longer count.
    ctx.clock.advance(23 * 3600_000);
    expect((await buy(capped, 250, "capped-4")).outcome).toBe("paid_now");
  });

  it("counts neither failed purchases nor replays toward the key's cap", async () => {
    const created = await newOrg();
    const id = created.organization.id;
    const declined = created.paymentMethods[1]?.id;
    const capped = await createApiKey(ctx.db, id, ctx.clock, { dailyPointsCap: 500 });

    expect((await buy(capped, 500, "fails", declined)).outcome).toBe("failed");
    const paid = await buy(capped, 500, "pays");
    expect(paid.outcome).toBe("paid_now");
    // The cap is reached, yet both replays are answered from their stored purchases, before any limit.
    const replayPaid = await buy(capped, 500, "pays");
    expect([replayPaid.outcome, replayPaid.replayed, replayPaid.topUp.id]).toEqual(["paid", true, paid.topUp.id]);
    expect((await buy(capped, 500, "fails", declined)).outcome).toBe("failed");
    expect((await expectPointsError(() => buy(capped, 100, "over"))).code).toBe("key_daily_limit_reached");
    expect(await rows(id)).toHaveLength(2);
  });

  it("checks the organisation's own limits before the key's cap", async () => {
    const created = await newOrg({ dailyPointsLimit: 600 });
    const capped = await createApiKey(ctx.db, created.organization.id, ctx.clock, { dailyPointsCap: 500 });
    expect((await buy(capped, 500, "first")).outcome).toBe("paid_now");
    // Past both the organisation's day and the key's cap: the organisation's answers.
    expect((await expectPointsError(() => buy(capped, 250, "second"))).code).toBe("daily_limit_reached");
    // Past the key's cap only.
    expect((await expectPointsError(() => buy(capped, 100, "third"))).code).toBe("key_daily_limit_reached");
  });
});
