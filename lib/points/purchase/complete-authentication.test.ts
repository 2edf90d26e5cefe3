import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { backendsAndProviders, type ProviderTestContext } from "@/lib/testing/harness";
import { ledgerState, serviceSuite } from "@/lib/testing/invariants";
import { createOrganization } from "../accounts/organizations";
import { purchasePoints } from "./";
import { settleOnReturn } from "./complete-authentication";

/*
 * The cardholder comes back from the provider's authentication page while the provider's webhook
 * is settling the same purchase: the page must show the outcome, not "awaiting payment".
 */
describe.each(backendsAndProviders())(
  "back from the provider's authentication page (%s, %s provider)",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });

    /** A purchase awaiting the cardholder, who has just completed authentication at the provider. */
    async function authenticatedPurchase() {
      const { organization } = await createOrganization(ctx, {
        name: `Return ${randomString(4)}`,
        settings: { currency: "USD", apiPurchasesEnabled: true },
        cards: ["authentication_required"],
        defaultCardIndex: 0,
      });
      track(organization.id);
      const result = await purchasePoints(ctx, {
        organization,
        request: { points: 250, reference: "back" },
        source: "dashboard",
      });
      expect(result.outcome).toBe("awaiting_payment");
      await ctx.probe.completeAuthentication(result.topUp.providerPaymentId ?? "", true);
      return { organization, topUp: result.topUp };
    }

    const hold = (topUpId: string) =>
      ctx.db
        .update(topUps)
        .set({ lockToken: "webhook", lockedUntil: new Date(ctx.clock.now().getTime() + 60_000) })
        .where(eq(topUps.id, topUpId));
    const statusOf = async (topUpId: string) =>
      (await ctx.db.select().from(topUps).where(eq(topUps.id, topUpId)))[0]?.status;

    it("waits for the webhook holding the purchase, and shows it paid, credited once", async () => {
      const { organization, topUp } = await authenticatedPurchase();
      await hold(topUp.id);
      // The webhook lets go a moment later without having recorded anything (it lost its answer).
      const released = new Promise<void>((resolve) =>
        setTimeout(() => {
          void ctx.db
            .update(topUps)
            .set({ lockToken: null, lockedUntil: null })
            .where(eq(topUps.id, topUp.id))
            .then(() => resolve());
        }, 300),
      );
      await settleOnReturn(ctx, { organizationId: organization.id, topUpId: topUp.id, waitMs: 5_000 });
      await released;
      expect(await statusOf(topUp.id)).toBe("paid");
      expect(await ledgerState(ctx.db, organization.id, ctx.probe)).toMatchObject({ credits: 1, balance: 250 });
    });

    it("waits no longer than its bound, and leaves a purchase still held to its holder", async () => {
      const { organization, topUp } = await authenticatedPurchase();
      await hold(topUp.id);
      const started = Date.now();
      await settleOnReturn(ctx, { organizationId: organization.id, topUpId: topUp.id, waitMs: 300 });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await statusOf(topUp.id)).toBe("awaiting_payment");
      await ctx.db.update(topUps).set({ lockToken: null, lockedUntil: null }).where(eq(topUps.id, topUp.id));
    });

    it("settles nothing of another organisation's", async () => {
      const { topUp } = await authenticatedPurchase();
      const { organization: other } = await createOrganization(ctx, {
        name: `Other ${randomString(4)}`,
        settings: {},
        cards: [],
      });
      track(other.id);
      await settleOnReturn(ctx, { organizationId: other.id, topUpId: topUp.id });
      expect(await statusOf(topUp.id)).toBe("awaiting_payment");
    });
  },
);
