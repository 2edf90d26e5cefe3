import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { topUps } from "@/lib/db/schema";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { parseTopUpRequest } from "@/lib/points/api/top-up-request";
import { purchasePoints } from "@/lib/points/purchase";
import { backends } from "@/lib/testing/harness";
import {
  createTarget,
  expectRefused,
  organizationRow,
  parseJsonOutput,
  type Target,
} from "@/lib/testing/points-cli-fixture";

/*
 * `org spend` and `reconcile` against the same kind of database the app uses, on purchases made
 * through the service, then the database read to check that what was printed is what happened. The
 * commands run in this process (Target.points: runPointsCli on the runtime the command would open
 * over the database), as in points-cli.test.ts, from which these checks came.
 */

describe.each(backends())("npm run points -- org spend and reconcile against %s", { concurrent: true }, (backend) => {
  // The reconcile checks build on one another (one database per backend), so they run in order.
  describe.sequential("after purchases", () => {
    let target: Target;
    const points = (...args: string[]) => target.points(args);

    beforeAll(async () => {
      target = await createTarget(backend);
      // The database is made and migrated by the first command.
      expect((await points("reconcile")).code).toBe(0);
    });
    afterAll(async () => target?.dispose());

    it("org spend spends as the API does: a rerun with the same reference spends once", async () => {
      const organizationId = await target.withDb(async (services) => {
        const { organization } = await createOrganization(services, {
          name: "Spender",
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["visa"],
          defaultCardIndex: 0,
        });
        const request = parseTopUpRequest({ points: 100, reference: "fund" });
        await purchasePoints(services, { organization, request, source: "api" });
        return organization.id;
      });
      const named = ["org", "spend", organizationId, "--points", "10", "--reference", "batch-7"];
      const once = parseJsonOutput(await points(...named, "--description", "Batch 7", "--json"));
      expect(once).toMatchObject({
        points_balance: 90,
        replayed: false,
        spend: { reference: "batch-7", description: "Batch 7", points: 10 },
      });
      const rerun = await points(...named, "--description", "Batch 7");
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stdout).toBe(
        `Already spent (${once.spend_id}, nothing spent again): 10 Points of ${organizationId}; 90 Points left.\n`,
      );
      expectRefused(await points(...named), /reference_conflict|already exists with other description/);
      expectRefused(await points("org", "spend", organizationId, "--points", "2000000"), /points/);
    });

    it("reconcile --report lists what has been unresolved for over an hour, and changes nothing", async () => {
      const topUpId = await target.withDb(async (services) => {
        const { organization } = await createOrganization(services, {
          name: "Stuck",
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["processing"],
          defaultCardIndex: 0,
        });
        const request = parseTopUpRequest({ points: 100, reference: "stuck-for-hours" });
        const result = await purchasePoints(services, { organization, request, source: "api" });
        await services.db
          .update(topUps)
          .set({ createdAt: new Date(Date.now() - 3 * 60 * 60 * 1000) })
          .where(eq(topUps.id, result.topUp.id));
        return result.topUp.id;
      });
      const report = parseJsonOutput(await points("reconcile", "--report", "--json"));
      expect(report.needs_attention).toEqual([
        expect.objectContaining({ top_up_id: topUpId, reference: "stuck-for-hours", status: "processing" }),
      ]);
      const text = await points("reconcile", "--report");
      expect(text.stdout).toMatch(/1 purchase has been unresolved for more than an hour/);
      expect(text.stdout).toContain("stuck-for-hours");
      await target.withDb(async (services) => {
        const [row] = await services.db.select().from(topUps).where(eq(topUps.id, topUpId));
        expect(row?.status).toBe("processing");
      });
      // Settled now, it is no longer reported.
      await points("reconcile");
      expect(parseJsonOutput(await points("reconcile", "--report", "--json")).needs_attention).toEqual([]);
    });

    it("reconcile settles a purchase left unresolved and prints it", async () => {
      const topUpId = await target.withDb(async (services) => {
        const { organization } = await createOrganization(services, {
          name: "Unresolved",
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["processing"],
          defaultCardIndex: 0,
        });
        const request = parseTopUpRequest({ points: 100, reference: "left-unresolved" });
        const result = await purchasePoints(services, { organization, request, source: "api" });
        expect(result.outcome).toBe("unresolved");
        return result.topUp.id;
      });
      const output = parseJsonOutput(await points("reconcile", "--json"));
      expect(output.settled).toEqual([
        expect.objectContaining({ top_up_id: topUpId, reference: "left-unresolved", status: "paid" }),
      ]);
      // Nothing is left, and a person is told so.
      const again = await points("reconcile");
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/No unresolved purchases/);
      await target.withDb(async (services) => {
        const [row] = await services.db.select().from(topUps).where(eq(topUps.id, topUpId));
        expect(row?.status).toBe("paid");
        expect((await organizationRow(services.db, row?.organizationId ?? "")).pointsBalance).toBe(100);
      });
    });
  });
});
