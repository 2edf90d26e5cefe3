import type Stripe from "stripe";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { stripeEnv } from "@/lib/env";
import { noteProviderRequestId } from "./instrumented";
import type { BillingProvider } from "./provider";
import { SimulatedBillingProvider } from "./simulated/provider";
import { createStripeClient, type StripeSettings, stripeTarget } from "./stripe/client";
import { StripeBillingProvider } from "./stripe/provider";

/** Stripe when STRIPE_SECRET_KEY is set (or `stripe` is given), else the built-in simulated provider. */
export function createBillingProvider(
  db: Db,
  clock: Clock,
  stripe: StripeSettings | null = stripeEnv(),
): BillingProvider {
  if (stripe) {
    const { testServer } = stripeTarget(stripe);
    const client = createStripeClient(stripe);
    // Stripe's id of each request, for the provider call's log line (lib/billing/instrumented.ts).
    client.on("response", (event: Stripe.ResponseEvent) => noteProviderRequestId(event.request_id));
    return new StripeBillingProvider(client, clock, testServer, stripe.webhookSecret);
  }
  return new SimulatedBillingProvider(db, clock);
}
