import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import * as schema from "@/lib/db/schema";
import { createTestContext, type TestContext } from "@/lib/testing/harness";
import { createOrganization } from "../accounts/organizations";
import { getBalances } from "../after-payment/view";
import { encodeCursor, type HistoryFilters, listTopUps, topUpPosition } from "./history";

/*
 * History's listing reads one keyset range of an index per filter, so a page costs the same at any
 * depth and whatever the filter keeps (bench/million.ts measures it on a million rows). Checked here
 * on real Postgres for the plan a value gets and for the generic plan a prepared statement may
 * switch to, which cannot use a partial index whose condition arrives as a parameter.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)("history query plans (postgres)", () => {
  let ctx: TestContext;
  let client: postgres.Sql;
  let recordingDb: Db;
  const recorded: Array<{ query: string; params: unknown[] }> = [];
  let orgId: string;

  beforeAll(async () => {
    ctx = await createTestContext("postgres");
    const created = await createOrganization(ctx, {
      name: "Plans",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    orgId = created.organization.id;
    const other = await createOrganization(ctx, { name: "Plans other", cards: ["visa"], defaultCardIndex: 0 });
    client = postgres(ctx.url ?? "", { max: 2, onnotice: () => {} });
    for (const [organizationId, rows] of [
      [orgId, 30_000],
      [other.organization.id, 30_000],
    ] as const) {
      await client`
        insert into top_ups (id, organization_id, reference, points, currency, amount, payment_source_id,
          billing_customer_id, source, status, provider_idempotency_key, created_at, updated_at, paid_at,
          refunded_points, refunded_amount, dispute_id, dispute_status, dispute_points, dispute_points_state)
        select 'tu_p' || substr(md5(${organizationId} || i), 1, 20), ${organizationId}, 'ref-' || i, 100, 'USD', 1000, 'pm_x',
          'cus_x', case when i % 10 = 0 then 'dashboard' else 'api' end,
          case when i % 500 = 0 then 'processing' when i % 25 = 0 then 'failed' else 'paid' end,
          'plan_' || md5(${organizationId} || i), now() - i * interval '1 minute', now(),
          case when i % 500 <> 0 and i % 25 <> 0 then now() - i * interval '1 minute' end,
          case when i % 300 = 7 then 100 else 0 end, case when i % 300 = 7 then 1000 else 0 end,
          case when i % 600 = 11 then 'du_p' || md5(${organizationId} || i) end,
          case when i % 600 = 11 then 'open' end, case when i % 600 = 11 then 100 end,
          case when i % 600 = 11 then 'held' end
        from generate_series(1, ${rows}::int) as i`;
    }
    // The 50 open disputes' Points, as the ledger would have held them.
    await client`update organizations set held_points = 5000 where id = ${orgId}`;
    await client`analyze top_ups`;
    recordingDb = drizzle(client, {
      schema,
      logger: { logQuery: (query, params) => recorded.push({ query, params }) },
    }) as unknown as Db;
  }, 180_000);

  afterAll(async () => {
    await client?.end({ timeout: 5 });
    await ctx?.close();
  });

  async function plans(run: () => Promise<unknown>) {
    recorded.length = 0;
    await run();
    const [query] = recorded;
    if (!query) throw new Error("no query was sent");
    const literal = (value: unknown) =>
      typeof value === "number" ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
    const custom = await client.unsafe(`explain (format json) ${query.query}`, query.params as never[]);
    const reserved = await client.reserve();
    try {
      await reserved.unsafe(`prepare plan_q as ${query.query}`);
      await reserved.unsafe("set plan_cache_mode = force_generic_plan");
      const generic = await reserved.unsafe(
        `explain (format json) execute plan_q(${query.params.map(literal).join(", ")})`,
      );
      return [JSON.stringify(custom[0]?.["QUERY PLAN"]), JSON.stringify(generic[0]?.["QUERY PLAN"])];
    } finally {
      await reserved.unsafe("deallocate all");
      await reserved.unsafe("reset plan_cache_mode");
      reserved.release();
    }
  }

  const cases: Array<[string, HistoryFilters, string]> = [
    ["no filter", {}, "top_ups_organization_created_idx"],
    ["status=processing", { status: "processing" }, "top_ups_organization_status_created_idx"],
    ["status=paid", { status: "paid" }, "top_ups_organization_status_created_idx"],
    ["source=dashboard", { source: "dashboard" }, "top_ups_organization_source_created_idx"],
    ["after=refunded", { after: "refunded" }, "top_ups_organization_refunded_idx"],
    ["after=disputed", { after: "disputed" }, "top_ups_organization_disputed_idx"],
  ];

  it.each(cases)(
    "reads %s from one index range, first page and deep, without a sort",
    async (_name, filters, index) => {
      const first = await listTopUps(recordingDb, orgId, { ...filters, limit: 25 });
      expect(first.topUps).toHaveLength(25);
      for (const cursor of [undefined, first.nextCursor ?? undefined]) {
        for (const plan of await plans(() => listTopUps(recordingDb, orgId, { ...filters, cursor, limit: 25 }))) {
          expect(plan).toContain(`"Index Name":"${index}"`);
          expect(plan).not.toContain("Seq Scan");
          expect(plan).not.toContain('"Node Type":"Sort"');
        }
      }
    },
  );

  it("counts the disputes holding Points from their partial index", async () => {
    expect((await getBalances(recordingDb, orgId)).heldDisputes).toBe(50);
    recorded.length = 0;
    await getBalances(recordingDb, orgId);
    expect(recorded.at(-1)?.query).toContain("= 'held'");
    const heldQuery = recorded.at(-1);
    recorded.length = 0;
    for (const plan of await plans(async () => {
      if (heldQuery) recorded.push(heldQuery);
    })) {
      expect(plan).toContain('"Index Name":"top_ups_organization_held_idx"');
    }
  });

  it("makes a cursor from a row's position that pages on from that row, as nextCursor does", async () => {
    const first = await listTopUps(ctx.db, orgId, { limit: 10 });
    const last = first.topUps.at(-1);
    if (!last) throw new Error("no rows");
    const position = await topUpPosition(ctx.db, orgId, last.id);
    if (!position) throw new Error("no position");
    expect(encodeCursor(position)).toBe(first.nextCursor);
    const next = await listTopUps(ctx.db, orgId, { limit: 10, cursor: encodeCursor(position) });
    const whole = await listTopUps(ctx.db, orgId, { limit: 20 });
    expect(next.topUps.map((topUp) => topUp.id)).toEqual(whole.topUps.slice(10).map((topUp) => topUp.id));
  });
});
