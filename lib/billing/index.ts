import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { stripeEnv } from "@/lib/env";
import type { BillingProvider } from "./provider";
import { SimulatedBillingProvider } from "./simulated";
import { createStripeClient, stripeTarget } from "./stripe/client";
import { StripeBillingProvider } from "./stripe/provider";

/** Stripe when STRIPE_SECRET_KEY is set, else the built-in simulated provider. */
export function createBillingProvider(db: Db, clock: Clock): BillingProvider {
  const stripe = stripeEnv();
  if (stripe) {
    const { testServer } = stripeTarget(stripe);
    return new StripeBillingProvider(createStripeClient(stripe), clock, testServer);
  }
  return new SimulatedBillingProvider(db, clock);
}
