import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { purchasePoints } from "@/lib/points/purchase";
import { openInstance, type ProviderTestContext, providers } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { startReceiver } from "@/lib/testing/webhook-receiver";
import { addEndpoint } from "./endpoints";
import { WebhookSender } from "./sender";

/*
 * Two senders here are two independent pools on one Postgres, as two app instances would be:
 * only a real server shows whether their claims (FOR UPDATE SKIP LOCKED) keep them apart.
 */
describe.each(providers())("Webhook senders on two instances (postgres, %s provider)", (provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite("postgres", provider, (made) => {
    ctx = made;
  });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it("never send one delivery twice, and the receiver finds every sequence once", async () => {
    const { organization } = await createOrganization(ctx, {
      name: `Two senders ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    track(organization.id);
    const { endpoint, secret } = await addEndpoint(ctx, organization.id, { url: receiver.url, allowPrivate: true });
    for (let index = 0; index < 20; index++) {
      await purchasePoints(ctx, { organization, request: { points: 100, reference: `two-${index}` }, source: "api" });
    }
    const second = await openInstance(ctx);
    try {
      const options = { allowPrivate: true, perEndpoint: 20, capacity: 5 };
      await Promise.all([new WebhookSender(ctx, options).drain(), new WebhookSender(second, options).drain()]);
    } finally {
      await second.close();
    }
    const sequences = receiver.verified(secret).map((event) => event.sequence);
    expect(sequences.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    const rows = await ctx.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.status, "delivered")));
    expect(rows.map((row) => row.attempts)).toEqual(Array(20).fill(1));
  });
});
