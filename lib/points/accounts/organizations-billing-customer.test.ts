import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organizations } from "@/lib/db/schema";
import {
  backendsAndProviders,
  expectThrown,
  type ProviderTestContext,
  patchProvider,
  withProvider,
} from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { ProvisioningError } from "../errors";
import type { Services } from "../services";
import { createOrganization, listProvisionedPaymentMethods } from "./organizations";

/*
 * One billing customer backs one organisation: linking a customer that already has one would let
 * the new organisation's key list, and buy on, the other's cards. On both providers, as
 * `org create --stripe-customer` is for Stripe and the rule is the service's own.
 */
describe.each(backendsAndProviders())("linking a billing customer on %s with the %s provider", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  /** ctx's provider, recording each call that would change something at the provider. */
  function recordingChanges(): { services: Services; changes: string[] } {
    const changes: string[] = [];
    const inner = ctx.provider;
    const services = withProvider(
      ctx,
      patchProvider(inner, {
        createCustomer: (input) => {
          changes.push("createCustomer");
          return inner.createCustomer(input);
        },
        addCards: (input) => {
          changes.push("addCards");
          return inner.addCards(input);
        },
        setDefaultPaymentMethod: (customerId, paymentMethodId) => {
          changes.push("setDefaultPaymentMethod");
          return inner.setDefaultPaymentMethod(customerId, paymentMethodId);
        },
      }),
    );
    return { services, changes };
  }

  async function organizationsOf(customerId: string) {
    return ctx.db.select().from(organizations).where(eq(organizations.billingCustomerId, customerId));
  }

  it("refuses a customer another organisation already has, naming the customer only, before the provider changes anything", async () => {
    const owner = await createOrganization(ctx, { name: "Customer Owner Ltd", cards: ["visa"], defaultCardIndex: 0 });
    track(owner.organization.id);
    const customerId = owner.organization.billingCustomerId;
    const cardsBefore = await listProvisionedPaymentMethods(ctx, owner.organization);
    const [counted] = await ctx.db.select({ n: sql<number>`count(*)::int` }).from(organizations);
    const { services, changes } = recordingChanges();

    const error = await expectThrown(ProvisioningError, () =>
      createOrganization(services, {
        name: "Second Claimant",
        billingCustomerId: customerId,
        cards: ["mastercard"],
        defaultCardIndex: 0,
      }),
    );
    expect(error.reason).toBe("billing_customer_taken");
    expect(error.message).toContain(customerId);
    expect(error.message).toContain("already linked");
    // Nothing of the other organisation beyond the fact that it exists.
    expect(error.message).not.toContain(owner.organization.id);
    expect(error.message).not.toContain("Customer Owner");
    expect(changes).toEqual([]);
    expect(await listProvisionedPaymentMethods(ctx, owner.organization)).toEqual(cardsBefore);
    expect((await organizationsOf(customerId)).map((row) => row.id)).toEqual([owner.organization.id]);
    const [after] = await ctx.db.select({ n: sql<number>`count(*)::int` }).from(organizations);
    expect(after?.n).toBe(counted?.n);
  });

  it("ends a race between two creates linking one customer in the same refusal for the loser", async () => {
    const customerId = await ctx.provider.createCustomer({ organizationId: "org_race_customer", name: "Race" });
    // Both creates pass the early check before either inserts: each waits at its first provider
    // change for the other (or for a moment), before its transaction.
    let arrived = 0;
    let release = () => {};
    const bothArrived = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inner = ctx.provider;
    const services = withProvider(
      ctx,
      patchProvider(inner, {
        addCards: async (input) => {
          if (++arrived === 2) release();
          await Promise.race([bothArrived, new Promise((resolve) => setTimeout(resolve, 500))]);
          return inner.addCards(input);
        },
      }),
    );
    const attempts = await Promise.allSettled(
      ["Racer One", "Racer Two"].map((name) =>
        createOrganization(services, { name, billingCustomerId: customerId, cards: ["visa"] }),
      ),
    );
    const won = attempts.flatMap((attempt) => (attempt.status === "fulfilled" ? [attempt.value] : []));
    const lost = attempts.flatMap((attempt) => (attempt.status === "rejected" ? [attempt.reason as unknown] : []));
    expect(won).toHaveLength(1);
    for (const created of won) track(created.organization.id);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toBeInstanceOf(ProvisioningError);
    expect(lost[0]).toMatchObject({ reason: "billing_customer_taken" });
    expect((lost[0] as Error).message).toContain(customerId);
    expect((await organizationsOf(customerId)).map((row) => row.id)).toEqual(
      won.map((created) => created.organization.id),
    );
  });
});
