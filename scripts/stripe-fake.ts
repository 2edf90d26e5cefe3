/**
 * `npm run stripe:fake`: the Stripe-compatible test server (lib/testing/fake-stripe) on a port of
 * its own, so a person can run the whole app on the Stripe path without a Stripe account.
 *
 *   npm run stripe:fake [-- --port 12111] [--forward-to http://localhost:3000/api/stripe/webhook]
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { SIMULATED_PRICES } from "@/lib/billing/simulated";
import { createStripeClient } from "@/lib/billing/stripe/client";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import { newWebhookSecret, startFakeStripe } from "@/lib/testing/fake-stripe/server";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.STRIPE_FAKE_PORT ?? "12111" },
    "forward-to": { type: "string", default: "http://localhost:3000/api/stripe/webhook" },
  },
});

const secretKey = process.env.STRIPE_SECRET_KEY?.startsWith("sk_test_")
  ? process.env.STRIPE_SECRET_KEY
  : `sk_test_${randomBytes(12).toString("hex")}`;
const webhookSecret = process.env.STRIPE_WEBHOOK_SECRET ?? newWebhookSecret();
const fake = await startFakeStripe({
  port: Number(values.port),
  apiKey: secretKey,
  webhookUrl: values["forward-to"],
  webhookSecret,
});
const { prices } = await setupStripePrices(createStripeClient({ secretKey, apiUrl: fake.url }), SIMULATED_PRICES);

console.log(`Stripe-compatible test server on ${fake.url} (in memory: everything is gone when it stops).
  ${prices.length} Points prices set up (lookup keys points_100 … points_7500, USD with GBP and EUR options).
  Webhooks are delivered, signed, to ${values["forward-to"]}.

Run the app against it, in another terminal:
  export STRIPE_API_URL=${fake.url}
  export STRIPE_SECRET_KEY=${secretKey}
  export STRIPE_WEBHOOK_SECRET=${webhookSecret}
  export DATABASE_URL=postgres://…   # or leave unset for the embedded database
  npm run points -- org create --name "Acme" --currency USD --api-purchases enabled --card visa --card authentication_required --default-card 0 --json
  npm run dev

Stop with Ctrl-C.`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void fake.close().then(() => process.exit(0));
  });
}
