import type { TopUp } from "@/lib/db/schema";
import { isUnresolved } from "../limits/limits";
import type { Services } from "../services";
import type { PurchaseResult } from "./outcome";
import { resolveTopUp } from "./settle";

/** How long a settler waits for another one holding the same purchase (the webhook, the return page). */
export const SETTLE_WAIT_MS = 5_000;
const POLL_MS = 100;

/** Whether another request holds this unresolved purchase, so this one learned nothing new. */
export function heldElsewhere(result: PurchaseResult): boolean {
  return (
    result.outcome === "purchase_in_progress" || (isUnresolved(result.topUp.status) && result.topUp.lockToken !== null)
  );
}

/**
 * resolveTopUp, waiting up to waitMs while another request holds the purchase. The holder may have
 * asked the provider before the change that brought this caller here (a webhook's event, the
 * cardholder back from the bank's page), so when it lets go the purchase is asked about again.
 * Still held after waitMs: the holder's answer, or the reconciler, settles it. A purchase the
 * holder left as the caller's news says it is (`known`) is not asked about again: asking would
 * only hold it while the client's own retry asks.
 */
export async function resolveTopUpWhenFree(
  services: Services,
  topUpId: string,
  options: { leaseMs?: number; waitMs?: number; known?: (topUp: TopUp) => boolean } = {},
): Promise<PurchaseResult | null> {
  const deadline = Date.now() + (options.waitMs ?? SETTLE_WAIT_MS);
  for (;;) {
    const result = await resolveTopUp(services, topUpId, { leaseMs: options.leaseMs, known: options.known });
    if (!result || !heldElsewhere(result) || Date.now() >= deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
