import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { spends, topUps } from "@/lib/db/schema";
import { newId, randomString } from "@/lib/ids";
import { backendsAndProviders, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { createOrganization } from "../accounts/organizations";
import { purchasePoints } from "../purchase";
import { spendPoints } from "../spends/spends";
import { type HistoryItem, type HistoryView, listHistory, listTopUps } from "./history";
import { CSV_COLUMNS, HISTORY_CSV_COLUMNS, streamHistoryCsv } from "./history-csv";
import { parseHistoryFilters } from "./history-query";

const itemId = (item: HistoryItem) => (item.kind === "top_up" ? item.topUp.id : item.spend.id);
const itemReference = (item: HistoryItem) => (item.kind === "top_up" ? item.topUp.reference : item.spend.reference);

describe.each(backendsAndProviders())("History with spends (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function organization(name: string) {
    const { organization } = await createOrganization(ctx, {
      name: `${name} ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa", "declined"],
      defaultCardIndex: 0,
    });
    return organization;
  }

  /** An organisation with purchases and spends made through the services, in a known order. */
  async function mixed() {
    const org = await organization("Mixed");
    track(org.id);
    const buy = async (reference: string, source: "api" | "dashboard" = "api") => {
      const made = await purchasePoints(ctx, { organization: org, request: { points: 1000, reference }, source });
      expect(made.topUp.status).toBe("paid");
    };
    const spend = (reference: string, points: number, description?: string) =>
      spendPoints(ctx, { organizationId: org.id, request: { points, reference, description }, source: "operator" });
    // A purchase and a spend in the same instant, then others later: ties across kinds must hold.
    await buy("buy-1");
    await spend("spend-1", 120, "Report generation");
    ctx.clock.advance(1000);
    await buy("buy-2", "dashboard");
    ctx.clock.advance(1000);
    await spend("spend-2", 30);
    ctx.clock.advance(1000);
    await spend("spend-3", 5, "=SUM(A1), quoted");
    return org;
  }

  async function allPages(organizationId: string, view: HistoryView, limit: number): Promise<HistoryItem[][]> {
    const pages: HistoryItem[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await listHistory(ctx.db, organizationId, { ...view, cursor, limit });
      pages.push(page.items);
      if (!page.nextCursor) return pages;
      cursor = page.nextCursor;
    }
  }

  it("lists top-ups and spends together, newest first, and pages through them exactly once", async () => {
    const org = await mixed();
    const whole = await listHistory(ctx.db, org.id, { limit: 50 });
    expect(whole.nextCursor).toBeNull();
    expect(whole.items.map(itemReference)).toEqual(["spend-3", "spend-2", "buy-2", "buy-1", "spend-1"]);
    expect(whole.items.map((item) => item.kind)).toEqual(["spend", "spend", "top_up", "top_up", "spend"]);
    for (const size of [1, 2, 3, 4]) {
      const pages = await allPages(org.id, {}, size);
      expect(pages.every((page) => page.length <= size)).toBe(true);
      expect(pages.flat().map(itemId)).toEqual(whole.items.map(itemId));
    }
  });

  it("shows only top-ups while a top-up filter is set, and only spends when asked", async () => {
    const org = await mixed();
    const references = async (view: HistoryView) =>
      (await listHistory(ctx.db, org.id, { ...view, limit: 50 })).items.map(itemReference);
    expect(await references({ source: "dashboard" })).toEqual(["buy-2"]);
    expect(await references({ status: "paid" })).toEqual(["buy-2", "buy-1"]);
    expect(await references({ kind: "top_up" })).toEqual(["buy-2", "buy-1"]);
    expect(await references({ kind: "spend" })).toEqual(["spend-3", "spend-2", "spend-1"]);
    const spentPages = await allPages(org.id, { kind: "spend" }, 1);
    expect(spentPages.map((page) => page.map(itemReference))).toEqual([["spend-3"], ["spend-2"], ["spend-1"]]);
    // The top-ups-only History pages exactly as listTopUps does, cursors included.
    const topUpPage = await listTopUps(ctx.db, org.id, { limit: 1 });
    const historyPage = await listHistory(ctx.db, org.id, { kind: "top_up", limit: 1 });
    expect(historyPage.nextCursor).toBe(topUpPage.nextCursor);
  });

  it("reads the kind from the URL: Spent sets the top-up filters aside, anything unknown means both", () => {
    expect(parseHistoryFilters({ kind: "spend", status: "paid", source: "api", cursor: "c" })).toEqual({
      kind: "spend",
      cursor: "c",
    });
    expect(parseHistoryFilters({ kind: "top_up", status: "failed" })).toMatchObject({
      kind: "top_up",
      status: "failed",
    });
    for (const kind of ["spent", "", "SPEND", undefined]) expect(parseHistoryFilters({ kind }).kind).toBeUndefined();
  });

  it("never shows another organisation's spends", async () => {
    const org = await mixed();
    const other = await organization("Other");
    track(other.id);
    expect((await listHistory(ctx.db, other.id, { limit: 50 })).items).toEqual([]);
    const first = await listHistory(ctx.db, org.id, { limit: 1 });
    const crossed = await listHistory(ctx.db, other.id, { limit: 50, cursor: first.nextCursor ?? undefined });
    expect(crossed.items).toEqual([]);
  });

  it("never skips or repeats a row when top-ups and spends share a microsecond at a page boundary", async () => {
    // Rows written directly, so the ledger is not theirs to check: this organisation is not tracked.
    const org = await organization("Micro");
    const at = (micro: string) => sql`${`2026-11-22T10:00:00.${micro}Z`}::timestamptz`;
    const rows: Array<["top_up" | "spend", string]> = [
      ["top_up", "000001"],
      ["spend", "000001"],
      ["spend", "000002"],
      ["top_up", "000003"],
      ["spend", "000003"],
      ["spend", "000003"],
      ["top_up", "000003"],
      ["top_up", "000900"],
    ];
    for (const [index, [kind, micro]] of rows.entries()) {
      const reference = `micro-${index}`;
      if (kind === "spend") {
        await ctx.db.insert(spends).values({
          organizationId: org.id,
          id: newId("spend"),
          reference,
          points: 1,
          source: "operator",
          balanceAfter: 0,
          createdAt: at(micro),
        });
        continue;
      }
      await ctx.db.insert(topUps).values({
        id: newId("topUp"),
        organizationId: org.id,
        reference,
        points: 100,
        currency: "USD",
        amount: 1000,
        paymentSourceId: "pm_x",
        billingCustomerId: org.billingCustomerId,
        source: "api",
        status: "paid",
        providerIdempotencyKey: `topup_micro_${org.id}_${index}`,
        createdAt: at(micro),
        paidAt: at(micro),
      });
    }
    const whole = (await listHistory(ctx.db, org.id, { limit: 50 })).items.map(itemReference);
    expect(whole).toHaveLength(rows.length);
    expect(whole[0]).toBe("micro-7");
    expect(new Set(whole.slice(-2))).toEqual(new Set(["micro-0", "micro-1"]));
    for (const size of [1, 2, 3]) {
      expect((await allPages(org.id, {}, size)).flat().map(itemReference)).toEqual(whole);
    }
  });

  it("exports spends beside top-ups as CSV, the top-ups' columns first, and only top-ups under a top-up filter", async () => {
    const org = await mixed();
    const csv = async (view: HistoryView) =>
      (await new Response(streamHistoryCsv(ctx.db, org.id, view)).text()).trimEnd().split("\r\n");
    const all = await csv({});
    expect(all[0]).toBe(`${CSV_COLUMNS.join(",")},kind,description`);
    expect(HISTORY_CSV_COLUMNS.slice(0, CSV_COLUMNS.length)).toEqual(CSV_COLUMNS);
    expect(all).toHaveLength(6);
    const { items } = await listHistory(ctx.db, org.id, { limit: 50 });
    const spent = items.find((item) => item.kind === "spend" && item.spend.reference === "spend-1");
    if (spent?.kind !== "spend") throw new Error("spend-1 is missing");
    expect(all[5]).toBe(
      `${spent.spend.id},spend-1,-120,,,,,operator,${spent.spend.createdAt.toISOString()},,,,,,spend,Report generation`,
    );
    // A description is text like a reference: quoted when it holds a comma, never read as a formula.
    expect(all[1]).toMatch(/,spend-3,-5,.*,spend,"'=SUM\(A1\), quoted"$/);
    const bought = all.find((line) => line.includes(",buy-2,"));
    expect(bought).toMatch(/,paid,dashboard,[^,]+,[^,]+,0,0,,,top_up,$/);

    const spendsOnly = await csv({ kind: "spend" });
    expect(spendsOnly[0]).toBe(all[0]);
    expect(spendsOnly.slice(1).every((line) => line.includes(",spend,"))).toBe(true);
    expect(spendsOnly).toHaveLength(4);

    // A top-up filter exports the top-ups CSV as it always was: its columns, no spend rows.
    const paid = await csv({ status: "paid" });
    expect(paid[0]).toBe(CSV_COLUMNS.join(","));
    expect(paid).toHaveLength(3);
  });
});
