import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { stripeEnv } from "@/lib/env";
import type { BillingProvider } from "./provider";
import { SimulatedBillingProvider } from "./simulated";

/** CONTRACT.md §6: Stripe when STRIPE_SECRET_KEY is set, else the built-in simulated provider. */
export function createBillingProvider(db: Db, clock: Clock): BillingProvider {
  if (stripeEnv()) {
    throw new Error(
      "STRIPE_SECRET_KEY is set, but this build has no Stripe provider yet: unset it to use the simulated provider.",
    );
  }
  return new SimulatedBillingProvider(db, clock);
}
