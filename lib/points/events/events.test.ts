import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events, organizations } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { deliverEvents } from "@/lib/testing/after-payment";
import {
  backendsAndProviders,
  completeAuthenticationInDashboard,
  expectPointsError,
  faultyProvider,
  type ProviderTestContext,
  withProvider,
} from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { createOrganization } from "../accounts/organizations";
import { refundTopUp } from "../after-payment/refunds";
import { parseEventListQuery } from "../api/event-list";
import { toEventJson, toTopUpJson } from "../api/json";
import { saveSettings } from "../cards/settings";
import { purchasePoints, reconcileTopUps } from "../purchase";
import type { Services } from "../services";
import { EVENTS_KEPT_MS, emitTopUpEvent, listEvents, pruneEvents } from "./events";

describe.each(backendsAndProviders())("Events (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function setup(cards: string[] = ["visa"]) {
    const { organization } = await createOrganization(ctx, {
      name: `Events ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards,
      defaultCardIndex: 0,
    });
    track(organization.id);
    // Stripe's events about the cards provisioned with it are sent while it is being made, before
    // its row exists, so their webhooks find no organisation. Only the events from here on are this test's.
    await ctx.probe.takeEvents();
    const buy = (reference: string, services: Services = ctx) =>
      purchasePoints(services, { organization, request: { points: 100, reference }, source: "api" });
    const feed = async (after = 0) =>
      (await listEvents(ctx.db, organization.id, { after, limit: 100 })).events.map(toEventJson);
    return { organization, buy, feed };
  }

  it("announces a paid purchase with the TopUp as the API returns it, numbered from 1", async () => {
    const { organization, buy, feed } = await setup();
    const first = await buy("ev-1");
    const second = await buy("ev-2");
    const sent = await feed();
    expect(sent.map((event) => [event.sequence, event.type])).toEqual([
      [1, "top_up.paid"],
      [2, "top_up.paid"],
    ]);
    expect(sent[0]).toMatchObject({
      organization_id: organization.id,
      data: { top_up: toTopUpJson(first.topUp), points_balance: 100 },
    });
    expect(sent[1]?.data).toEqual({ top_up: toTopUpJson(second.topUp), points_balance: 200 });
    expect(sent[0]?.id).toMatch(/^evt_/);
    // A replay changes nothing, so it announces nothing.
    await buy("ev-1");
    expect(await feed(2)).toEqual([]);
  });

  it("announces a declined purchase once, as failed", async () => {
    const { buy, feed } = await setup(["declined"]);
    const result = await buy("ev-declined");
    await buy("ev-declined");
    expect((await feed()).map((event) => [event.type, event.data.top_up])).toEqual([
      ["top_up.failed", toTopUpJson(result.topUp)],
    ]);
  });

  it("announces a purchase awaiting the cardholder once, then its payment", async () => {
    const { organization, buy, feed } = await setup(["authentication_required"]);
    const awaiting = await buy("ev-3ds");
    await buy("ev-3ds"); // asked again: still awaiting, nothing new to say
    await completeAuthenticationInDashboard(ctx, {
      organizationId: organization.id,
      topUpId: awaiting.topUp.id,
      succeed: true,
    });
    await deliverEvents(ctx);
    const sent = await feed();
    expect(sent.map((event) => event.type)).toEqual(["top_up.awaiting_payment", "top_up.paid"]);
    expect(sent[0]?.data.top_up).toMatchObject({ status: "awaiting_payment", failure: { code: expect.any(String) } });
  });

  it("announces an unknown outcome once, then the payment the reconciler finds", async () => {
    const { buy, feed } = await setup();
    const flaky = withProvider(ctx, faultyProvider(ctx.provider, ["execute_then_throw"]));
    expect((await buy("ev-unknown", flaky)).outcome).toBe("unresolved");
    const timingOut = withProvider(ctx, faultyProvider(ctx.provider, ["throw_before_execute"]));
    expect((await buy("ev-unknown", timingOut)).outcome).toBe("unresolved");
    ctx.clock.advance(10 * 60_000);
    expect((await reconcileTopUps(ctx, { ignoreBackoff: true })).map((result) => result.topUp.status)).toEqual([
      "paid",
    ]);
    expect((await feed()).map((event) => [event.type, (event.data.top_up as { status: string }).status])).toEqual([
      ["top_up.unresolved", "processing"],
      ["top_up.paid", "paid"],
    ]);
  });

  it("announces a refund with the Points it took, and settings when they change", async () => {
    const { organization, buy, feed } = await setup();
    const paid = await buy("ev-refund");
    await refundTopUp(ctx, { topUpId: paid.topUp.id, reason: "asked" });
    await deliverEvents(ctx);
    await saveSettings(ctx, organization.id, { apiPurchasesEnabled: false, currency: "USD" });
    await saveSettings(ctx, organization.id, { apiPurchasesEnabled: false, currency: "USD" }); // no change
    const sent = await feed();
    expect(sent.map((event) => event.type)).toEqual(["top_up.paid", "top_up.refunded", "settings.updated"]);
    expect(sent[1]?.data).toMatchObject({ top_up: { refunded_points: 100 }, points_balance: 0 });
    expect(sent[2]?.data).toMatchObject({ settings: { api_purchases_enabled: false, currency: "USD" } });
  });

  it("leaves no event and no number when the change rolls back", async () => {
    const { organization, buy, feed } = await setup();
    const paid = await buy("ev-rollback");
    await expect(
      ctx.db.transaction(async (tx) => {
        await emitTopUpEvent(tx, paid.topUp, "top_up.refunded", ctx.clock.now());
        throw new Error("the change failed (injected)");
      }),
    ).rejects.toThrow("injected");
    const [org] = await ctx.db.select().from(organizations).where(eq(organizations.id, organization.id));
    expect(org?.eventSequence).toBe(1);
    await buy("ev-after");
    expect((await feed()).map((event) => event.sequence)).toEqual([1, 2]);
  });

  it("pages the feed by sequence, and answers 410 events_expired once what follows `after` is gone", async () => {
    const { organization, buy } = await setup();
    for (const reference of ["p-1", "p-2", "p-3"]) await buy(reference);
    const page = await listEvents(ctx.db, organization.id, { after: 0, limit: 2 });
    expect(page.events.map((event) => event.sequence)).toEqual([1, 2]);
    expect(page.hasMore).toBe(true);
    const rest = await listEvents(ctx.db, organization.id, { after: 2, limit: 2 });
    expect([rest.events.map((event) => event.sequence), rest.hasMore]).toEqual([[3], false]);
    expect((await listEvents(ctx.db, organization.id, { after: 3, limit: 2 })).events).toEqual([]);

    ctx.clock.advance(EVENTS_KEPT_MS + 60_000);
    await buy("p-4");
    // Only this organisation's old events are looked at here; other tests' may go too.
    while ((await pruneEvents(ctx.db, ctx.clock.now(), 100)) > 0) {}
    const expired = await expectPointsError(() => listEvents(ctx.db, organization.id, { after: 0, limit: 10 }));
    expect([expired.code, expired.status, expired.details]).toEqual(["events_expired", 410, { oldest_sequence: 4 }]);
    expect((await listEvents(ctx.db, organization.id, { after: 3, limit: 10 })).events.map((e) => e.sequence)).toEqual([
      4,
    ]);
    const rows = await ctx.db.select().from(events).where(eq(events.organizationId, organization.id));
    expect(rows.map((row) => row.sequence)).toEqual([4]);
  });
});

describe("the feed's query", () => {
  it("takes after and limit, and names each bad parameter", async () => {
    expect(parseEventListQuery(new URLSearchParams(""))).toEqual({ after: 0, limit: 50 });
    expect(parseEventListQuery(new URLSearchParams("after=7&limit=100"))).toEqual({ after: 7, limit: 100 });
    const error = await expectPointsError(() => parseEventListQuery(new URLSearchParams("after=-1&limit=0&x=1")));
    expect(error.details.fields).toEqual({
      after: expect.stringContaining("whole number"),
      limit: "must be a whole number from 1 to 100",
      x: "is not an accepted parameter",
    });
  });
});
