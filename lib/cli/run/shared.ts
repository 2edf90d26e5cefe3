import { eq } from "drizzle-orm";
import { topUps } from "@/lib/db/schema";
import type { Runtime } from "@/lib/server/runtime";

/** A refusal found while running (an unknown id, say): the reason is for the operator. */
export class CommandRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandRefused";
  }
}

export async function getTopUp(db: Runtime["db"], id: string) {
  const [topUp] = await db.select().from(topUps).where(eq(topUps.id, id));
  return topUp;
}

/**
 * An unknown top-up, said with the database the command opened: a purchase made with Stripe is
 * kept beside Stripe's variables (docs/stripe.md), so without them the command looks elsewhere.
 */
export function noSuchTopUp(runtime: Pick<Runtime, "database" | "provider">, topUpId: string): CommandRefused {
  const opened = `the ${runtime.database.kind === "pglite" ? "embedded database at" : "database"} ${runtime.database.location}`;
  const stripeHint =
    runtime.provider.name === "stripe"
      ? ""
      : " If it was bought with Stripe, export STRIPE_SECRET_KEY (and STRIPE_API_URL for a test server) as the app had them, then run this again: without them the command opens the simulated provider's database.";
  return new CommandRefused(
    `No top-up ${topUpId} in ${opened} (billing: ${runtime.provider.displayName}).${stripeHint}`,
  );
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
