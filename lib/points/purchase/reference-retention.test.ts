import { describe, expect, it } from "vitest";
import { organizationWith } from "@/lib/testing/after-payment";
import { backendsAndProviders, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { getOrganization } from "../accounts/organizations";
import { parseTopUpListQuery } from "../api/top-up-list";
import { getTopUpOrThrow, listTopUpsPage } from "../views/top-up-list";
import { purchasePoints } from "./";

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(backendsAndProviders())(
  "A reference is kept for the life of the organisation (%s, %s provider)",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });

    it("a paid and a failed purchase replayed 31 days later give their stored outcome and charge nothing", async () => {
      const made = await organizationWith(ctx, ["visa", "declined"], track);
      const customerId = made.organization.billingCustomerId ?? "";
      const [visa, declined] = made.paymentMethods.map((method) => method.id);
      const paidRequest = {
        points: 250 as const,
        currency: "USD" as const,
        paymentSourceId: visa,
        reference: "order-kept-paid",
      };
      const failedRequest = {
        points: 100 as const,
        currency: "USD" as const,
        paymentSourceId: declined,
        reference: "order-kept-failed",
      };
      const buy = async (request: typeof paidRequest | typeof failedRequest) => {
        // Read fresh, as the REST layer does on every request.
        const organization = await getOrganization(ctx.db, made.organization.id);
        if (!organization) throw new Error("the organisation is gone");
        return purchasePoints(ctx, { organization, request, source: "api" });
      };

      const paid = await buy(paidRequest);
      const failed = await buy(failedRequest);
      expect(paid).toMatchObject({ outcome: "paid_now", replayed: false, pointsBalance: 250 });
      expect(failed).toMatchObject({ outcome: "failed", replayed: false });
      const paymentsBefore = await ctx.probe.countPayments(customerId);
      const chargesBefore = ctx.probe.chargeRequests(customerId).length;

      // Past any provider's idempotency window (Stripe keeps keys 24 hours): only the service remembers.
      ctx.clock.advance(31 * DAY_MS);

      const paidAgain = await buy(paidRequest);
      const failedAgain = await buy(failedRequest);
      expect(paidAgain).toMatchObject({ outcome: "paid", replayed: true, pointsBalance: 250 });
      expect(paidAgain.topUp).toEqual(paid.topUp);
      expect(failedAgain).toMatchObject({ outcome: "failed", replayed: true, pointsBalance: 250 });
      expect(failedAgain.topUp.id).toBe(failed.topUp.id);
      expect(failedAgain.topUp.failureCode).toBe(failed.topUp.failureCode);
      expect(await ctx.probe.countPayments(customerId)).toBe(paymentsBefore);
      expect(ctx.probe.chargeRequests(customerId)).toHaveLength(chargesBefore);

      // Looking it up a month later: by its ID, and by its reference in the list.
      expect(await getTopUpOrThrow(ctx.db, made.organization.id, paid.topUp.id)).toEqual(paid.topUp);
      for (const [reference, topUp] of [
        ["order-kept-paid", paid.topUp],
        ["order-kept-failed", failed.topUp],
      ] as const) {
        const query = parseTopUpListQuery(new URLSearchParams({ reference }));
        const page = await listTopUpsPage(ctx.db, made.organization.id, query);
        expect(page.hasMore).toBe(false);
        expect(page.topUps.map((found) => [found.id, found.status, found.reference])).toEqual([
          [topUp.id, topUp.status, reference],
        ]);
      }
    });
  },
);
