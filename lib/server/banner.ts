import { withDeadline } from "@/lib/billing/deadline";
import { ProviderRefusedError } from "@/lib/billing/provider";
import { stripeTarget } from "@/lib/billing/stripe/client";
import { env, stripeEnv } from "@/lib/env";
import { log } from "@/lib/observability/log";
import { demoResetCommand } from "@/lib/points/accounts/seed";
import { logBillingProblemOnce, providerDisplayName } from "@/lib/points/cards/billing-problems";
import { isProduction, type Runtime } from "./runtime";

/**
 * What a developer needs to call the API right away, printed at startup. The demo admin's password
 * is printed only while it still works (`demoPasswordWorks`); after a change, the way to a new one.
 */
export function printBanner(runtime: Runtime, demoPasswordWorks = true): void {
  const url = `http://localhost:${env().PORT ?? "3000"}`;
  const lines = [
    "",
    `Points service on ${url}`,
    `  database: ${runtime.database.kind === "pglite" ? `embedded PGlite (${runtime.database.location})` : runtime.database.location}`,
    `  billing:  ${billingLine()}`,
  ];
  if (!runtime.demo && runtime.database.kind === "pglite" && isProduction()) {
    // Said without any secret: production seeds nothing, so an operator provisions the first organisation.
    lines.push("  nothing is seeded in production: provision with `npm run points -- org create` (server stopped)");
  }
  if (runtime.demo) {
    const { demo } = runtime;
    lines.push(
      `  demo organisation ${demo.organization_id}`,
      `    API key:  ${demo.api_key}`,
      demoPasswordWorks
        ? `    admin:    ${demo.admin.email} / ${demo.admin.password}`
        : `    admin:    ${demo.admin.email} (its password was changed since; forgot it? stop the server and run: ${demoResetCommand(demo)})`,
      "    payment methods (payment_source_id):",
      ...demo.payment_methods.map(
        (method) =>
          `      ${method.id}  ${method.label.padEnd(22)} ${method.kind ?? ""}${method.is_default ? " (default)" : ""}`,
      ),
      "",
      "  try it:",
      `    curl -s ${url}/v3/points/payment-methods -H "Authorization: Bearer ${demo.api_key}"`,
      `    curl -s -X POST ${url}/v3/points/top-ups -H "Authorization: Bearer ${demo.api_key}" \\`,
      // A fresh reference on each paste: an old one would replay that purchase instead of buying.
      `      -H "Content-Type: application/json" -d "{\\"points\\": 100, \\"reference\\": \\"order-$(date +%s)\\"}"`,
    );
  }
  // A printout for the person at the terminal, not a log line: written as it reads.
  process.stdout.write(`${lines.join("\n")}\n\n`);
}

/** How long the startup check of the provider's key may take; startup does not wait for it. */
export const CREDENTIALS_CHECK_MS = 5_000;

/**
 * Asks the provider once whether it accepts the service's key, after the banner, without holding
 * startup: a refused key is logged as every later refusal of it would be (once), and a provider
 * that cannot be reached is said too. Silent when the key works, or the provider has none.
 */
export async function checkBillingCredentials(
  runtime: Pick<Runtime, "provider">,
  timeoutMs = CREDENTIALS_CHECK_MS,
): Promise<void> {
  const { provider } = runtime;
  if (!provider.checkCredentials) return;
  try {
    await withDeadline(provider.checkCredentials(timeoutMs), timeoutMs + 1_000);
  } catch (error) {
    if (error instanceof ProviderRefusedError) {
      logBillingProblemOnce(provider, error);
      return;
    }
    log().error(
      { event: "billing_credentials_unchecked", err: error },
      `billing: ${providerDisplayName(provider)} did not answer the check of the API key (no answer within ${timeoutMs / 1000} s, or an error); ` +
        "listing cards and buying answer 502 payment_methods_unavailable until it does.",
    );
  }
}

/** The provider, and for Stripe the API the key is sent to: an operator sees a wrong STRIPE_API_URL at once. */
function billingLine(): string {
  const stripe = stripeEnv();
  if (!stripe) return "simulated";
  const { origin, testServer } = stripeTarget(stripe);
  return `stripe, API ${origin}${testServer ? " (a Stripe-compatible test server)" : ""}`;
}
