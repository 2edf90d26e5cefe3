import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import {
  backendsAndProviders,
  createTestContext,
  faultyProvider,
  type ProviderFault,
  type ProviderTestContext,
  patchProvider,
  withProvider,
} from "@/lib/testing/harness";
import { expectInvariants, ledgerState, serviceSuite } from "@/lib/testing/invariants";
import { createOrganization } from "../accounts/organizations";
import type { Services } from "../services";
import { DEFAULT_LEASE_MS, type PurchasePhase, purchasePoints, reconcileTopUps, SimulatedCrash } from "./";

const PHASES: PurchasePhase[] = ["recorded", "charge_marked", "charged", "outcome_recorded"];

describe.each(backendsAndProviders())(
  "recovery after a crash or a provider fault (%s, %s provider)",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });
    const state = (organizationId: string) => ledgerState(ctx.db, organizationId, ctx.probe);

    async function setup(cards: string[] = ["visa"]) {
      const { organization } = await createOrganization(ctx, {
        name: `Crash ${randomString(4)}`,
        settings: { currency: "GBP", apiPurchasesEnabled: true },
        cards,
        defaultCardIndex: 0,
      });
      track(organization.id);
      const buy = (services: Services = ctx, options = {}) =>
        purchasePoints(
          services,
          { organization, request: { points: 500, reference: "crashy" }, source: "api" },
          options,
        );
      return { organization, buy };
    }

    const crashAfter = (phase: PurchasePhase) => ({
      afterPhase: (reached: PurchasePhase) => {
        if (reached === phase) throw new SimulatedCrash(phase);
      },
    });

    it.each(PHASES)("a crash after %s is recovered by a retry with exactly one charge", async (phase) => {
      const { organization, buy } = await setup();
      await expect(buy(ctx, crashAfter(phase))).rejects.toBeInstanceOf(SimulatedCrash);

      // The dead request still holds its lease unless it had finished; a retry inside the lease waits.
      const early = await buy();
      expect(early.outcome).toBe(phase === "outcome_recorded" ? "paid" : "purchase_in_progress");

      ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
      const retried = await buy();
      expect(retried.topUp.status).toBe("paid");
      expect(retried.outcome).toBe(phase === "outcome_recorded" ? "paid" : "paid_now");
      expect(retried.replayed).toBe(true);
      expect((await buy()).outcome).toBe("paid");

      expect(await state(organization.id)).toMatchObject({ charges: 1, credits: 1, balance: 500, ledgerSum: 500 });
    });

    it.each(PHASES.slice(0, 3))(
      "the reconciler settles a purchase abandoned after %s, and running it again changes nothing",
      async (phase) => {
        const { organization, buy } = await setup();
        await expect(buy(ctx, crashAfter(phase))).rejects.toBeInstanceOf(SimulatedCrash);

        expect(await reconcileTopUps(ctx)).toEqual([]); // The lease is still held: hands off.
        ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
        const settled = await reconcileTopUps(ctx);
        expect(settled.map((result) => result.topUp.status)).toEqual(["paid"]);
        expect(await reconcileTopUps(ctx)).toEqual([]);

        expect((await buy()).outcome).toBe("paid");
        expect(await state(organization.id)).toMatchObject({ charges: 1, credits: 1, balance: 500 });
      },
    );

    it.each<[ProviderFault, number]>([
      ["execute_then_throw", 1],
      ["throw_before_execute", 0],
    ])("a provider failure (%s) leaves the purchase unresolved until a retry settles it", async (fault, charged) => {
      const { organization, buy } = await setup();
      const flaky = withProvider(ctx, faultyProvider(ctx.provider, [fault]));

      const first = await buy(flaky);
      expect(first.outcome).toBe("unresolved");
      expect(first.topUp.status).toBe("processing");
      expect((await state(organization.id)).charges).toBe(charged);

      const retried = await buy(flaky);
      expect(retried.outcome).toBe("paid_now");
      expect(await state(organization.id)).toMatchObject({ charges: 1, credits: 1, balance: 500 });
    });

    it("a failed lookup of a purchase awaiting payment keeps it awaiting payment", async () => {
      const { organization, buy } = await setup(["authentication_required"]);
      expect((await buy()).outcome).toBe("awaiting_payment");
      const broken = withProvider(
        ctx,
        patchProvider(ctx.provider, {
          retrievePayment: async () => {
            throw new Error("provider timed out (injected)");
          },
        }),
      );
      const retried = await buy(broken);
      expect(retried.outcome).toBe("awaiting_payment");
      const [row] = await ctx.db.select().from(topUps).where(eq(topUps.organizationId, organization.id));
      expect(row?.status).toBe("awaiting_payment");
      expect(row?.lockedUntil).toBeNull();
      expect((await state(organization.id)).charges).toBe(1);
    });
  },
);

describe.each(backendsAndProviders())("the scheduled reconciler (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend, { provider });
  });
  afterAll(async () => ctx?.close());

  it("leaves a fresh unresolved purchase to its client's retry, then settles it once it is a minute old", async () => {
    const { organization } = await createOrganization(ctx, {
      name: `Late ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["processing"],
      defaultCardIndex: 0,
    });
    const first = await purchasePoints(ctx, {
      organization,
      request: { points: 100, reference: "abandoned" },
      source: "api",
    });
    expect(first.outcome).toBe("unresolved");

    expect(await reconcileTopUps(ctx, { minAgeMs: 60_000 })).toEqual([]);
    ctx.clock.advance(61_000);
    const settled = await reconcileTopUps(ctx, { minAgeMs: 60_000 });
    expect(settled.map((result) => [result.topUp.reference, result.topUp.status])).toEqual([["abandoned", "paid"]]);
    expect(await ledgerState(ctx.db, organization.id, ctx.probe)).toMatchObject({
      charges: 1,
      credits: 1,
      balance: 100,
    });
    await expectInvariants(ctx, organization.id);
  });

  it("stops between purchases when a shutdown asks it to, leaving the rest for a later run", async () => {
    const { organization } = await createOrganization(ctx, {
      name: `Stopping ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["processing"],
      defaultCardIndex: 0,
    });
    for (const reference of ["first", "second", "third"]) {
      const result = await purchasePoints(ctx, { organization, request: { points: 100, reference }, source: "api" });
      expect(result.outcome).toBe("unresolved");
    }
    ctx.clock.advance(61_000);
    let asked = 0;
    const stoppingAfterOne = () => {
      asked += 1;
      return asked > 1;
    };
    const settled = await reconcileTopUps(ctx, { minAgeMs: 60_000, stopping: stoppingAfterOne });
    expect(settled.map((result) => result.topUp.status)).toEqual(["paid"]);
    const rest = await reconcileTopUps(ctx, { minAgeMs: 60_000 });
    const references = [...settled, ...rest].map((result) => result.topUp.reference);
    expect(references.sort()).toEqual(["first", "second", "third"]);
    expect(await ledgerState(ctx.db, organization.id, ctx.probe)).toMatchObject({
      charges: 3,
      credits: 3,
      balance: 300,
    });
    await expectInvariants(ctx, organization.id);
  });
});
