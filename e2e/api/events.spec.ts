import http from "node:http";
import { Webhook } from "standardwebhooks";
import { expect, test } from "../fixtures";
import {
  bearer,
  cardOf,
  expectInvalidFields,
  expectPaidNow,
  expectPlainError,
  expectPurchaseError,
  expectSuccess,
  postTopUp,
  uniqueRef,
} from "../utils";

/*
 * GET /v3/points/events and the webhooks that carry the same events (docs/webhooks.md), against
 * `next start`: the `events` organisation's endpoint is this spec's receiver on loopback, and each
 * delivery is verified with the standardwebhooks package.
 */

const EVENTS = "/v3/points/events";

interface EventJson {
  id: string;
  type: string;
  sequence: number;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
let server: http.Server;

test.beforeAll(async ({ fx }) => {
  if (!fx.events) throw new Error("The events fixture was not provisioned.");
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(204).end();
    });
  });
  const port = fx.events.receiverPort;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
});

test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function feed(request: Parameters<Parameters<typeof test>[2]>[0]["request"], key: string, query: string) {
  const data = await expectSuccess(await request.get(`${EVENTS}?${query}`, { headers: bearer(key) }), 200);
  expect(Object.keys(data).sort()).toEqual(["events", "has_more"]);
  return data as { events: EventJson[]; has_more: boolean };
}

test("a purchase's events are in the feed, in order, and arrive signed at the endpoint", async ({ request, fx }) => {
  const org = fx.organizations.events;
  const secret = fx.events?.secret ?? "";
  // Only this run's events: from the last sequence there is now.
  let last = 0;
  for (;;) {
    const page = await feed(request, org.apiKey, `after=${last}&limit=100`);
    last = page.events.at(-1)?.sequence ?? last;
    if (!page.has_more) break;
  }
  const paid = await expectPaidNow(
    await postTopUp(request, org, {
      points: 100,
      payment_source_id: cardOf(org, "visa").id,
      reference: uniqueRef("ev"),
    }),
  );
  const failed = await expectPurchaseError(
    await postTopUp(request, org, {
      points: 250,
      payment_source_id: cardOf(org, "declined").id,
      reference: uniqueRef("ev-declined"),
    }),
    402,
    "payment_failed",
  );

  const { events, has_more } = await feed(request, org.apiKey, `after=${last}`);
  expect(has_more).toBe(false);
  expect(events.map((event) => [event.sequence, event.type])).toEqual([
    [last + 1, "top_up.paid"],
    [last + 2, "top_up.failed"],
  ]);
  expect(events[0]).toMatchObject({
    organization_id: org.id,
    data: { top_up: paid.top_up, points_balance: paid.points_balance },
  });
  expect(events[1]?.data).toEqual({ top_up: failed.data.top_up, points_balance: failed.data.points_balance });
  expect(events[0]?.id).toMatch(/^evt_/);
  const onePage = await feed(request, org.apiKey, `after=${last}&limit=1`);
  expect([onePage.events.map((event) => event.sequence), onePage.has_more]).toEqual([[last + 1], true]);

  // The same events, each delivered once and signed: verified by the Standard Webhooks library.
  await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  const webhook = new Webhook(secret);
  const delivered = received.map(
    ({ headers, body }) =>
      webhook.verify(body, {
        "webhook-id": String(headers["webhook-id"]),
        "webhook-timestamp": String(headers["webhook-timestamp"]),
        "webhook-signature": String(headers["webhook-signature"]),
      }) as EventJson,
  );
  const mine = delivered.filter((event) => event.sequence > last).sort((a, b) => a.sequence - b.sequence);
  expect(mine).toEqual(events);
  expect(received.find((got) => got.body.includes(events[0]?.id ?? "?"))?.headers["webhook-id"]).toBe(events[0]?.id);
});

test("the feed refuses bad parameters and keys, as every endpoint does", async ({ request, fx }) => {
  const org = fx.organizations.events;
  const fields = await expectInvalidFields(
    await request.get(`${EVENTS}?after=-1&limit=500&since=1`, { headers: bearer(org.apiKey) }),
    ["after", "limit", "since"],
  );
  expect(fields.limit).toBe("must be a whole number from 1 to 100");
  await expectPlainError(await request.get(EVENTS, { headers: bearer(fx.revokedKey) }), 403, "invalid_api_key");
  await expectPlainError(await request.get(EVENTS), 403, "invalid_api_key");
  // Another organisation's feed is its own: nothing of `events` shows there.
  const other = await feed(request, fx.organizations.other.apiKey, "after=0&limit=100");
  expect(other.events.every((event) => event.organization_id === fx.organizations.other.id)).toBe(true);
});
