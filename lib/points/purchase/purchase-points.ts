import { randomString } from "@/lib/ids";
import { purchaseAnswered } from "@/lib/observability/purchases";
import type { Services } from "../services";
import { DEFAULT_LEASE_MS } from "./lease";
import { currentResult, type PurchaseResult } from "./outcome";
import { settleTopUp } from "./settle";
import { type PurchaseInput, readPrices, resolvePurchaseTerms, startPurchase } from "./start";
import type { PurchaseOptions } from "./test-hooks";

/**
 * Buys a bundle of Points: the one purchase service behind the REST API and the dashboard.
 * docs/contract.md §4 steps 5 to 10, in order (steps 1 to 4, authentication and validation, belong
 * to the caller because the dashboard authenticates differently).
 *
 * No database transaction is held open across a provider call. The phases, each committed
 * before the next begins, are the recovery points a retry resumes from:
 *   P1 record   the purchase row, `processing` (from here on the charge may have been sent),
 *               holding a lease, or the replay decision;
 *   P2 mark     a stored `pending` purchase (recorded before P1 wrote `processing`) is marked;
 *   P3 charge   at the provider, idempotency key `topup_<id>` (a foreign mutation, outside any tx);
 *   P4 outcome  the new status, and for `paid` the ledger credit, in one transaction.
 */
export async function purchasePoints(
  services: Services,
  input: PurchaseInput,
  options: PurchaseOptions = {},
): Promise<PurchaseResult> {
  const result = await purchase(services, input, options);
  purchaseAnswered(input.source, result.outcome);
  return result;
}

async function purchase(services: Services, input: PurchaseInput, options: PurchaseOptions): Promise<PurchaseResult> {
  const { organization, request } = input;
  const terms = await resolvePurchaseTerms(services, organization, request);
  // Priced now, before any transaction; a failure only matters if this turns out to be a new purchase.
  const priced = await readPrices(services);
  const now = services.clock.now();
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const lockToken = randomString(24);

  const started = await startPurchase(services, input, terms, priced, { now, leaseMs, lockToken }, options);

  if (started.kind === "answer") return started.result;
  if (started.kind === "current") return currentResult(services.db, started.topUpId, true);
  await options.afterPhase?.("recorded", started.topUp);
  // A new purchase is recorded already `processing`: both recovery points passed in one commit.
  if (!started.replayed) await options.afterPhase?.("charge_marked", started.topUp);
  return settleTopUp(services, started.topUp, lockToken, started.replayed, options);
}
