import { and, eq, getTableColumns, inArray, isNull } from "drizzle-orm";
import { withDeadline } from "@/lib/billing/deadline";
import type { BillingProvider, ChargeOutcome } from "@/lib/billing/provider";
import type { Currency } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { hotQuery, rowReader, sqlTime } from "@/lib/db/hot";
import { type TopUp, topUps } from "@/lib/db/schema";
import { newId, randomString } from "@/lib/ids";
import { log } from "@/lib/observability/log";
import { purchaseTransition } from "@/lib/observability/purchases";
import { purchaseCreditSql } from "../balance/ledger";
import { insertEventsSql, nextSequenceSql, type TopUpEventType, topUpEventDataSql } from "../events/events";
import { UNRESOLVED_STATUSES } from "../limits/limits";
import type { Services } from "../services";
import { nextAttemptAfter } from "./backoff";
import { assertChargedHere } from "./charged-by";
import { DEFAULT_LEASE_MS, releaseLease, takeLease } from "./lease";
import { currentResult, errorSummary, outcomeOf, type PurchaseResult } from "./outcome";
import { type PurchaseOptions, SimulatedCrash } from "./test-hooks";

const HOUR_MS = 60 * 60 * 1000;
/**
 * A provider keeps an idempotency key for a while (Stripe: 24 hours; idempotencyKeyTtlMs), then a
 * request under it is a new request. A charge is re-sent under a purchase's key only while its
 * first use is younger than this, an hour short of that; after that the payment is looked up by
 * metadata instead (askProvider).
 */
export function keyResendWindowMs(provider: Pick<BillingProvider, "idempotencyKeyTtlMs">): number {
  return provider.idempotencyKeyTtlMs - HOUR_MS;
}
/** A purchase still awaiting the cardholder this long after its charge is cancelled and failed. */
export const AWAITING_PAYMENT_EXPIRES_MS = 23 * HOUR_MS;

/**
 * Drives a leased, unresolved purchase to the provider's answer and records it (P2 to P4).
 * Used for new purchases, for retries with the same reference, and by the reconciler. A purchase
 * another provider charged is refused (billing_provider_mismatch) before P2, its lease released.
 */
export async function settleTopUp(
  services: Services,
  leased: TopUp,
  lockToken: string,
  replayed: boolean,
  options: PurchaseOptions,
): Promise<PurchaseResult> {
  let topUp = leased;
  try {
    assertChargedHere(services.provider, topUp, "settle");
    if (topUp.status === "pending") {
      const [marked] = await services.db
        .update(topUps)
        .set({ status: "processing", chargeAttemptedAt: services.clock.now(), updatedAt: services.clock.now() })
        .where(and(eq(topUps.id, topUp.id), eq(topUps.lockToken, lockToken), eq(topUps.status, "pending")))
        .returning();
      if (!marked) return await currentResult(services.db, topUp.id, replayed);
      purchaseTransition(marked, topUp.status);
      topUp = marked;
      await options.afterPhase?.("charge_marked", topUp);
    }

    const outcome = await askProvider(services, topUp, lockToken);
    await options.afterPhase?.("charged", topUp);
    const result = await recordOutcome(services, topUp, lockToken, outcome, replayed);
    await options.afterPhase?.("outcome_recorded", result.topUp);
    return result;
  } catch (error) {
    if (!(error instanceof SimulatedCrash)) await releaseLease(services.db, topUp.id, lockToken);
    throw error;
  }
}

/**
 * P3. A purchase whose payment the provider already named is asked about, never charged again.
 * Otherwise the charge is sent under the purchase's idempotency key, so a re-send after a crash
 * or a timeout is answered with the same payment, but only while the provider still keeps that
 * key: after keyResendWindowMs the payment is looked up by the purchase's id in its metadata,
 * and only if none exists is a charge sent, under a new key recorded before sending.
 * Every call is cut off at the provider's budget; any error means "unknown": it stays unresolved.
 */
async function askProvider(services: Services, topUp: TopUp, lockToken: string): Promise<ChargeOutcome> {
  const { provider, clock } = services;
  const call = <T>(run: (p: BillingProvider) => Promise<T>) => withDeadline(run(provider), provider.callBudgetMs);
  const now = clock.now();
  const keyUsedAt = topUp.chargeAttemptedAt ?? topUp.createdAt;
  try {
    if (topUp.providerPaymentId) {
      if (topUp.status === "awaiting_payment" && now.getTime() - keyUsedAt.getTime() >= AWAITING_PAYMENT_EXPIRES_MS) {
        const outcome = await call((p) => p.cancelPayment(topUp.providerPaymentId as string));
        // The cardholder may have finished first: then the cancellation failed and it is paid.
        return outcome.status === "failed"
          ? {
              ...outcome,
              code: "authentication_expired",
              message: "The cardholder did not complete authentication within 23 hours; nothing was charged.",
            }
          : outcome;
      }
      const paymentId = topUp.providerPaymentId;
      return await call((p) => p.retrievePayment(paymentId));
    }
    let idempotencyKey = topUp.providerIdempotencyKey;
    if (now.getTime() - keyUsedAt.getTime() >= keyResendWindowMs(provider)) {
      const found = await call((p) =>
        p.findPayment({
          topUpId: topUp.id,
          customerId: topUp.billingCustomerId,
          createdAfter: new Date(topUp.createdAt.getTime() - HOUR_MS),
        }),
      );
      if (found) return found;
      idempotencyKey = await renewIdempotencyKey(services, topUp, lockToken);
    }
    return await call((p) =>
      p.charge({
        idempotencyKey,
        customerId: topUp.billingCustomerId,
        paymentMethodId: topUp.paymentSourceId,
        amount: topUp.amount,
        currency: topUp.currency as Currency,
        metadata: { top_up_id: topUp.id, organization_id: topUp.organizationId, reference: topUp.reference },
      }),
    );
  } catch (error) {
    log().warn(
      { event: "payment_outcome_unknown", top_up_id: topUp.id },
      `Payment outcome of ${topUp.id} is unknown; it stays unresolved. ${errorSummary(error)}`,
    );
    return { status: "processing", paymentId: null };
  }
}

/**
 * A fresh idempotency key for a purchase whose old key the provider may have forgotten and under
 * which it holds no payment. Recorded (with its time) before the charge is sent, and only by the
 * lease holder, so a crash after this re-sends under the new key, never a third one unseen.
 */
async function renewIdempotencyKey(services: Services, topUp: TopUp, lockToken: string): Promise<string> {
  const key = `topup_${topUp.id}_${randomString(8).toLowerCase()}`;
  const [renewed] = await services.db
    .update(topUps)
    .set({ providerIdempotencyKey: key, chargeAttemptedAt: services.clock.now(), updatedAt: services.clock.now() })
    .where(and(eq(topUps.id, topUp.id), eq(topUps.lockToken, lockToken), isNull(topUps.providerPaymentId)))
    .returning({ id: topUps.id });
  if (!renewed) throw new Error(`Lost the lease on ${topUp.id} before renewing its idempotency key.`);
  return key;
}

/**
 * P4: the provider's answer and, for a payment that succeeded, the credit, in one transaction.
 * The lease decides who may send a charge, not who may record an answer: a terminal answer
 * (succeeded, failed, requires_action) is recorded whenever the purchase is still unresolved,
 * whoever holds the lease now, so a slow answer that outlived its lease is never thrown away.
 * An unknown answer only releases our own lease and schedules the next attempt.
 */
async function recordOutcome(
  services: Services,
  topUp: TopUp,
  lockToken: string,
  outcome: ChargeOutcome,
  replayed: boolean,
): Promise<PurchaseResult> {
  const now = services.clock.now();
  const known = outcome.status !== "processing";
  const change = statusChange(topUp, outcome, now);
  const keys = Object.keys(change) as Array<keyof typeof change>;
  const event = OUTCOME_EVENTS[outcome.status];
  const shape = `${keys.join()}|${outcome.status}`;
  const text = recordOutcomeTexts.get(shape) ?? recordOutcomeSql(keys, outcome.status);
  recordOutcomeTexts.set(shape, text);
  const values = keys.map((key) => {
    const value = change[key];
    return value instanceof Date ? sqlTime(value) : value;
  });
  const [row] = await hotQuery(services.db, text, [
    topUp.organizationId,
    topUp.id,
    outcome.paymentId,
    sqlTime(now),
    newId("ledger"),
    newId("event"),
    event.type,
    ...(known ? [] : [lockToken]),
    ...values,
  ]);
  if (!row && outcome.paymentId) {
    // Someone else holds the lease now; a payment id we learned is still worth keeping.
    await rememberPaymentId(services.db, topUp.id, outcome.paymentId);
  }
  const recorded = row ? { topUp: readTopUp(row), pointsBalance: Number(row.new_points_balance) } : null;
  if (!recorded) return currentResult(services.db, topUp.id, replayed);
  purchaseTransition(recorded.topUp, topUp.status);
  return {
    outcome: recorded.topUp.status === "paid" ? "paid_now" : outcomeOf(recorded.topUp),
    topUp: recorded.topUp,
    pointsBalance: recorded.pointsBalance,
    replayed,
  };
}

const TOP_UP_COLUMNS = getTableColumns(topUps);
const readTopUp = rowReader(topUps);
const recordOutcomeTexts = new Map<string, string>();

/**
 * The event each answer announces, and when (a condition on `prior`, the purchase as it was): a
 * purchase paid or failed is announced always (only an unresolved one can become so); one awaiting
 * the cardholder once, when it starts to; an unknown answer once, the first time (not on each of
 * the reconciler's retries after it).
 */
const OUTCOME_EVENTS: Record<ChargeOutcome["status"], { type: TopUpEventType; when: string }> = {
  succeeded: { type: "top_up.paid", when: "true" },
  failed: { type: "top_up.failed", when: "true" },
  requires_action: {
    type: "top_up.awaiting_payment",
    when: "exists (select 1 from prior where prior.status <> 'awaiting_payment')",
  },
  processing: {
    type: "top_up.unresolved",
    when: "exists (select 1 from prior where prior.status <> 'awaiting_payment' and prior.next_attempt_at is null)",
  },
};

/**
 * P4 as one statement, in the lock order of every other writer (the organisation's row, then the
 * purchase): the purchase's new status; when it is paid, the credit (ledger.ts's
 * purchaseCreditSql: the balance bumped and the ledger's purchase row, whose unique top_up_id
 * makes a second credit fail instead of doubling Points); and the event that announces it
 * (events.ts), numbered on the organisation's row. `prior` reads the purchase under its lock, so
 * the event's condition sees the purchase as the last writer left it.
 * Parameters: $1 organisation, $2 purchase, $3 payment id, $4 now, $5 the ledger row's id, $6 the
 * event's id, $7 its type, then ($8) the lease's token when the answer is unknown, then the status
 * change's values.
 */
function recordOutcomeSql(keys: Array<keyof TopUp>, status: ChargeOutcome["status"]): string {
  const known = status !== "processing";
  const first = known ? 8 : 9;
  const sets = keys.map((key, index) => `"${TOP_UP_COLUMNS[key].name}" = $${first + index}`);
  const unresolved = UNRESOLVED_STATUSES.map((value) => `'${value}'`).join(", ");
  const { when } = OUTCOME_EVENTS[status];
  return `with org as (
  select points_balance from organizations where id = $1 for update
),
prior as (
  select status, next_attempt_at from top_ups where id = $2 and exists (select 1 from org) for update
),
updated as (
  update top_ups set ${sets.join(", ")}, provider_payment_id = coalesce(provider_payment_id, $3),
    lock_token = null, locked_until = null, updated_at = $4
  where id = $2 and status in (${unresolved})${known ? "" : " and lock_token = $8"} and exists (select 1 from prior)
  returning *
),
${purchaseCreditSql({ purchases: "updated", ledgerId: "$5", now: "$4", alsoSet: nextSequenceSql(when) })},
event as (
  ${insertEventsSql([
    {
      organizationId: "u.organization_id",
      sequence: "c.event_sequence",
      id: "$6",
      type: "$7",
      data: topUpEventDataSql("u", "c.points_balance"),
      createdAt: "$4",
      from: "updated u cross join credited c",
      where: when,
    },
  ])}
)
select updated.*, coalesce((select points_balance from credited), (select points_balance from org)) as new_points_balance
from updated`;
}

/** Records a payment id on a still-unresolved purchase that has none yet, whoever holds its lease. */
async function rememberPaymentId(tx: Db, topUpId: string, paymentId: string): Promise<void> {
  const unresolved = and(eq(topUps.id, topUpId), inArray(topUps.status, [...UNRESOLVED_STATUSES]));
  await tx
    .update(topUps)
    .set({ providerPaymentId: paymentId })
    .where(and(unresolved, isNull(topUps.providerPaymentId)));
}

function statusChange(topUp: TopUp, outcome: ChargeOutcome, now: Date): Partial<TopUp> {
  switch (outcome.status) {
    case "succeeded":
      return { status: "paid", paidAt: now, failureCode: null, failureMessage: null, nextAttemptAt: null };
    case "failed":
      return { status: "failed", failureCode: outcome.code, failureMessage: outcome.message, nextAttemptAt: null };
    case "requires_action":
      // The cardholder may finish on the provider's page: the reconciler looks again, backing off.
      return {
        status: "awaiting_payment",
        failureCode: outcome.code,
        failureMessage: outcome.message,
        nextAttemptAt: nextAttemptAfter(now, topUp.attempts),
      };
    case "processing":
      // An unknown answer changes nothing we knew: awaiting_payment has no edge back to processing.
      return {
        status: topUp.status === "awaiting_payment" ? "awaiting_payment" : "processing",
        nextAttemptAt: nextAttemptAfter(now, topUp.attempts),
      };
  }
}

/**
 * Settles one stored purchase by id, as a retry with its reference would: takes the lease if it
 * is free, asks the provider about the same payment (never a new charge) and records the answer.
 * Terminal purchases and ones another request is working on are returned as they are. An
 * unresolved purchase another provider charged is refused (billing_provider_mismatch) before its
 * lease is taken: nothing is recorded and no provider is asked.
 */
export async function resolveTopUp(
  services: Services,
  topUpId: string,
  options: PurchaseOptions & { known?: (topUp: TopUp) => boolean } = {},
): Promise<PurchaseResult | null> {
  const now = services.clock.now();
  const lockToken = randomString(24);
  const leased = await services.db.transaction(async (tx) => {
    const [row] = await tx.select().from(topUps).where(eq(topUps.id, topUpId));
    if (!row) return null;
    if (row.status === "paid" || row.status === "failed") return row;
    if (row.lockedUntil && row.lockedUntil > now) return row;
    if (options.known?.(row)) return row;
    assertChargedHere(services.provider, row, "settle");
    return (await takeLease(tx, topUpId, lockToken, now, options.leaseMs ?? DEFAULT_LEASE_MS)) ?? row;
  });
  if (!leased) return null;
  if (leased.lockToken !== lockToken) return currentResult(services.db, topUpId, true);
  return settleTopUp(services, leased, lockToken, true, options);
}
