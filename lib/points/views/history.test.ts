import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "@/lib/catalog";
import { type Organization, type TopUp, topUps } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { createOrganization } from "../accounts/organizations";
import { refundTopUp } from "../after-payment/refunds";
import { getBalances } from "../after-payment/view";
import { PointsError } from "../errors";
import { deliverPendingEvents } from "../intake/provider-events";
import { purchasePoints } from "../purchase";
import { getTopUp } from "../purchase/top-ups";
import { type ListTopUpsOptions, listTopUps } from "./history";
import { streamTopUpsCsv } from "./history-csv";
import { parseHistoryFilters } from "./history-query";

describe.each(backends())("top-up history (%s)", (backend) => {
  let ctx: TestContext;
  let org: Organization;
  let other: Organization;
  let cards: { visa: string; declined: string };

  async function buy(
    reference: string,
    options: { points?: Bundle; card?: string; source?: "api" | "dashboard" } = {},
  ) {
    return purchasePoints(ctx, {
      organization: org,
      request: {
        points: options.points ?? 100,
        currency: "USD",
        paymentSourceId: options.card ?? cards.visa,
        reference,
      },
      source: options.source ?? "api",
    });
  }

  /** Every page from the newest, following nextCursor, as the dashboard's "Next page" link does. */
  async function allPages(options: Omit<ListTopUpsOptions, "cursor">, organizationId = org.id): Promise<TopUp[][]> {
    const pages: TopUp[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await listTopUps(ctx.db, organizationId, { ...options, cursor });
      pages.push(page.topUps);
      if (!page.nextCursor) return pages;
      cursor = page.nextCursor;
    }
  }

  beforeAll(async () => {
    ctx = await createTestContext(backend);
    const created = await createOrganization(ctx, {
      name: "History",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa", "declined"],
      defaultCardIndex: 0,
    });
    org = created.organization;
    const [visa, declined] = created.paymentMethods;
    if (!visa || !declined) throw new Error("cards were not provisioned");
    cards = { visa: visa.id, declined: declined.id };
    const second = await createOrganization(ctx, { name: "Other", cards: ["visa"], defaultCardIndex: 0 });
    other = second.organization;

    // Three purchases in the same instant, then two later ones: ties must be broken consistently.
    await buy("same-1", { source: "api" });
    await buy("same-2", { source: "dashboard" });
    await buy("same-3", { source: "api", card: cards.declined });
    ctx.clock.advance(1000);
    await buy("later-1", { source: "dashboard", card: cards.declined, points: 250 });
    ctx.clock.advance(1000);
    await buy("latest", { source: "dashboard", points: 500 });
    await purchasePoints(ctx, {
      organization: other,
      request: { points: 100, currency: "USD", reference: "same-1" },
      source: "api",
    });
  }, 120_000);

  afterAll(async () => {
    await ctx?.close();
  });

  it("lists every top-up newest first, API and dashboard purchases alike", async () => {
    const { topUps: listed, nextCursor } = await listTopUps(ctx.db, org.id, { limit: 50 });
    expect(nextCursor).toBeNull();
    expect(listed).toHaveLength(5);
    expect(listed.slice(0, 2).map((topUp) => topUp.reference)).toEqual(["latest", "later-1"]);
    expect(new Set(listed.slice(2).map((topUp) => topUp.reference))).toEqual(new Set(["same-1", "same-2", "same-3"]));
    expect(new Set(listed.map((topUp) => topUp.source))).toEqual(new Set(["api", "dashboard"]));
    const times = listed.map((topUp) => topUp.createdAt.getTime());
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it("filters by status and by source, and by both together", async () => {
    const failed = await listTopUps(ctx.db, org.id, { status: "failed", limit: 50 });
    expect(failed.topUps.map((topUp) => topUp.reference).sort()).toEqual(["later-1", "same-3"]);
    const dashboard = await listTopUps(ctx.db, org.id, { source: "dashboard", limit: 50 });
    expect(dashboard.topUps.map((topUp) => topUp.reference).sort()).toEqual(["later-1", "latest", "same-2"]);
    const both = await listTopUps(ctx.db, org.id, { status: "paid", source: "dashboard", limit: 50 });
    expect(both.topUps.map((topUp) => topUp.reference).sort()).toEqual(["latest", "same-2"]);
    const none = await listTopUps(ctx.db, org.id, { status: "awaiting_payment", limit: 50 });
    expect(none).toEqual({ topUps: [], nextCursor: null });
  });

  it("pages through every top-up exactly once, in the single-page order, even across equal timestamps", async () => {
    const whole = (await listTopUps(ctx.db, org.id, { limit: 50 })).topUps.map((topUp) => topUp.id);
    for (const size of [1, 2, 3, 4]) {
      const pages = await allPages({ limit: size });
      expect(pages.every((page) => page.length <= size)).toBe(true);
      expect(pages.flat().map((topUp) => topUp.id)).toEqual(whole);
    }
    const failedPages = await allPages({ status: "failed", limit: 1 });
    expect(failedPages.map((page) => page.map((topUp) => topUp.reference))).toEqual([["later-1"], ["same-3"]]);
  });

  it("never skips or repeats rows created within the same millisecond", async () => {
    // Postgres keeps microseconds; a cursor rounded to a JS millisecond would lose these rows.
    const org2 = (await createOrganization(ctx, { name: "Micro", cards: ["visa"], defaultCardIndex: 0 })).organization;
    // Two rows share a microsecond and straddle the first page boundary (limit 2).
    const micros = ["000001", "000002", "000003", "000003", "000900"];
    for (const [index, micro] of micros.entries()) {
      await ctx.db.insert(topUps).values({
        id: newId("topUp"),
        organizationId: org2.id,
        reference: `micro-${index}`,
        points: 100,
        currency: "USD",
        amount: 1000,
        paymentSourceId: "pm_x",
        billingCustomerId: org2.billingCustomerId,
        source: "api",
        status: "paid",
        providerIdempotencyKey: `topup_micro_${index}`,
        createdAt: sql`${`2026-11-22T10:00:00.${micro}Z`}::timestamptz`,
        paidAt: sql`${`2026-11-22T10:00:01.${micro}Z`}::timestamptz`,
      });
    }
    const pages = await allPages({ limit: 2 }, org2.id);
    const references = pages.flat().map((topUp) => topUp.reference);
    expect(references).toHaveLength(5);
    expect(new Set(references).size).toBe(5);
    expect(references[0]).toBe("micro-4");
    expect(references.at(-1)).toBe("micro-0");
  });

  it("never shows another organisation's top-ups, even with the same reference or a guessed ID", async () => {
    const mine = await listTopUps(ctx.db, org.id, { limit: 50 });
    const theirs = await listTopUps(ctx.db, other.id, { limit: 50 });
    expect(mine.topUps.every((topUp) => topUp.organizationId === org.id)).toBe(true);
    expect(theirs.topUps.map((topUp) => topUp.reference)).toEqual(["same-1"]);
    const theirId = theirs.topUps[0]?.id ?? "";
    expect(await getTopUp(ctx.db, org.id, theirId)).toBeUndefined();
    expect((await getTopUp(ctx.db, other.id, theirId))?.reference).toBe("same-1");
    // A cursor from one organisation's history only positions the page: the rows stay the caller's own.
    const firstPage = await listTopUps(ctx.db, org.id, { limit: 1 });
    const crossed = await listTopUps(ctx.db, other.id, { limit: 50, cursor: firstPage.nextCursor ?? undefined });
    expect(crossed.topUps.every((topUp) => topUp.organizationId === other.id)).toBe(true);
  });

  it("refuses a cursor it did not issue instead of showing a wrong page", async () => {
    for (const cursor of ["nonsense", Buffer.from('["yesterday","tu_1"]').toString("base64url"), ""]) {
      await expect(listTopUps(ctx.db, org.id, { limit: 10, cursor })).rejects.toBeInstanceOf(PointsError);
    }
  });

  it("exports the filtered history as CSV with a header row, newest first", async () => {
    const text = await new Response(streamTopUpsCsv(ctx.db, org.id, { source: "dashboard" })).text();
    const lines = text.trimEnd().split("\r\n");
    // The columns of earlier exports first, in their order; what happened after payment follows.
    expect(lines[0]).toBe(
      "id,reference,points,amount,currency,payment_source_id,status,source,created_at,paid_at," +
        "refunded_points,refunded_amount,dispute_status,dispute_points_state",
    );
    expect(lines).toHaveLength(4);
    const [latest] = (await listTopUps(ctx.db, org.id, { source: "dashboard", limit: 1 })).topUps;
    expect(lines[1]).toBe(
      `${latest?.id},latest,500,4500,USD,${cards.visa},paid,dashboard,${latest?.createdAt.toISOString()},${latest?.paidAt?.toISOString()},0,0,,`,
    );
    const declined = lines.find((line) => line.includes(",later-1,"));
    expect(declined).toMatch(/,failed,dashboard,[^,]+,,0,0,,$/);
  });

  describe("after payment: refunds and disputes", () => {
    let afterOrg: Organization;
    let refunded: TopUp;
    let disputed: TopUp;

    beforeAll(async () => {
      const created = await createOrganization(ctx, {
        name: "After payment",
        settings: { currency: "EUR", apiPurchasesEnabled: true },
        cards: ["dispute", "visa"],
        defaultCardIndex: 1,
      });
      afterOrg = created.organization;
      const [disputeCard, visa] = created.paymentMethods;
      if (!disputeCard || !visa) throw new Error("cards were not provisioned");
      const bought = async (reference: string, card: string, points: Bundle) => {
        const result = await purchasePoints(ctx, {
          organization: afterOrg,
          request: { points, currency: "EUR", paymentSourceId: card, reference },
          source: "dashboard",
        });
        if (result.topUp.status !== "paid") throw new Error(`${reference} was not paid: ${result.topUp.status}`);
        return result.topUp.id;
      };
      const disputedId = await bought("=disputed", disputeCard.id, 500);
      // The simulated provider opens the dispute in an event, as Stripe's webhook would.
      await deliverPendingEvents(ctx);
      const refundedId = await bought("refunded", visa.id, 250);
      await refundTopUp(ctx, { topUpId: refundedId, points: 100, reason: "Unused" });
      await bought("untouched", visa.id, 100);
      const read = async (id: string) => {
        const topUp = await getTopUp(ctx.db, afterOrg.id, id);
        if (!topUp) throw new Error(`${id} vanished`);
        return topUp;
      };
      refunded = await read(refundedId);
      disputed = await read(disputedId);
    }, 120_000);

    it("filters to refunded or disputed top-ups, and the filter survives the URL", async () => {
      const refs = async (after: "refunded" | "disputed") =>
        (await listTopUps(ctx.db, afterOrg.id, { after, limit: 10 })).topUps.map((topUp) => topUp.reference);
      expect(await refs("refunded")).toEqual(["refunded"]);
      expect(await refs("disputed")).toEqual(["=disputed"]);
      expect(parseHistoryFilters({ after: "refunded" }).after).toBe("refunded");
      expect(parseHistoryFilters({ after: ["disputed", "refunded"] }).after).toBe("disputed");
      // Anything else means "all", as for the other filters: a hand-edited URL never fails.
      for (const after of ["lost", "", "REFUNDED", undefined])
        expect(parseHistoryFilters({ after }).after).toBeUndefined();
    });

    it("keeps the disputed Points apart from the spendable balance", async () => {
      expect(disputed.disputePointsState).toBe("held");
      // 500 + 250 + 100 bought; 500 held by the dispute; 100 refunded.
      expect(await getBalances(ctx.db, afterOrg.id)).toEqual({ pointsBalance: 250, heldPoints: 500, heldDisputes: 1 });
    });

    it("exports the refund and the dispute as columns, honouring the filter and the formula guard", async () => {
      const csv = async (after?: "refunded" | "disputed") =>
        (await new Response(streamTopUpsCsv(ctx.db, afterOrg.id, { after })).text()).trimEnd().split("\r\n");
      const onlyRefunded = await csv("refunded");
      expect(onlyRefunded).toHaveLength(2);
      expect(onlyRefunded[1]).toBe(
        `${refunded.id},refunded,250,${refunded.amount},EUR,${refunded.paymentSourceId},paid,dashboard,${refunded.createdAt.toISOString()},${refunded.paidAt?.toISOString()},100,${refunded.refundedAmount},,`,
      );
      expect(refunded.refundedAmount).toBe(Math.round((refunded.amount * 100) / 250));
      const onlyDisputed = await csv("disputed");
      expect(onlyDisputed).toHaveLength(2);
      // A reference starting with "=" is still neutralised.
      expect(onlyDisputed[1]).toMatch(
        new RegExp(`^${disputed.id},'=disputed,500,.*,paid,dashboard,[^,]+,[^,]+,0,0,open,held$`),
      );
      expect(await csv()).toHaveLength(4);
    });
  });
});
