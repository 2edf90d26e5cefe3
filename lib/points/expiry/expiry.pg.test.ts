import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { events, organizations, pointsLedger } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { createTestContext, openInstance, type ProviderTestContext } from "@/lib/testing/harness";
import { expectInvariants } from "@/lib/testing/invariants";
import { createOrganization } from "../accounts/organizations";
import { PointsError } from "../errors";
import { createGrant } from "../grants/grants";
import type { Services } from "../services";
import { spendPoints } from "../spends/spends";
import { expireDueLots } from "./expiry";

const DAY = 24 * 60 * 60 * 1000;

/* Expiry on a real Postgres server from two instances (two pools on one database), racing spends. */
describe("expiry on Postgres across two instances", () => {
  let first: ProviderTestContext;
  let second: ProviderTestContext;
  const tracked: string[] = [];
  beforeAll(async () => {
    first = await createTestContext("postgres", { maxConnections: 20 });
    second = await openInstance(first);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });
  afterEach(async () => {
    for (const id of tracked.splice(0)) await expectInvariants(first, id);
  });

  it("expires each lot once while spends draw from the same lots, and the lots sum to the balance", async () => {
    const { organization } = await createOrganization(first, { name: `Expiry race ${randomString(4)}` });
    tracked.push(organization.id);
    const expiresAt = new Date(first.clock.now().getTime() + DAY);
    for (let index = 0; index < 8; index++) {
      await createGrant(first, organization.id, { points: 100, reason: `Lot ${index}`, expiresAt });
    }
    await createGrant(first, organization.id, { points: 400, reason: "Never" });
    first.clock.advance(DAY);
    second.clock.advance(DAY);
    const instances: Services[] = [first, second];
    const spends = Array.from({ length: 20 }, (_, index) =>
      spendPoints(instances[index % 2] as Services, {
        organizationId: organization.id,
        request: { points: 30, reference: `race-${index}` },
        source: "operator",
      }).then(
        () => 30,
        (error: unknown) => {
          if (error instanceof PointsError && error.code === "insufficient_points") return 0;
          throw error;
        },
      ),
    );
    const [spent] = await Promise.all([
      Promise.all(spends),
      expireDueLots(first, { batch: 3 }),
      expireDueLots(second, { batch: 3 }),
    ]);
    await expireDueLots(first);
    const expiries = await first.db
      .select()
      .from(pointsLedger)
      .where(and(eq(pointsLedger.organizationId, organization.id), eq(pointsLedger.kind, "expiry")));
    expect(new Set(expiries.map((row) => row.causeId)).size, "one expiry per lot").toBe(expiries.length);
    const expired = -expiries.reduce((sum, row) => sum + row.delta, 0);
    const taken = spent.reduce((sum, points) => sum + points, 0);
    const [after] = await first.db.select().from(organizations).where(eq(organizations.id, organization.id));
    expect(after?.pointsBalance).toBe(1200 - expired - taken);
    const announced = await first.db
      .select()
      .from(events)
      .where(and(eq(events.organizationId, organization.id), eq(events.type, "points.expired")));
    expect(announced).toHaveLength(expiries.length);
  });
});
