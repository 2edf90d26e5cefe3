import { and, eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "@/lib/clock";
import { topUps } from "@/lib/db/schema";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { purchasePoints } from "@/lib/points/purchase";
import type { Services } from "@/lib/points/services";
import { createTestContext, startStripeTestProvider, type TestContext } from "@/lib/testing/harness";
import { ledgerState } from "@/lib/testing/invariants";
import { type StripeWebhookEndpoint, startStripeWebhookEndpoint } from "@/lib/testing/stripe-webhooks";
import { StripeBillingProvider } from "./provider";
import { verifyStripeWebhook, WEBHOOK_TOLERANCE_SECONDS, WebhookRefusal } from "./webhook";

const SECRET = "whsec_test_suite_secret_value";
const stripe = new Stripe("sk_test_unused");

function signedRequest(payload: string, header?: string | null): Request {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (header !== null)
    headers["Stripe-Signature"] = header ?? stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
  return new Request("http://127.0.0.1/api/stripe/webhook", { method: "POST", body: payload, headers });
}

async function refusal(run: () => Promise<unknown>): Promise<WebhookRefusal> {
  try {
    await run();
  } catch (error) {
    if (error instanceof WebhookRefusal) return error;
    throw error;
  }
  throw new Error("The delivery was accepted.");
}

describe("verifying a webhook delivery", () => {
  const payload = JSON.stringify({
    id: "evt_1",
    object: "event",
    type: "payment_intent.succeeded",
    data: { object: {} },
  });
  const now = new Date();

  it("accepts an event signed with the endpoint's secret", async () => {
    const event = await verifyStripeWebhook(stripe, signedRequest(payload), SECRET, now);
    expect(event.id).toBe("evt_1");
  });

  it("refuses unsigned, forged, stale and oversized deliveries, and every delivery without a secret", async () => {
    expect((await refusal(() => verifyStripeWebhook(stripe, signedRequest(payload, null), SECRET, now))).status).toBe(
      400,
    );
    const forged = stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_someone_else" });
    const forgedRefusal = await refusal(() => verifyStripeWebhook(stripe, signedRequest(payload, forged), SECRET, now));
    expect([forgedRefusal.status, forgedRefusal.message]).toEqual([400, "The event's signature is not valid."]);
    const tampered = signedRequest(
      payload.replace("evt_1", "evt_2"),
      stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }),
    );
    expect((await refusal(() => verifyStripeWebhook(stripe, tampered, SECRET, now))).status).toBe(400);
    const old = Math.floor(now.getTime() / 1000) - WEBHOOK_TOLERANCE_SECONDS - 60;
    const stale = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: old });
    expect((await refusal(() => verifyStripeWebhook(stripe, signedRequest(payload, stale), SECRET, now))).status).toBe(
      400,
    );
    const huge = JSON.stringify({ id: "evt_big", padding: "x".repeat(600 * 1024) });
    expect((await refusal(() => verifyStripeWebhook(stripe, signedRequest(huge), SECRET, now))).status).toBe(413);
    expect((await refusal(() => verifyStripeWebhook(stripe, signedRequest(payload), undefined, now))).message).toMatch(
      /STRIPE_WEBHOOK_SECRET is not set/,
    );
  });

  it("accepts, while a secret is rotated, a delivery signed with any secret listed, and still refuses others", async () => {
    const rotating = `whsec_the_new_one, ${SECRET}`;
    expect((await verifyStripeWebhook(stripe, signedRequest(payload), rotating, now)).id).toBe("evt_1");
    const byNew = stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_the_new_one" });
    expect((await verifyStripeWebhook(stripe, signedRequest(payload, byNew), rotating, now)).id).toBe("evt_1");
    const forged = stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_someone_else" });
    expect(
      (await refusal(() => verifyStripeWebhook(stripe, signedRequest(payload, forged), rotating, now))).status,
    ).toBe(400);
    // Once the old secret is dropped, its deliveries are refused.
    expect(
      (await refusal(() => verifyStripeWebhook(stripe, signedRequest(payload), "whsec_the_new_one", now))).status,
    ).toBe(400);
    expect((await refusal(() => verifyStripeWebhook(stripe, signedRequest(payload), " , ", now))).message).toMatch(
      /not set/,
    );
  });

  it("stops reading a body without a Content-Length at 512 KiB, and refuses it with 413", async () => {
    let sent = 0;
    const megabyte = new Uint8Array(1024 * 1024).fill(120);
    // 64 MiB on offer, in 1 MiB chunks, with no Content-Length (as a chunked upload arrives).
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 64 * megabyte.byteLength) return controller.close();
        sent += megabyte.byteLength;
        controller.enqueue(megabyte);
      },
    });
    const request = new Request("http://127.0.0.1/api/stripe/webhook", {
      method: "POST",
      body,
      headers: { "Stripe-Signature": "t=1,v1=00" },
      duplex: "half",
    } as RequestInit);
    expect(request.headers.get("content-length")).toBeNull();
    const refused = await refusal(() => verifyStripeWebhook(stripe, request, SECRET, now));
    expect(refused.status).toBe(413);
    // What was read stops near the cap: a few chunks in flight, not the whole body.
    expect(sent).toBeLessThanOrEqual(4 * megabyte.byteLength);
  });

  it("acknowledges a signed event of no usable shape as ignored, saying why, instead of failing", async () => {
    const provider = new StripeBillingProvider(stripe, systemClock, false, SECRET);
    const shapes: [string, string][] = [
      ["[1, 2]", "the event is not a JSON object"],
      ['{"object": "event", "type": "payment_intent.succeeded"}', "the event has no id"],
      [
        '{"id": "evt_nodata", "type": "payment_intent.succeeded"}',
        "event evt_nodata (payment_intent.succeeded) has no data.object",
      ],
      [
        '{"id": "evt_null", "type": "payment_intent.succeeded", "data": {"object": null}}',
        "event evt_null (payment_intent.succeeded) has no data.object",
      ],
    ];
    for (const [body, reason] of shapes) {
      expect(await provider.verifyWebhook(signedRequest(body), now)).toEqual({ kind: "ignored", reason });
    }
    expect(await provider.verifyWebhook(signedRequest(payload), now)).toMatchObject({
      kind: "event",
      event: { id: "evt_1" },
    });
    expect(await provider.verifyWebhook(signedRequest(payload, null), now)).toMatchObject({
      kind: "refused",
      status: 400,
    });
  });
});

/*
 * Events as the test server delivers them, signed, to an endpoint that verifies and handles them
 * the way the route does: the credit happens once, whichever of webhook, retry and reconciler
 * comes first, and duplicates, redeliveries and reordering change nothing twice.
 */
describe("webhooks delivered by the Stripe-compatible server", () => {
  let ctx: TestContext;
  let started: Awaited<ReturnType<typeof startStripeTestProvider>>;
  let services: Services;
  let endpoint: StripeWebhookEndpoint;
  const answered = () => endpoint.receipts.map((receipt) => `${receipt.type}:${receipt.result}`);

  beforeAll(async () => {
    ctx = await createTestContext("pglite");
    started = await startStripeTestProvider(ctx.clock, { webhookSecret: SECRET });
    services = { db: ctx.db, clock: ctx.clock, provider: started.provider };
    // The test server keeps the real time here, not the context's clock.
    endpoint = await startStripeWebhookEndpoint(services, started.fake, { secret: SECRET, now: () => new Date() });
  });
  afterAll(async () => {
    await endpoint?.close();
    await started?.close();
    await ctx?.close();
  });

  async function awaitingPurchase(reference: string) {
    const { organization } = await createOrganization(services, {
      name: `Hooks ${reference}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["authentication_required"],
      defaultCardIndex: 0,
    });
    const first = await purchasePoints(services, { organization, request: { points: 100, reference }, source: "api" });
    expect(first.outcome).toBe("awaiting_payment");
    await started.fake.control.settled();
    const paymentId = first.topUp.providerPaymentId ?? "";
    const status = async () => {
      const [row] = await ctx.db
        .select()
        .from(topUps)
        .where(and(eq(topUps.organizationId, organization.id), eq(topUps.reference, reference)));
      return row?.status;
    };
    return { organization, paymentId, status };
  }

  /** The cardholder finishes 3-D Secure on Stripe's page, after an on-session confirmation. */
  async function authenticate(paymentId: string, succeed: boolean) {
    await started.stripe.paymentIntents.confirm(paymentId, { return_url: "http://127.0.0.1/back" });
    started.fake.control.completeAuthentication(paymentId, succeed);
    await started.fake.control.settled();
  }

  it("settles a purchase when payment_intent.succeeded arrives, with no retry by the client, and a duplicate changes nothing", async () => {
    const { organization, paymentId, status } = await awaitingPurchase("hook-1");
    started.fake.control.duplicateNextDelivery();
    await started.stripe.paymentIntents.confirm(paymentId, { return_url: "http://127.0.0.1/back" });
    await started.fake.control.settled();
    started.fake.control.duplicateNextDelivery();
    started.fake.control.completeAuthentication(paymentId, true);
    await started.fake.control.settled();
    expect(await status()).toBe("paid");
    // Two deliveries at once: one settles the purchase; the other finds it being settled (deferred,
    // not recorded) or settled (duplicate). Either way nothing happens twice.
    const deliveries = answered().filter((line) => line.startsWith("payment_intent.succeeded"));
    expect(deliveries.filter((line) => line.endsWith(":handled"))).toHaveLength(1);
    expect(deliveries.filter((line) => /:(deferred|duplicate)$/.test(line))).toHaveLength(1);
    const succeeded = started.fake.control
      .events()
      .filter((event) => event.type === "payment_intent.succeeded")
      .at(-1);
    expect(await started.fake.control.redeliver(succeeded?.id ?? "")).toBe(200);
    expect(await ledgerState(ctx.db, organization.id)).toMatchObject({ credits: 1, balance: 100 });
  });

  it("holds the truth against events delivered out of order", async () => {
    const first = await awaitingPurchase("hook-2");
    started.fake.control.holdDeliveries();
    // A failed attempt on Stripe's page, then a successful one: delivered newest first.
    await authenticate(first.paymentId, false);
    await started.stripe.paymentIntents.confirm(first.paymentId, { return_url: "http://127.0.0.1/back" });
    started.fake.control.completeAuthentication(first.paymentId, true);
    await started.fake.control.releaseDeliveries("reverse");
    await started.fake.control.settled();
    expect(await first.status()).toBe("paid");
    expect(await ledgerState(ctx.db, first.organization.id)).toMatchObject({ credits: 1, balance: 100 });
  });

  it("records a failure the cardholder made on Stripe's page", async () => {
    const { status, paymentId } = await awaitingPurchase("hook-3");
    await authenticate(paymentId, false);
    expect(await status()).toBe("failed");
  });
});
