import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { stripeEnv } from "@/lib/env";
import type { BillingProvider } from "./provider";
import { SimulatedBillingProvider } from "./simulated";
import { createStripeClient } from "./stripe/client";
import { StripeBillingProvider } from "./stripe/provider";

/** CONTRACT.md §6: Stripe when STRIPE_SECRET_KEY is set, else the built-in simulated provider. */
export function createBillingProvider(db: Db, clock: Clock): BillingProvider {
  const stripe = stripeEnv();
  if (stripe) {
    if (!/^(sk|rk)_(test|live)_/.test(stripe.secretKey)) {
      throw new Error("STRIPE_SECRET_KEY must be a Stripe secret key (sk_test_… or sk_live_…).");
    }
    return new StripeBillingProvider(createStripeClient(stripe), clock, Boolean(stripe.apiUrl));
  }
  return new SimulatedBillingProvider(db, clock);
}
