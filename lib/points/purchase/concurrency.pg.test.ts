import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "@/lib/catalog";
import type { Organization } from "@/lib/db/schema";
import { topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import {
  createTestContext,
  faultyProvider,
  openInstance,
  type ProviderTestContext,
  patchProvider,
  providers,
  slowProvider,
  withProvider,
} from "@/lib/testing/harness";
import { expectInvariants, ledgerState } from "@/lib/testing/invariants";
import { quietly } from "@/lib/testing/observability";
import { createOrganization, type OrganizationSettings } from "../accounts/organizations";
import { PointsError } from "../errors";
import type { Services } from "../services";
import { DEFAULT_LEASE_MS, type PurchaseResult, purchasePoints, resolveTopUp } from "./";

/*
 * These races only mean something on a real Postgres server with real connection pools:
 * two "instances" here are two independent pools (and provider objects) on one database,
 * as two app servers would be. The provider is slowed down so requests overlap the charge.
 * With Stripe, both instances have SDK clients of their own on the same Stripe test server.
 */
describe.each(providers())("concurrent purchases on Postgres across two instances (%s provider)", (provider) => {
  let first: ProviderTestContext;
  let second: ProviderTestContext;
  let instances: Services[];

  beforeAll(async () => {
    first = await createTestContext("postgres", { maxConnections: 25, provider });
    second = await openInstance(first);
    instances = [first, second].map((ctx) => ({ ...ctx, provider: slowProvider(ctx.provider, 150) }));
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  const organizationsThisTest: string[] = [];
  afterEach(async () => {
    first.probe.reset();
    for (const id of organizationsThisTest.splice(0)) await expectInvariants(first, id);
  });
  const ledgerOf = (organizationId: string) => ledgerState(first.db, organizationId, first.probe);

  async function newOrganization(settings: OrganizationSettings = {}): Promise<Organization> {
    const created = await createOrganization(first, {
      name: `Race ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true, ...settings },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    organizationsThisTest.push(created.organization.id);
    return created.organization;
  }

  /** Fires all purchases at once, alternating instances; errors are collected as values. */
  function race(organization: Organization, requests: { points: Bundle; reference: string }[]) {
    return Promise.all(
      requests.map((request, index) => {
        const services = instances[index % instances.length] as Services;
        return purchasePoints(services, { organization, request, source: "api" }).then(
          (result): PurchaseResult | PointsError => result,
          (error: unknown) => {
            if (error instanceof PointsError) return error;
            throw error;
          },
        );
      }),
    );
  }

  it("charges and credits a reference exactly once when 50 identical requests race", async () => {
    const organization = await newOrganization();
    const requests = Array.from({ length: 50 }, () => ({ points: 250 as Bundle, reference: "same-ref" }));
    const results = await race(organization, requests);

    const outcomes = results.map((result) => (result instanceof PointsError ? result.code : result.outcome));
    expect(outcomes.filter((outcome) => outcome === "paid_now")).toHaveLength(1);
    expect(outcomes.every((outcome) => ["paid_now", "paid", "purchase_in_progress"].includes(outcome))).toBe(true);
    expect(outcomes).toContain("purchase_in_progress");
    const ids = new Set(results.map((result) => (result instanceof PointsError ? null : result.topUp.id)));
    expect(ids.size).toBe(1);

    const state = await ledgerOf(organization.id);
    expect(state).toMatchObject({ charges: 1, credits: 1, paidTopUps: 1, balance: 250, ledgerSum: 250 });
    // Not one replayed charge either: only the lease holder ever sent it.
    expect(first.probe.chargeRequests(organization.billingCustomerId)).toHaveLength(1);
    expect(state.miscredited + state.strayCredits).toBe(0);
  });

  it("lands every one of 50 distinct concurrent purchases and keeps the balance equal to the ledger", async () => {
    const organization = await newOrganization();
    const requests = Array.from({ length: 50 }, (_, i) => ({ points: 100 as Bundle, reference: `distinct-${i}` }));
    const results = await race(organization, requests);

    expect(results.every((result) => !(result instanceof PointsError) && result.outcome === "paid_now")).toBe(true);
    const state = await ledgerOf(organization.id);
    expect(state).toMatchObject({ charges: 50, credits: 50, paidTopUps: 50, balance: 5000, ledgerSum: 5000 });
  });

  it("never lets racing purchases pass the maximum balance, and charges none that were refused", async () => {
    const organization = await newOrganization({ maxPointsBalance: 1000 });
    const requests = Array.from({ length: 20 }, (_, i) => ({ points: 100 as Bundle, reference: `cap-${i}` }));
    const results = await race(organization, requests);

    const paid = results.filter((result) => !(result instanceof PointsError) && result.outcome === "paid_now");
    const refused = results.filter((result) => result instanceof PointsError && result.code === "limit_exceeded");
    expect(paid).toHaveLength(10);
    expect(refused).toHaveLength(10);
    const state = await ledgerOf(organization.id);
    expect(state).toMatchObject({ charges: 10, balance: 1000, ledgerSum: 1000 });
  });

  it("charges at most once when one reference races with different bundles", async () => {
    const organization = await newOrganization();
    const bundles: Bundle[] = [100, 250, 500, 1000];
    const requests = Array.from({ length: 20 }, (_, i) => ({ points: bundles[i % 4] as Bundle, reference: "mixed" }));
    const results = await race(organization, requests);

    const outcomes = results.map((result) => (result instanceof PointsError ? result.code : result.outcome));
    expect(outcomes.filter((outcome) => outcome === "paid_now")).toHaveLength(1);
    expect(
      outcomes.every((outcome) => ["paid_now", "paid", "purchase_in_progress", "reference_conflict"].includes(outcome)),
    ).toBe(true);
    const state = await ledgerOf(organization.id);
    expect(state.charges).toBe(1);
    expect(first.probe.chargeRequests(organization.billingCustomerId)).toHaveLength(1);
    expect(state.credits).toBe(1);
  });

  it("shares the frequency limit between instances", async () => {
    const organization = await newOrganization({ frequencyLimit: { count: 5, windowSeconds: 3600 } });
    const requests = Array.from({ length: 12 }, (_, i) => ({ points: 100 as Bundle, reference: `freq-${i}` }));
    const results = await race(organization, requests);

    const limited = results.filter(
      (result) => result instanceof PointsError && result.code === "frequency_limit_reached",
    );
    expect(limited).toHaveLength(7);
    expect((await ledgerOf(organization.id)).charges).toBe(5);
  });

  it("lets exactly one of a live retry and the reconciler take over a run-out lease", async () => {
    const organization = await newOrganization();
    const request = { points: 100 as Bundle, reference: "takeover" };
    const quiet = (run: () => Promise<unknown>) => quietly(run);
    // The first attempt learns nothing (timed out before executing) and its lease runs out.
    await quiet(() =>
      purchasePoints(withProvider(first, faultyProvider(first.provider, ["throw_before_execute"])), {
        organization,
        request,
        source: "api",
      }),
    );
    const [stored] = await first.db.select().from(topUps).where(eq(topUps.organizationId, organization.id));
    if (!stored) throw new Error("no top-up");
    first.clock.advance(DEFAULT_LEASE_MS + 1000);

    let providerCalls = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const counting = patchProvider(second.provider, {
      charge: async (charge) => {
        providerCalls += 1;
        await gate;
        return second.provider.charge(charge);
      },
    });
    let reconciler: Promise<PurchaseResult | null> | undefined;

    // The retry has seen the run-out lease; before it takes it, the reconciler (on the other
    // instance) takes it and starts charging.
    const retry = await purchasePoints(
      { ...first, provider: counting },
      { organization, request, source: "api" },
      {
        beforeTakeover: async () => {
          reconciler = resolveTopUp({ ...second, provider: counting }, stored.id);
          for (let i = 0; i < 200; i += 1) {
            const [row] = await second.db.select().from(topUps).where(eq(topUps.id, stored.id));
            if (row?.lockToken && row.lockToken !== stored.lockToken) return;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          throw new Error("the reconciler never took the lease");
        },
      },
    );
    expect(retry.outcome).toBe("purchase_in_progress");
    release();
    expect((await reconciler)?.outcome).toBe("paid_now");
    expect(providerCalls).toBe(1);
    expect(await ledgerOf(organization.id)).toMatchObject({ charges: 1, credits: 1, balance: 100 });
  });
});
