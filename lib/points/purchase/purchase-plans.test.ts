import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { createTestContext, type TestContext } from "@/lib/testing/harness";
import { createOrganization, getOrganization } from "../accounts/organizations";
import { purchasePoints } from "./";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/*
 * A new database has no statistics, and a prepared statement keeps the generic plan it made then:
 * any lookup by (organisation, reference) may be planned as a scan of all the organisation's
 * purchases, which grows with every purchase. Recording a new purchase (P1) must not read
 * top_ups at all: the unique index decides whether its reference is taken.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)("a new purchase's first statement (postgres)", () => {
  let ctx: TestContext;
  let client: postgres.Sql;
  const sent: Array<{ text: string; params: unknown[] }> = [];
  let recordingDb: Db;
  let orgId: string;

  beforeAll(async () => {
    ctx = await createTestContext("postgres");
    const created = await createOrganization(ctx, {
      name: "P1 plans",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    orgId = created.organization.id;
    client = postgres(ctx.url ?? "", { max: 2, onnotice: () => {} });
    // Purchases of this organisation that no statistics know of: the table is never analysed here.
    await client`
      insert into top_ups (id, organization_id, reference, points, currency, amount, payment_source_id,
        billing_customer_id, source, status, provider_idempotency_key, created_at, updated_at, paid_at)
      select 'tu_plan' || i, ${orgId}, 'old-' || i, 100, 'USD', 1000, 'pm_x', 'cus_x', 'api', 'paid',
        'plan_' || i, now(), now(), now()
      from generate_series(1, 2000) as i`;
    const real = (ctx.db as unknown as { $client: { unsafe: (text: string, params: unknown[]) => unknown } }).$client;
    const recordingClient = new Proxy(real, {
      get(target, key, receiver) {
        if (key !== "unsafe") return Reflect.get(target, key, receiver);
        return (text: string, params: unknown[], options?: unknown) => {
          sent.push({ text, params });
          return (target.unsafe as (...args: unknown[]) => unknown)(text, params, options);
        };
      },
    });
    recordingDb = new Proxy(ctx.db, {
      get: (target, key, receiver) => (key === "$client" ? recordingClient : Reflect.get(target, key, receiver)),
    });
  }, 120_000);

  afterAll(async () => {
    await client?.end({ timeout: 5 });
    await ctx?.close();
  });

  it("inserts without reading the organisation's purchases, in the generic plan too", async () => {
    const organization = await getOrganization(ctx.db, orgId);
    if (!organization) throw new Error("no organisation");
    const result = await purchasePoints(
      { ...ctx, db: recordingDb },
      { organization, request: { points: 100, reference: "new-one" }, source: "api" },
    );
    expect(result.outcome).toBe("paid_now");
    const p1 = sent.find((query) => query.text.includes("insert into top_ups"));
    if (!p1) throw new Error("the purchase was not recorded in one statement");

    const reserved = await client.reserve();
    try {
      await reserved.unsafe(`prepare p1 as ${p1.text}`);
      await reserved.unsafe("set plan_cache_mode = force_generic_plan");
      await reserved.unsafe("begin");
      // Another purchase's values: a new id, idempotency key and reference.
      const params = p1.params.map((value) =>
        typeof value === "string" ? value.replace(result.topUp.id, "tu_planned").replace("new-one", "another") : value,
      );
      const literal = (value: unknown) => (value === null ? "null" : `'${String(value).replaceAll("'", "''")}'`);
      const [row] = await reserved.unsafe(
        `explain (analyze, format json) execute p1(${params.map(literal).join(", ")})`,
      );
      await reserved.unsafe("rollback");
      const plan = (row?.["QUERY PLAN"] as Array<{ Plan: PlanNode }> | undefined)?.[0]?.Plan;
      if (!plan) throw new Error("no plan");
      const reads = nodes(plan).filter(
        (node) => node["Relation Name"] === "top_ups" && node["Node Type"] !== "ModifyTable",
      );
      expect(reads.length).toBeGreaterThan(0);
      for (const node of reads)
        expect({ node: node["Node Type"], loops: node["Actual Loops"] }).toEqual({ node: node["Node Type"], loops: 0 });
      expect(JSON.stringify(plan)).toContain('"Operation":"Insert"');
    } finally {
      await reserved.unsafe("deallocate all");
      reserved.release();
    }
  });
});
