import { createPointsClient } from "../client/client";
import { expect, test } from "../fixtures";
import { uniqueRef } from "../utils";

/*
 * An integrator's journey through the client generated from GET /v3/openapi.json (e2e/client):
 * read the cards, quote, buy, replay, read the purchase back, list it, read the balance, and meet
 * a refusal. Every field read here is typed by the document, so a document that no longer says
 * what the API answers stops this file from compiling (npm run typecheck) or fails it here.
 */
test("the generated client buys, reads back and is refused exactly as the document says", async ({ fx, baseURL }) => {
  const org = fx.organizations.typedClient;
  const client = createPointsClient(baseURL ?? fx.baseUrl, org.apiKey);

  const cards = await client.GET("/v3/points/payment-methods");
  expect(cards.response.status).toBe(200);
  const card = cards.data?.data.payment_methods.find((method) => method.is_default);
  expect(card?.label).toMatch(/•••• \d{4}$/);
  if (!card) throw new Error("no default card");

  const quote = await client.POST("/v3/points/quotes", { body: { points: 250, currency: "USD" } });
  expect(quote.data?.data.quote).toMatchObject({
    points: 250,
    currency: "USD",
    payment_source_id: card.id,
    points_balance_after: 250,
  });
  const price = quote.data?.data.quote.amount ?? -1;
  expect(price).toBeGreaterThan(0);

  const reference = uniqueRef("typed");
  const body = { points: 250 as const, currency: "USD" as const, reference };
  const bought = await client.POST("/v3/points/top-ups", { body });
  expect(bought.response.status).toBe(201);
  const topUp = bought.data?.data.top_up;
  expect(topUp).toMatchObject({ reference, status: "paid", amount: price, payment_source_id: card.id, dispute: null });
  expect(bought.data?.data.points_balance).toBe(250);
  if (!topUp) throw new Error("no top-up");

  const replay = await client.POST("/v3/points/top-ups", { body });
  expect(replay.response.status).toBe(200);
  expect(replay.response.headers.get("Idempotent-Replayed")).toBe("true");
  expect(replay.data?.data.top_up.id).toBe(topUp.id);

  const read = await client.GET("/v3/points/top-ups/{id}", { params: { path: { id: topUp.id } } });
  expect(read.data?.data.top_up).toEqual(topUp);

  const listed = await client.GET("/v3/points/top-ups", { params: { query: { reference, limit: 5 } } });
  expect(listed.data?.data.top_ups.map((item) => item.id)).toEqual([topUp.id]);
  expect(listed.data?.data.has_more).toBe(false);

  const balance = await client.GET("/v3/points/balance");
  expect(balance.data?.data).toMatchObject({ points_balance: 250, points_held: 0 });
  expect(Date.parse(balance.data?.data.next_purchase_at ?? "")).not.toBeNaN();

  // A refusal comes back typed as the error envelope, its code one the document lists for 402.
  const declined = fx.organizations.typedClient.paymentMethods.find((method) => method.kind === "declined");
  const refused = await client.POST("/v3/points/top-ups", {
    body: { points: 100, currency: "USD", payment_source_id: declined?.id, reference: uniqueRef("typed-declined") },
  });
  expect(refused.response.status).toBe(402);
  const failure = refused.error;
  expect(failure?.error.code).toBe("payment_failed");
  // Only the errors about a stored purchase carry it: the type knows which.
  if (!failure || !("data" in failure) || !failure.data) throw new Error("a 402 carries the purchase");
  expect(failure.data.top_up.failure?.code).toBe("card_declined");

  const missing = await client.GET("/v3/points/top-ups/{id}", { params: { path: { id: "tu_doesnotexist" } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error?.error.code).toBe("not_found");
});
