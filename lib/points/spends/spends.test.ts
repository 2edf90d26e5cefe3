import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, organizations } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { backendsAndProviders, expectPointsError, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { createOrganization } from "../accounts/organizations";
import { toEventJson } from "../api/json";
import { parseSpendListQuery, parseSpendRequest, type SpendRequest } from "../api/spend-request";
import { listEvents } from "../events/events";
import { purchasePoints } from "../purchase";
import { listSpends, spendPoints } from "./spends";

/** The PointsError `run` throws, once its code is checked. */
async function refused(run: () => unknown, code: string) {
  const error = await expectPointsError(run);
  expect(error.code).toBe(code);
  return error;
}

describe.each(backendsAndProviders())("Spends (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  /** An organisation with `points` bought, and a spend function for it. */
  async function withBalance(points: 100 | 1000 = 1000) {
    const { organization } = await createOrganization(ctx, {
      name: `Spends ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    track(organization.id);
    const bought = await purchasePoints(ctx, {
      organization,
      request: { points, reference: `buy-${randomString(6)}` },
      source: "api",
    });
    expect(bought.topUp.status).toBe("paid");
    const spend = (request: SpendRequest) =>
      spendPoints(ctx, { organizationId: organization.id, request, source: "api" });
    const balance = async () =>
      (
        await ctx.db
          .select({ points: organizations.pointsBalance })
          .from(organizations)
          .where(eq(organizations.id, organization.id))
      )[0]?.points;
    return { organization, spend, balance };
  }

  it("takes Points from the balance and answers the spend with the balance left", async () => {
    const { spend, balance } = await withBalance();
    const first = await spend({ points: 120, reference: "job-1", description: "Report generation" });
    expect(first.replayed).toBe(false);
    expect(first.pointsBalance).toBe(880);
    expect(first.spend).toMatchObject({ reference: "job-1", points: 120, description: "Report generation" });
    expect(first.spend.id).toMatch(/^sp_/);
    const second = await spend({ points: 880, reference: "job-2" });
    expect(second.spend.description).toBeNull();
    expect(second.pointsBalance).toBe(0);
    expect(await balance()).toBe(0);
  });

  it("answers the same spend again for its reference, and spends once", async () => {
    const { spend, balance } = await withBalance();
    const first = await spend({ points: 300, reference: "job-r", description: "Export" });
    const again = await spend({ points: 300, reference: "job-r", description: "Export" });
    expect(again.replayed).toBe(true);
    expect(again.spend).toEqual(first.spend);
    expect(again.pointsBalance).toBe(700);
    expect(await balance()).toBe(700);
  });

  it("refuses a reference spent with other terms (409 reference_conflict), changing nothing", async () => {
    const { spend, balance } = await withBalance();
    const first = await spend({ points: 300, reference: "job-c", description: "Export" });
    const error = await refused(
      () => spend({ points: 301, reference: "job-c", description: "Export" }),
      "reference_conflict",
    );
    expect(error.details).toMatchObject({ spend: { id: first.spend.id, points: 300 }, fields: ["points"] });
    await refused(() => spend({ points: 300, reference: "job-c" }), "reference_conflict");
    expect(await balance()).toBe(700);
  });

  it("never spends more than the spendable balance (409 insufficient_points), changing nothing", async () => {
    const { organization, spend, balance } = await withBalance(100);
    const error = await refused(() => spend({ points: 101, reference: "too-much" }), "insufficient_points");
    expect(error.message).toMatch(/has 100 Points to spend, not 101/);
    expect(error.details).toMatchObject({ points_balance: 100, points: 101 });
    expect(await balance()).toBe(100);
    // A refused reference was not used: it may spend once the balance allows.
    expect((await spend({ points: 100, reference: "too-much" })).pointsBalance).toBe(0);
    const page = await listSpends(ctx.db, organization.id, { limit: 10 });
    expect(page.spends.map((s) => s.reference)).toEqual(["too-much"]);
  });

  it("announces each spend once as points.spent, and writes it to the audit log", async () => {
    const { organization, spend } = await withBalance();
    const done = await spend({ points: 250, reference: "job-e", description: "Batch" });
    await spend({ points: 250, reference: "job-e", description: "Batch" });
    const events = (await listEvents(ctx.db, organization.id, { after: 0, limit: 100 })).events.map(toEventJson);
    const spent = events.filter((event) => event.type === "points.spent");
    expect(spent).toHaveLength(1);
    expect(spent[0]?.data).toEqual({
      spend: {
        id: done.spend.id,
        reference: "job-e",
        points: 250,
        description: "Batch",
        created_at: done.spend.createdAt.toISOString(),
      },
      points_balance: 750,
    });
    const audit = await ctx.db.select().from(auditLog).where(eq(auditLog.organizationId, organization.id));
    expect(audit.filter((entry) => entry.action === "points.spent")).toEqual([
      expect.objectContaining({
        target: done.spend.id,
        before: { points_balance: 1000 },
        after: { points_balance: 750, points: 250, reference: "job-e" },
      }),
    ]);
  });

  it("lists spends newest first in pages, by either cursor, and by reference", async () => {
    const { organization, spend } = await withBalance();
    for (const n of [1, 2, 3, 4, 5]) {
      await spend({ points: 10, reference: `page-${n}` });
      ctx.clock.advance(1000);
    }
    const list = (query: string) =>
      listSpends(ctx.db, organization.id, parseSpendListQuery(new URLSearchParams(query)));
    const first = await list("limit=2");
    expect(first.spends.map((s) => s.reference)).toEqual(["page-5", "page-4"]);
    expect(first.hasMore).toBe(true);
    const next = await list(`limit=2&starting_after=${first.spends[1]?.id}`);
    expect(next.spends.map((s) => s.reference)).toEqual(["page-3", "page-2"]);
    const last = await list(`limit=2&starting_after=${next.spends[1]?.id}`);
    expect(last).toMatchObject({ hasMore: false });
    expect(last.spends.map((s) => s.reference)).toEqual(["page-1"]);
    const back = await list(`limit=2&ending_before=${next.spends[0]?.id}`);
    expect(back.spends.map((s) => s.reference)).toEqual(["page-5", "page-4"]);
    expect((await list("reference=page-2")).spends.map((s) => s.reference)).toEqual(["page-2"]);
    const other = await withBalance();
    const theirs = await other.spend({ points: 1, reference: "theirs" });
    const error = await refused(() => list(`starting_after=${theirs.spend.id}`), "invalid_request");
    expect(error.details).toEqual({
      fields: { starting_after: "is not the ID of one of the organisation's spends" },
    });
  });
});

describe("a spend's request and the spends list's query", () => {
  it("names every offending field at once, and what a missing one takes", () => {
    const error = (body: unknown) => {
      try {
        parseSpendRequest(body);
      } catch (thrown) {
        return (thrown as { code: string; details: { fields: Record<string, string> } }).details.fields;
      }
      throw new Error("accepted");
    };
    expect(error({ points: 0, reference: "bad ref", description: "x".repeat(201), price: 1 })).toEqual({
      points: "must be a whole number of Points from 1 to 1,000,000",
      reference: "must be 1 to 100 letters, digits, '.', '_', ':' or '-', unique per spend",
      description: "must be text of at most 200 characters, or omitted",
      price: "is not an accepted field",
    });
    expect(error({})).toEqual({
      points: "is required: must be a whole number of Points from 1 to 1,000,000",
      reference: "is required: must be 1 to 100 letters, digits, '.', '_', ':' or '-', unique per spend",
    });
    expect(error({ points: 1.5, reference: "a" })).toEqual({
      points: "must be a whole number of Points from 1 to 1,000,000",
    });
    expect(error([1])).toEqual({ body: "must be a JSON object" });
    expect(parseSpendRequest({ points: 1_000_000, reference: "a:b.c_d-e", description: null })).toEqual({
      points: 1_000_000,
      reference: "a:b.c_d-e",
      description: undefined,
    });
  });

  it("takes limit, one cursor and a reference, and names each bad parameter", () => {
    expect(parseSpendListQuery(new URLSearchParams(""))).toEqual({ limit: 20 });
    expect(() => parseSpendListQuery(new URLSearchParams("limit=101&starting_after=tu_1&x=1"))).toThrow(
      expect.objectContaining({
        code: "invalid_request",
        details: {
          fields: {
            limit: "must be a whole number from 1 to 100",
            starting_after: "must be the ID of one of the organisation's spends (sp_…)",
            x: "is not an accepted parameter",
          },
        },
      }),
    );
    expect(() => parseSpendListQuery(new URLSearchParams("starting_after=sp_a&ending_before=sp_b"))).toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
  });
});
