import { eq } from "drizzle-orm";
import { expect } from "vitest";
import type { ReceivedBillingEvent } from "@/lib/billing/provider";
import type { Bundle } from "@/lib/catalog";
import { organizations, refunds, type TopUp, topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { handleBillingEvent } from "@/lib/points/intake/billing-events";
import { purchasePoints } from "@/lib/points/purchase";
import type { Services } from "@/lib/points/services";
import type { ProviderTestContext } from "@/lib/testing/harness";

/*
 * What the refund and dispute suites share: an organisation buying on chosen test cards, and the
 * provider's events handed to the service as its webhook would hand them.
 */

export async function organizationWith(ctx: ProviderTestContext, cards: string[], track: (id: string) => void) {
  const { organization, paymentMethods } = await createOrganization(ctx, {
    name: `After ${randomString(4)}`,
    settings: { currency: "USD", apiPurchasesEnabled: true },
    cards,
    defaultCardIndex: 0,
  });
  track(organization.id);
  return { organization, paymentMethods };
}

/** A paid purchase of `points` on the card at `cardIndex`. */
export async function paidPurchase(
  services: Services,
  made: Awaited<ReturnType<typeof organizationWith>>,
  points: Bundle,
  cardIndex = 0,
): Promise<TopUp> {
  const paymentSourceId = made.paymentMethods[cardIndex]?.id;
  const result = await purchasePoints(services, {
    organization: made.organization,
    request: { points, reference: `after-${randomString(8)}`, paymentSourceId },
    source: "api",
  });
  expect(result.topUp.status).toBe("paid");
  return result.topUp;
}

/** Hands every event the provider has sent since the last take to the service, in order; returns them. */
export async function deliverEvents(
  ctx: ProviderTestContext,
  services: Services = ctx,
): Promise<ReceivedBillingEvent[]> {
  const events = await ctx.probe.takeEvents();
  for (const event of events) await handleBillingEvent(services, event);
  return events;
}

export async function balances(services: Services, organizationId: string) {
  const [org] = await services.db.select().from(organizations).where(eq(organizations.id, organizationId));
  return { balance: org?.pointsBalance, held: org?.heldPoints };
}

export async function topUpNow(services: Services, id: string): Promise<TopUp> {
  const [row] = await services.db.select().from(topUps).where(eq(topUps.id, id));
  if (!row) throw new Error(`No top-up ${id}`);
  return row;
}

export async function refundRows(services: Services, topUpId: string) {
  return services.db.select().from(refunds).where(eq(refunds.topUpId, topUpId));
}

/** Runs `run` with the logger silenced: the warnings it logs are expected. */
export { quietly } from "./observability";
