import { createHmac } from "node:crypto";
import http from "node:http";
import type { APIRequestContext } from "@playwright/test";
import type Stripe from "stripe";
import { createStripeClient } from "@/lib/billing/stripe/client";
import type { DeliveryLogEntry } from "@/lib/testing/fake-stripe/server";
import { expect, readFixtures, test } from "../fixtures";
import { cardOf, postTopUp, uniqueRef } from "../utils";

/*
 * Runs after the HTTP contract suite and Stripe's browser journeys (playwright.config.ts), against
 * `next start` billing through the Stripe-compatible test server, which logs what the app answered
 * to each webhook delivery. A production build bundles the routes apart from the startup hook, so
 * this is where a route that cannot see its provider shows.
 */

const WEBHOOK = "/api/stripe/webhook";

function stripeOf() {
  const { stripe } = readFixtures();
  if (!stripe) throw new Error("These tests run with E2E_PROVIDER=stripe: the fixtures name no test server.");
  return stripe;
}

async function deliveries(request: APIRequestContext): Promise<DeliveryLogEntry[]> {
  const answer = await request.get(`${stripeOf().apiUrl}/_test/deliveries`);
  expect(answer.status()).toBe(200);
  return ((await answer.json()) as { data: DeliveryLogEntry[] }).data;
}

/** The delivery of the first event of `type` about `objectId`, once the app has answered it. */
async function deliveryOf(
  request: APIRequestContext,
  stripe: Stripe,
  type: string,
  objectId: string,
): Promise<DeliveryLogEntry> {
  let found: DeliveryLogEntry | undefined;
  await expect
    .poll(
      async () => {
        const events = await stripe.events.list({ type, limit: 100 });
        const event = events.data.find((candidate) => (candidate.data.object as { id?: string }).id === objectId);
        found = event ? (await deliveries(request)).find((entry) => entry.eventId === event.id) : undefined;
        return found !== undefined;
      },
      { timeout: 20_000, message: `the delivery of ${type} for ${objectId}` },
    )
    .toBe(true);
  return found as DeliveryLogEntry;
}

/** What the webhook answered: its JSON receipt. */
function receiptOf(entry: DeliveryLogEntry): { result?: string; detail?: string } {
  return JSON.parse(entry.answer) as { result?: string; detail?: string };
}

function signed(payload: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac("sha256", stripeOf().webhookSecret).update(`${timestamp}.${payload}`).digest("hex");
  return { "Content-Type": "application/json", "Stripe-Signature": `t=${timestamp},v1=${signature}` };
}

test("a purchase, a 3-D Secure completion and a card saved at Checkout: each webhook is answered 2xx and does its work", async ({
  request,
  fx,
}) => {
  const organization = fx.organizations.webhooks;
  const { apiUrl, secretKey } = stripeOf();
  const stripe = createStripeClient({ secretKey, apiUrl });

  const paid = await postTopUp(request, organization, { points: 100, reference: uniqueRef("wh-paid") });
  expect(paid.status()).toBe(201);
  const paidTopUp = ((await paid.json()) as { data: { top_up: { id: string } } }).data.top_up;

  const reference = uniqueRef("wh-3ds");
  const body = { points: 250, reference, payment_source_id: cardOf(organization, "authentication_required").id };
  const awaiting = await postTopUp(request, organization, body);
  expect(awaiting.status()).toBe(402);
  const awaitingTopUp = ((await awaiting.json()) as { data: { top_up: { id: string } } }).data.top_up;
  const intents = await stripe.paymentIntents.search({ query: `metadata['top_up_id']:'${awaitingTopUp.id}'` });
  const intent = intents.data[0];
  if (!intent) throw new Error(`No PaymentIntent carries ${awaitingTopUp.id}.`);
  // "Complete payment" confirms it on-session (as the dashboard does); the cardholder then completes
  // 3-D Secure on the bank's page and never comes back to the app.
  await stripe.paymentIntents.confirm(intent.id, {
    payment_method: intent.payment_method as string,
    return_url: `${fx.baseUrl}/dashboard/buy/${awaitingTopUp.id}/return`,
    off_session: false,
  });
  expect(
    (await request.post(`${apiUrl}/_test/authenticate`, { data: { id: intent.id, succeed: true } })).status(),
  ).toBe(200);

  const paidIntents = await stripe.paymentIntents.search({ query: `metadata['top_up_id']:'${paidTopUp.id}'` });
  const paidIntent = paidIntents.data[0];
  if (!paidIntent) throw new Error(`No PaymentIntent carries ${paidTopUp.id}.`);

  const customerId = paidIntent.customer as string;
  const session = await stripe.checkout.sessions.create({
    mode: "setup",
    customer: customerId,
    currency: "usd",
    success_url: `${fx.baseUrl}/dashboard/payment-details/added?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${fx.baseUrl}/dashboard/payment-details`,
  });
  const saved = await request.post(session.url ?? "", { form: { card: "pm_card_mastercard" }, maxRedirects: 0 });
  expect(saved.status()).toBe(303);

  const paidDelivery = await deliveryOf(request, stripe, "payment_intent.succeeded", paidIntent.id);
  expect([paidDelivery.status, receiptOf(paidDelivery)]).toEqual([
    200,
    expect.objectContaining({ result: "handled", detail: `top-up ${paidTopUp.id} is paid` }),
  ]);
  // The webhook alone settled the purchase finished on the bank's page: no retry, no return page.
  const completed = await deliveryOf(request, stripe, "payment_intent.succeeded", intent.id);
  expect([completed.status, receiptOf(completed)]).toEqual([
    200,
    expect.objectContaining({ result: "handled", detail: `top-up ${awaitingTopUp.id} is paid` }),
  ]);
  const checkout = await deliveryOf(request, stripe, "checkout.session.completed", session.id);
  expect([checkout.status, receiptOf(checkout).result]).toEqual([200, "handled"]);

  const replay = await postTopUp(request, organization, body);
  expect([replay.status(), replay.headers()["idempotent-replayed"]]).toEqual([200, "true"]);
});

test("a signed event of no usable shape is acknowledged as ignored, not failed (which Stripe would redeliver forever)", async ({
  request,
}) => {
  const bodies = [
    "[1, 2]",
    '{"id": "evt_e2e_nodata", "object": "event", "type": "payment_intent.succeeded"}',
    '{"id": "evt_e2e_null", "object": "event", "type": "payment_intent.succeeded", "data": {"object": null}}',
    '{"id": "evt_e2e_charge", "object": "event", "type": "payment_intent.succeeded", "data": {"object": {"id": "ch_1", "object": "charge"}}}',
  ];
  for (const payload of bodies) {
    const answer = await request.post(WEBHOOK, { headers: signed(payload), data: Buffer.from(payload) });
    expect([payload, answer.status()]).toEqual([payload, 200]);
    expect(await answer.json()).toMatchObject({ received: true, result: "ignored" });
  }
});

test("a body with no Content-Length is refused with 413 once it passes 512 KiB, without waiting for its end", async ({
  fx,
}) => {
  const url = new URL(WEBHOOK, fx.baseUrl);
  // 600 KiB are sent, and the request is then left open: only a reader that stops at the cap answers.
  const status = await new Promise<number>((resolve, reject) => {
    const outgoing = http.request(url, {
      method: "POST",
      headers: { ...signed("{}"), "Transfer-Encoding": "chunked" },
    });
    outgoing.on("response", (response) => {
      response.resume();
      outgoing.destroy();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on("error", reject);
    outgoing.setTimeout(15_000, () => {
      outgoing.destroy();
      reject(new Error("The webhook did not answer before the body ended."));
    });
    const chunk = Buffer.alloc(60 * 1024, "x");
    for (let i = 0; i < 10; i += 1) outgoing.write(chunk);
  });
  expect(status).toBe(413);
});

test("every webhook delivery the test server made in this run was answered 2xx", async ({ request }) => {
  const log = await deliveries(request);
  expect(log.length).toBeGreaterThan(0);
  const failed = log.filter((entry) => entry.status < 200 || entry.status > 299);
  expect(failed, `deliveries answered otherwise: ${JSON.stringify(failed.slice(0, 5))}`).toEqual([]);
});
