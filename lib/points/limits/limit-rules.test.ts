import { eq, getTableColumns } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hotQuery } from "@/lib/db/hot";
import { type Organization, organizations } from "@/lib/db/schema";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { createOrganization } from "../accounts/organizations";
import { nothingToCount, nothingToCountSql, ORGANIZATION_LIMITS } from "./limits";

/*
 * "No limit to count" decides whether a purchase may be recorded in one statement (SQL, in
 * purchase/start.ts) or must count under the organisation's lock (TypeScript, in limits.ts). Both
 * are built from ORGANIZATION_LIMITS; these tests fail when a limit is added to the schema and not
 * there, or when the two forms disagree on any limit.
 */

/** The organisation's limit columns, as the schema names them. */
const limitColumns = Object.entries(getTableColumns(organizations))
  .filter(([, column]) => /limit|^max_/.test(column.name))
  .map(([key]) => key);

describe("the organisation's limits", () => {
  it("are each listed in ORGANIZATION_LIMITS, which lists only limit columns", () => {
    expect(limitColumns.length).toBeGreaterThan(0);
    expect(Object.keys(ORGANIZATION_LIMITS).sort()).toEqual([...limitColumns].sort());
  });
});

type LimitColumn = keyof typeof ORGANIZATION_LIMITS;
const NONE: Pick<Organization, LimitColumn> = {
  maxPointsPerTopUp: null,
  maxPointsBalance: null,
  frequencyLimitCount: null,
  frequencyLimitWindowSeconds: null,
  dailyPointsLimit: null,
};

describe.each(backends())("no limit to count, in SQL and in TypeScript, on %s", (backend) => {
  let ctx: TestContext;
  let organizationId: string;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
    organizationId = (await createOrganization(ctx, { name: "Limit Rules Inc" })).organization.id;
  });
  afterAll(async () => ctx?.close());

  async function sqlSays(limits: Pick<Organization, LimitColumn>, points: number): Promise<boolean> {
    await ctx.db.update(organizations).set(limits).where(eq(organizations.id, organizationId));
    const [row] = await hotQuery(ctx.db, `select ${nothingToCountSql("$2")} as open from organizations where id = $1`, [
      organizationId,
      points,
    ]);
    return row?.open === true;
  }

  it("agree with no limit set, and with each limit set alone, below, at and above the bundle", async () => {
    const points = 500;
    const cases: Array<Pick<Organization, LimitColumn>> = [NONE];
    for (const column of Object.keys(ORGANIZATION_LIMITS) as LimitColumn[]) {
      const part = ORGANIZATION_LIMITS[column];
      // A part of another limit is set with it, as the organisation's settings do.
      const with_ = part !== "counted" && part !== "bundle" ? { [part]: 1 } : {};
      for (const value of [points - 1, points, points + 1]) cases.push({ ...NONE, ...with_, [column]: value });
    }
    for (const limits of cases) {
      expect({ limits, sql: await sqlSays(limits, points) }).toEqual({ limits, sql: nothingToCount(limits, points) });
    }
    expect(nothingToCount(NONE, points)).toBe(true);
    expect(nothingToCount({ ...NONE, maxPointsPerTopUp: points - 1 }, points)).toBe(false);
    expect(nothingToCount({ ...NONE, dailyPointsLimit: points + 1 }, points)).toBe(false);
  });
});
