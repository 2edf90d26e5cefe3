/**
 * `npm run stripe:fake`: the Stripe-compatible test server (lib/testing/fake-stripe) on a port of
 * its own, so a person can run the whole app on the Stripe path without a Stripe account. Its
 * state (keys, customers, cards, prices, payments) is kept under .data/stripe-fake unless
 * --in-memory; each request and webhook delivery is logged unless --quiet.
 *
 *   npm run stripe:fake [-- --port 12111] [--forward-to http://localhost:3000/api/stripe/webhook]
 *                       [--state-dir .data/stripe-fake | --in-memory] [--quiet]
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { createStripeClient } from "@/lib/billing/stripe/client";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import { newWebhookSecret, startFakeStripe } from "@/lib/testing/fake-stripe/server";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.STRIPE_FAKE_PORT ?? "12111" },
    "forward-to": { type: "string", default: "http://localhost:3000/api/stripe/webhook" },
    "state-dir": { type: "string", default: path.join(".data", "stripe-fake") },
    "in-memory": { type: "boolean", default: false },
    quiet: { type: "boolean", default: false },
  },
});

const port = Number(values.port);
const forwardTo = values["forward-to"];
let appPort: string;
try {
  appPort = new URL(forwardTo).port;
} catch {
  console.error(`--forward-to must be a URL, like http://localhost:3000/api/stripe/webhook (was ${forwardTo}).`);
  process.exit(1);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number (was ${values.port}).`);
  process.exit(1);
}
const stateDir = values["in-memory"] ? undefined : values["state-dir"];
const envKey = process.env.STRIPE_SECRET_KEY?.startsWith("sk_test_") ? process.env.STRIPE_SECRET_KEY : undefined;
const log = values.quiet
  ? undefined
  : (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

let fake: Awaited<ReturnType<typeof startFakeStripe>>;
try {
  fake = await startFakeStripe({
    port,
    // Used for a new state directory, or in memory; a kept state brings its own keys.
    apiKey: envKey ?? `sk_test_${randomBytes(12).toString("hex")}`,
    webhookUrl: forwardTo,
    webhookSecret: process.env.STRIPE_WEBHOOK_SECRET ?? newWebhookSecret(),
    stateDir,
    log,
  });
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const secretKey = fake.apiKey ?? "";
const { prices } = await setupStripePrices(createStripeClient({ secretKey, apiUrl: fake.url }), SIMULATED_PRICES);
// The walkthrough's org create writes .data/stripe-org.json; .data/ may not exist yet.
fs.mkdirSync(".data", { recursive: true });

const kept = stateDir
  ? `State kept in ${stateDir}/ (${fake.restored ? "restored" : "new"}):
  a restart keeps these keys, customers, cards and payments; --in-memory keeps nothing.`
  : "In memory (--in-memory): everything, the keys included, is gone when it stops.";
console.log(`Stripe-compatible test server on ${fake.url}
  ${kept}
  ${prices.length} Points prices (lookup keys points_100 … points_7500, USD with GBP and EUR options).
  Webhooks are delivered, signed, to ${forwardTo}.
  ${log ? "Each request and webhook delivery is logged below (--quiet turns this off)." : "Requests are not logged (--quiet)."}

Run the app against it, in another terminal; this block can be pasted whole:

export STRIPE_API_URL=${fake.url}
export STRIPE_SECRET_KEY=${secretKey}
export STRIPE_WEBHOOK_SECRET=${fake.webhookSecret}
# With DATABASE_URL unset the app keeps an embedded database for this test server in .data/stripe-test-server/.
npm run -s points -- org create --name "Acme" --currency USD --api-purchases enabled --card visa --card authentication_required --default-card 0 --json > .data/stripe-org.json
${appPort ? `PORT=${appPort} npm run dev` : "npm run dev"}

Stop with Ctrl-C.`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void fake.close().then(() => process.exit(0));
  });
}
