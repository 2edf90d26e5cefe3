import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import type { BillingProvider, ChargeOutcome } from "@/lib/billing/provider";
import type { Bundle } from "@/lib/catalog";
import { topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import {
  backendsAndProviders,
  faultyProvider,
  type ProviderTestContext,
  patchProvider,
  withProvider,
} from "@/lib/testing/harness";
import { ledgerState, serviceSuite } from "@/lib/testing/invariants";
import { createOrganization, getOrganization, type OrganizationSettings } from "../accounts/organizations";
import type { Services } from "../services";
import { listPurchasesNeedingAttention } from "../views/attention";
import {
  AWAITING_PAYMENT_EXPIRES_MS,
  assertLeaseCoversProvider,
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  DEFAULT_LEASE_MS,
  keyResendWindowMs,
  minimumLeaseMs,
  type PurchaseResult,
  purchasePoints,
  reconcileTopUps,
  resolveTopUp,
} from "./";

const HOUR_MS = 60 * 60 * 1000;

/*
 * What a real provider does: authentication finished on the provider's page, idempotency keys
 * forgotten after 24 hours, answers slower than the lease, calls that hang, listings that fail.
 * On both providers (the Stripe test server forgets keys and hosts the 3-D Secure page as Stripe
 * does); each case ends with one charge at most and the books balanced.
 */
describe.each(backendsAndProviders())(
  "recovery with a real provider's behaviours (%s, %s provider)",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });
    const ledgerOf = (organizationId: string) => ledgerState(ctx.db, organizationId, ctx.probe);

    async function setup(cards: string[] = ["visa"], settings: OrganizationSettings = {}) {
      const result = await createOrganization(ctx, {
        name: `Provider ${randomString(4)}`,
        settings: { currency: "USD", apiPurchasesEnabled: true, ...settings },
        cards,
        defaultCardIndex: 0,
      });
      track(result.organization.id);
      const organizationId = result.organization.id;
      const buy = async (
        request: { points?: Bundle; reference?: string; paymentSourceId?: string } = {},
        services: Services = ctx,
      ): Promise<PurchaseResult> => {
        const organization = await getOrganization(ctx.db, organizationId);
        if (!organization) throw new Error("organisation vanished");
        return purchasePoints(services, {
          organization,
          request: {
            points: request.points ?? 100,
            reference: request.reference ?? "ref-1",
            paymentSourceId: request.paymentSourceId,
          },
          source: "api",
        });
      };
      const row = async (reference = "ref-1") => {
        const [found] = await ctx.db
          .select()
          .from(topUps)
          .where(and(eq(topUps.organizationId, organizationId), eq(topUps.reference, reference)));
        if (!found) throw new Error(`no top-up ${reference}`);
        return found;
      };
      /** The reconciler's run, as far as this organisation's purchases go (other tests leave theirs). */
      const reconcile = async (services: Services = ctx, options: Parameters<typeof reconcileTopUps>[1] = {}) =>
        (await reconcileTopUps(services, options)).filter((result) => result.topUp.organizationId === organizationId);
      return {
        ...result,
        organizationId,
        buy,
        row,
        reconcile,
        cardIds: result.paymentMethods.map((method) => method.id),
      };
    }

    /** Console noise from the expected "outcome unknown" warnings is kept out of the test output. */
    function quietly<T>(run: () => Promise<T>): Promise<T> {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      return run().finally(() => warn.mockRestore());
    }

    describe("1. a purchase awaiting payment is reconciled", () => {
      it.each([
        [true, "paid", 1],
        [false, "failed", 0],
      ] as const)(
        "authentication finished on the provider's page (succeeded: %s) is settled by the reconciler, credited once",
        async (succeed, status, credits) => {
          const { organizationId, buy, row, reconcile } = await setup(["authentication_required"]);
          expect((await buy()).outcome).toBe("awaiting_payment");
          const { providerPaymentId } = await row();
          if (!providerPaymentId) throw new Error("no payment id");
          await ctx.probe.completeAuthentication(providerPaymentId, succeed);

          expect(await reconcile(ctx, { minAgeMs: 60_000 })).toEqual([]); // Too fresh to look at yet.
          ctx.clock.advance(BACKOFF_BASE_MS + 1000);
          const settled = await reconcile(ctx, { minAgeMs: 60_000 });
          expect(settled.map((result) => result.topUp.status)).toEqual([status]);
          expect(await reconcile()).toEqual([]);
          expect(await ledgerOf(organizationId)).toMatchObject({ charges: 1, credits });
        },
      );
    });

    describe("2. a charge is never re-sent under a key the provider may have forgotten", () => {
      it("finds the payment by the purchase's id after 23 hours instead of charging again", async () => {
        const { organizationId, buy, row } = await setup();
        const first = await quietly(() =>
          buy({}, withProvider(ctx, faultyProvider(ctx.provider, ["execute_then_throw"]))),
        );
        expect(first.outcome).toBe("unresolved");
        expect((await row()).providerPaymentId).toBeNull();

        ctx.clock.advance(25 * HOUR_MS); // The provider has forgotten the key: a re-send would charge again.
        const sent = ctx.probe.chargeRequests().length;
        const retried = await buy();
        expect(retried.outcome).toBe("paid_now");
        expect(ctx.probe.chargeRequests()).toHaveLength(sent);
        expect(await ledgerOf(organizationId)).toMatchObject({ charges: 1, credits: 1, balance: 100 });
      });

      it("sends a charge under a new key, recorded first, only when no payment exists", async () => {
        const { organizationId, buy, row } = await setup();
        await quietly(() => buy({}, withProvider(ctx, faultyProvider(ctx.provider, ["throw_before_execute"]))));
        const originalKey = (await row()).providerIdempotencyKey;
        ctx.clock.advance(keyResendWindowMs(ctx.provider) + 1000);

        const keysSent: string[] = [];
        const watching = patchProvider(ctx.provider, {
          charge: async (request) => {
            // The new key is in the database before the charge leaves.
            expect((await row()).providerIdempotencyKey).toBe(request.idempotencyKey);
            keysSent.push(request.idempotencyKey);
            return ctx.provider.charge(request);
          },
        });
        expect((await buy({}, withProvider(ctx, watching))).outcome).toBe("paid_now");
        expect(keysSent).toHaveLength(1);
        expect(keysSent[0]).not.toBe(originalKey);
        expect(await ledgerOf(organizationId)).toMatchObject({ charges: 1, credits: 1 });
      });

      it("sends nothing when the provider cannot say whether a payment exists", async () => {
        const { organizationId, buy } = await setup();
        await quietly(() => buy({}, withProvider(ctx, faultyProvider(ctx.provider, ["throw_before_execute"]))));
        ctx.clock.advance(keyResendWindowMs(ctx.provider) + 1000);
        let chargesSent = 0;
        const blind = patchProvider(ctx.provider, {
          findPayment: async () => {
            throw new Error("search timed out (injected)");
          },
          charge: async (request) => {
            chargesSent += 1;
            return ctx.provider.charge(request);
          },
        });
        const retried = await quietly(() => buy({}, withProvider(ctx, blind)));
        expect(retried.outcome).toBe("unresolved");
        expect(chargesSent).toBe(0);
        expect(await ledgerOf(organizationId)).toMatchObject({ charges: 0, credits: 0 });
        expect((await buy()).outcome).toBe("paid_now");
      });
    });

    describe("3. a provider's terminal answer is never thrown away", () => {
      it("records a slow charge's success after its lease ran out and another attempt learned nothing", async () => {
        const { organizationId, buy, row } = await setup();
        const unknown = patchProvider(ctx.provider, {
          charge: async () => {
            throw new Error("timed out (injected)");
          },
        });
        const slow = patchProvider(ctx.provider, {
          charge: async (request) => {
            // While this charge is on the wire its lease runs out, and the reconciler takes the
            // purchase over, asks, learns nothing, and lets go.
            ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
            const takeover = await quietly(async () => resolveTopUp(withProvider(ctx, unknown), (await row()).id));
            expect(takeover?.topUp.status).toBe("processing");
            return ctx.provider.charge(request);
          },
        });
        const result = await buy({}, withProvider(ctx, slow));
        expect(result.topUp.status).toBe("paid");
        expect((await row()).providerPaymentId).not.toBeNull();
        expect(await ledgerOf(organizationId)).toMatchObject({ charges: 1, credits: 1, balance: 100 });
      });
    });

    describe("5. provider time is bounded", () => {
      it("answers unresolved when a charge hangs past the provider's budget, and a retry settles it", async () => {
        const { organizationId, buy } = await setup();
        const hanging = patchProvider(ctx.provider, {
          callBudgetMs: 50,
          charge: () => new Promise<ChargeOutcome>(() => {}),
        });
        const first = await quietly(() => buy({}, withProvider(ctx, hanging)));
        expect(first.outcome).toBe("unresolved");
        expect(first.topUp.lockedUntil).toBeNull();
        expect((await buy()).outcome).toBe("paid_now");
        expect(await ledgerOf(organizationId)).toMatchObject({ charges: 1, credits: 1 });
      });

      it("refuses a lease that a settlement's provider calls could outlive", () => {
        const provider: Pick<BillingProvider, "name" | "callBudgetMs"> = { name: "stripe", callBudgetMs: 32_000 };
        expect(() => assertLeaseCoversProvider(60_000, provider)).toThrow(/POINTS_LEASE_SECONDS=60 .*at least 69/);
        expect(() => assertLeaseCoversProvider(DEFAULT_LEASE_MS, provider)).not.toThrow();
        expect(minimumLeaseMs(ctx.provider)).toBeLessThanOrEqual(DEFAULT_LEASE_MS);
      });
    });

    describe("6. unknown outcomes back off and surface", () => {
      it("backs off a stuck purchase so that it cannot starve the others", async () => {
        const { organizationId, buy, row } = await setup();
        const stuckProvider = patchProvider(ctx.provider, {
          charge: async (request) => {
            if (request.metadata.reference.startsWith("stuck")) throw new Error("connection reset (injected)");
            return ctx.provider.charge(request);
          },
        });
        const services = withProvider(ctx, stuckProvider);
        await quietly(async () => {
          for (const reference of ["stuck-1", "stuck-2", "stuck-3"]) {
            await buy({ reference }, services);
            ctx.clock.advance(1000); // Distinct ages: the reconciler takes the oldest first.
          }
          await buy(
            { reference: "healthy" },
            withProvider(ctx, faultyProvider(ctx.provider, ["throw_before_execute"])),
          );
        });

        const delays: number[] = [];
        for (let run = 0; run < 4; run += 1) {
          ctx.clock.advance(BACKOFF_BASE_MS + 1000);
          await quietly(() => reconcileTopUps(services, { limit: 2 }));
          const stuck = await row("stuck-1");
          delays.push((stuck.nextAttemptAt?.getTime() ?? 0) - ctx.clock.now().getTime());
          if ((await row("healthy")).status === "paid") break;
        }
        // The healthy purchase got its turn although the stuck ones are older and never settle.
        expect((await row("healthy")).status).toBe("paid");
        expect((await row("stuck-1")).status).toBe("processing");
        expect(delays.every((delay) => delay <= BACKOFF_CAP_MS)).toBe(true);
        expect(await ledgerOf(organizationId)).toMatchObject({ charges: 1, credits: 1 });
      });

      it("doubles the wait after each unknown answer, up to the cap", async () => {
        const { buy, row } = await setup();
        const down = patchProvider(ctx.provider, {
          charge: async () => {
            throw new Error("503 (injected)");
          },
        });
        const services = withProvider(ctx, down);
        await quietly(() => buy({}, services));
        const waits: number[] = [];
        for (let run = 0; run < 8; run += 1) {
          const before = await row();
          ctx.clock.advance((before.nextAttemptAt?.getTime() ?? 0) - ctx.clock.now().getTime() + 1);
          await quietly(() => reconcileTopUps(services));
          const after = await row();
          waits.push((after.nextAttemptAt?.getTime() ?? 0) - ctx.clock.now().getTime());
        }
        expect(waits.slice(0, 3)).toEqual([2, 4, 8].map((factor) => factor * BACKOFF_BASE_MS));
        expect(waits.at(-1)).toBe(BACKOFF_CAP_MS);
      });

      it("lists a purchase unresolved for more than an hour as needing attention", async () => {
        const { buy } = await setup();
        const down = patchProvider(ctx.provider, {
          charge: async () => {
            throw new Error("503 (injected)");
          },
        });
        await quietly(() => buy({ reference: "slow-bank" }, withProvider(ctx, down)));
        const flagged = () =>
          listPurchasesNeedingAttention(ctx.db, ctx.clock.now()).then((rows) =>
            rows.filter((topUp) => topUp.reference === "slow-bank").map((topUp) => topUp.status),
          );
        expect(await flagged()).toEqual([]);
        ctx.clock.advance(HOUR_MS + 1000);
        expect(await flagged()).toEqual(["processing"]);
        await buy({ reference: "slow-bank" });
        expect(await flagged()).toEqual([]);
      });
    });

    describe("7. awaiting payment expires", () => {
      it("cancels a purchase still awaiting the cardholder after 23 hours, and it stops counting toward limits", async () => {
        const { organizationId, buy, row, reconcile, cardIds } = await setup(["authentication_required", "visa"], {
          dailyPointsLimit: 100,
          maxPointsBalance: 100,
        });
        expect((await buy()).outcome).toBe("awaiting_payment");
        // While it awaits the cardholder it holds the day's and the balance's room.
        await expect(buy({ reference: "other", paymentSourceId: cardIds[1] })).rejects.toMatchObject({
          code: "limit_exceeded",
        });

        ctx.clock.advance(AWAITING_PAYMENT_EXPIRES_MS + 1000);
        const settled = await reconcile();
        expect(settled.map((result) => [result.topUp.status, result.topUp.failureCode])).toEqual([
          ["failed", "authentication_expired"],
        ]);
        const { providerPaymentId } = await row();
        // Cancelled at the provider: it can no longer be completed.
        expect((await ctx.probe.payment(providerPaymentId ?? ""))?.state).toBe("canceled");

        expect((await buy({ reference: "other", paymentSourceId: cardIds[1] })).outcome).toBe("paid_now");
        expect(await ledgerOf(organizationId)).toMatchObject({ charges: 2, credits: 1, balance: 100 });
      });

      it("pays a purchase whose cardholder finished just before it would have expired", async () => {
        const { organizationId, buy, row } = await setup(["authentication_required"]);
        await buy();
        ctx.clock.advance(AWAITING_PAYMENT_EXPIRES_MS + 1000);
        await ctx.probe.completeAuthentication((await row()).providerPaymentId ?? "", true);
        expect((await buy()).outcome).toBe("paid_now");
        expect(await ledgerOf(organizationId)).toMatchObject({ charges: 1, credits: 1 });
      });
    });

    describe("8. retries do not depend on the listing", () => {
      it("answers a retry from the stored purchase while the provider cannot list payment methods", async () => {
        const { buy, cardIds, organization } = await setup();
        expect((await buy()).outcome).toBe("paid_now");
        await ctx.probe.setOutage(organization.billingCustomerId, true);
        try {
          const replay = await buy();
          expect([replay.outcome, replay.replayed]).toEqual(["paid", true]);
          expect((await buy({ paymentSourceId: cardIds[0] })).outcome).toBe("paid");
          // A request that is not that retry still needs the listing: 502 as before.
          await expect(buy({ reference: "new-one" })).rejects.toMatchObject({ code: "payment_methods_unavailable" });
        } finally {
          await ctx.probe.setOutage(organization.billingCustomerId, false);
        }
      });

      it("resolves a stored purchase through its payment after its card was removed", async () => {
        const { organizationId, organization, buy, row, cardIds } = await setup(["authentication_required"]);
        const cardId = cardIds[0] ?? "";
        expect((await buy({ paymentSourceId: cardId })).outcome).toBe("awaiting_payment");
        await ctx.probe.completeAuthentication((await row()).providerPaymentId ?? "", true);
        await ctx.probe.detachCard(organization.billingCustomerId, cardId);

        expect((await buy({ paymentSourceId: cardId })).outcome).toBe("paid_now");
        expect((await buy()).outcome).toBe("paid"); // Omitted method, no card left: still the stored purchase.
        expect(await ledgerOf(organizationId)).toMatchObject({ charges: 1, credits: 1 });
      });
    });
  },
);
