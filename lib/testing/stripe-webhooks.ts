import http from "node:http";
import type { AddressInfo } from "node:net";
import { type BillingEventReceipt, handleBillingEvent } from "@/lib/points/intake/billing-events";
import type { Services } from "@/lib/points/services";
import type { FakeStripe } from "./fake-stripe/server";
import { TEST_STRIPE_WEBHOOK_SECRET } from "./harness";

export interface StripeWebhookEndpoint {
  /** Each event handled, in the order its handling finished. */
  receipts: BillingEventReceipt[];
  close(): Promise<void>;
}

/**
 * Points the Stripe test server's webhooks at an endpoint that takes them as the route does: the
 * provider verifies and translates, the domain handles; a failure answers 500. `now` is the time
 * the signature is checked at: the services' clock when the test server keeps it (a Stripe test
 * context), the real time otherwise.
 */
export async function startStripeWebhookEndpoint(
  services: Services,
  fake: FakeStripe,
  options: { secret?: string; now?: () => Date } = {},
): Promise<StripeWebhookEndpoint> {
  const secret = options.secret ?? TEST_STRIPE_WEBHOOK_SECRET;
  const now = options.now ?? (() => services.clock.now());
  const verify = services.provider.verifyWebhook?.bind(services.provider);
  if (!verify) throw new Error(`The ${services.provider.name} provider takes no webhooks.`);
  const receipts: BillingEventReceipt[] = [];
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const webRequest = new Request("http://127.0.0.1/api/stripe/webhook", {
      method: "POST",
      body: Buffer.concat(chunks).toString("utf8"),
      headers: { "Stripe-Signature": String(request.headers["stripe-signature"] ?? "") },
    });
    try {
      const verdict = await verify(webRequest, now());
      if (verdict.kind === "refused") return response.writeHead(verdict.status).end();
      if (verdict.kind === "ignored") return response.writeHead(200).end();
      const receipt = await handleBillingEvent(services, verdict.event);
      receipts.push(receipt);
      response.writeHead(200).end(JSON.stringify(receipt));
    } catch {
      response.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake.control.setWebhook(`http://127.0.0.1:${port}/`, secret);
  return {
    receipts,
    close: async () => {
      fake.control.setWebhook(null);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
