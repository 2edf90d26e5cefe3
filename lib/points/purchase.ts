import { and, asc, eq, inArray, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import { withDeadline } from "@/lib/billing/deadline";
import type { BillingProvider, ChargeOutcome } from "@/lib/billing/provider";
import type { Db } from "@/lib/db/client";
import { organizations, type Organization, type TopUp, topUps } from "@/lib/db/schema";
import { newId, randomString } from "@/lib/ids";
import type { Currency } from "./catalog";
import { PointsError } from "./errors";
import { creditTopUp, getPointsBalance } from "./ledger";
import { assertWithinLimits, UNRESOLVED_STATUSES } from "./limits";
import { listUsablePaymentMethods, resolvePaymentMethod } from "./payment-methods";
import { getPriceTable } from "./prices";
import type { Services } from "./services";
import type { TopUpRequest } from "./top-up-request";

/**
 * How a purchase request ended. Only transports turn this into HTTP (201/200/402/409).
 * `replayed` is true whenever the answer comes from a purchase stored before this request.
 */
export type PurchaseOutcome =
  | "paid_now" // credited by this request
  | "paid" // credited earlier
  | "failed"
  | "awaiting_payment"
  | "unresolved"
  | "reference_conflict"
  | "purchase_in_progress";

export interface PurchaseResult {
  outcome: PurchaseOutcome;
  topUp: TopUp;
  pointsBalance: number;
  replayed: boolean;
}

/** The recovery points of a purchase, for tests that simulate a crash right after one. */
export type PurchasePhase = "recorded" | "charge_marked" | "charged" | "outcome_recorded";

export interface PurchaseOptions {
  /** How long a request may work on a purchase before another may take it over. */
  leaseMs?: number;
  /** Called after each phase commits; a test throws SimulatedCrash here to stop the request dead. */
  afterPhase?: (phase: PurchasePhase, topUp: TopUp) => Promise<void> | void;
  /** Called when a retry has seen a run-out lease and is about to take it; a test races another taker here. */
  beforeTakeover?: (topUp: TopUp) => Promise<void>;
}

/** Thrown by a test's afterPhase hook: the request stops as if the process died (no lease release). */
export class SimulatedCrash extends Error {
  constructor(phase: PurchasePhase) {
    super(`Simulated crash after ${phase}`);
    this.name = "SimulatedCrash";
  }
}

export const DEFAULT_LEASE_MS = 90_000;
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
/** After an unknown answer the reconciler asks again after this, doubling each time, up to the cap. */
export const BACKOFF_BASE_MS = 60_000;
export const BACKOFF_CAP_MS = 30 * 60_000;
/** The reconciler's batch: bounded, so one run ends in bounded time whatever is stuck. */
export const RECONCILE_BATCH = 50;

/** When the reconciler may next ask about a purchase after `attempts` attempts with no answer. */
export function nextAttemptAfter(now: Date, attempts: number): Date {
  const delay = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return new Date(now.getTime() + delay);
}

/**
 * One settlement makes at most two provider calls (a lookup, then a charge or a cancellation),
 * each cut off at the provider's budget; the lease must outlast both with room for the database,
 * or a second request could take over while the first may still send a charge.
 */
export function minimumLeaseMs(provider: Pick<BillingProvider, "callBudgetMs">): number {
  return 2 * provider.callBudgetMs + 5_000;
}

/** Startup refuses a lease the provider's calls could outlive (POINTS_LEASE_SECONDS). */
export function assertLeaseCoversProvider(leaseMs: number, provider: Pick<BillingProvider, "name" | "callBudgetMs">): void {
  const minimum = minimumLeaseMs(provider);
  if (leaseMs < minimum) {
    throw new Error(
      `POINTS_LEASE_SECONDS=${leaseMs / 1000} is shorter than the ${provider.name} provider's calls may take: ` +
        `set it to at least ${Math.ceil(minimum / 1000)}.`,
    );
  }
}

/** A lease nobody holds now: never taken, released, or run out. */
function leaseIsFree(now: Date): SQL | undefined {
  return or(isNull(topUps.lockedUntil), lte(topUps.lockedUntil, now));
}

export interface PurchaseInput {
  organization: Organization;
  request: TopUpRequest;
  source: "api" | "dashboard";
}

/**
 * Buys a bundle of Points: the one purchase service behind the REST API and the dashboard.
 * CONTRACT.md §4 steps 5 to 10, in order (steps 1 to 4, authentication and validation, belong
 * to the caller because the dashboard authenticates differently).
 *
 * No database transaction is held open across a provider call. The phases, each committed
 * before the next begins, are the recovery points a retry resumes from:
 *   P1 record   the purchase row, `pending`, holding a lease (or the replay decision);
 *   P2 mark     `processing`: from here on the charge may have been sent;
 *   P3 charge   at the provider, idempotency key `topup_<id>` (a foreign mutation, outside any tx);
 *   P4 outcome  the new status, and for `paid` the ledger credit, in one transaction.
 */
export async function purchasePoints(
  services: Services,
  input: PurchaseInput,
  options: PurchaseOptions = {},
): Promise<PurchaseResult> {
  const { organization, request, source } = input;
  const { currency, paymentMethodId } = await resolvePurchaseTerms(services, organization, request);
  // Priced now, before any transaction; a failure only matters if this turns out to be a new purchase.
  const priced = await getPriceTable(services).then(
    (table) => ({ table }),
    (error: unknown) => ({ error }),
  );
  const now = services.clock.now();
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const lockToken = randomString(24);

  const started = await services.db.transaction(async (tx) => {
    // The organisation's row lock serialises the decisions of one organisation's purchases:
    // limits are checked and the row inserted with no concurrent purchase in between.
    const [org] = await tx.select().from(organizations).where(eq(organizations.id, organization.id)).for("update");
    if (!org) throw new Error(`Organisation ${organization.id} vanished.`);
    const [existing] = await tx
      .select()
      .from(topUps)
      .where(and(eq(topUps.organizationId, org.id), eq(topUps.reference, request.reference)));

    if (existing) {
      // Step 7: a replay is answered before any limit, and does not count toward one.
      const replay = (outcome: PurchaseOutcome): Started => ({
        kind: "answer",
        result: { outcome, topUp: existing, pointsBalance: org.pointsBalance, replayed: true },
      });
      if (
        existing.points !== request.points ||
        existing.currency !== currency ||
        existing.paymentSourceId !== paymentMethodId
      ) {
        return replay("reference_conflict");
      }
      if (existing.status === "paid") return replay("paid");
      if (existing.status === "failed") return replay("failed");
      if (existing.lockedUntil && existing.lockedUntil > now) return replay("purchase_in_progress");
      await options.beforeTakeover?.(existing);
      const leased = await takeLease(tx, existing.id, lockToken, now, leaseMs);
      // Another request (a retry, the reconciler, a webhook) took it first: answer what it is now.
      if (!leased) return { kind: "current", topUpId: existing.id } satisfies Started;
      return { kind: "work", topUp: leased, replayed: true } satisfies Started;
    }

    await assertWithinLimits(tx, org, request.points, now);
    if ("error" in priced) throw priced.error;
    const amount = priced.table[currency]?.[request.points];
    if (amount === undefined) {
      throw new PointsError(
        "currency_not_available",
        `The ${request.points} Points bundle has no price in ${currency}; choose another currency.`,
        { details: { points: request.points, currency } },
      );
    }
    const id = newId("topUp");
    const [created] = await tx
      .insert(topUps)
      .values({
        id,
        organizationId: org.id,
        reference: request.reference,
        points: request.points,
        currency,
        amount,
        paymentSourceId: paymentMethodId,
        billingCustomerId: org.billingCustomerId,
        source,
        status: "pending",
        providerIdempotencyKey: `topup_${id}`,
        lockToken,
        lockedUntil: new Date(now.getTime() + leaseMs),
        attempts: 1,
        createdAt: now,
        updatedAt: now,
      })
      // The unique (organization_id, reference) index is the second guard behind the row lock.
      .onConflictDoNothing({ target: [topUps.organizationId, topUps.reference] })
      .returning();
    if (!created) throw new Error(`Reference ${request.reference} appeared under the organisation lock.`);
    return { kind: "work", topUp: created, replayed: false } satisfies Started;
  });

  if (started.kind === "answer") return started.result;
  if (started.kind === "current") return currentResult(services.db, started.topUpId, true);
  await options.afterPhase?.("recorded", started.topUp);
  return settleTopUp(services, started.topUp, lockToken, started.replayed, options);
}

type Started =
  | { kind: "answer"; result: PurchaseResult }
  | { kind: "current"; topUpId: string }
  | { kind: "work"; topUp: TopUp; replayed: boolean };

/**
 * Takes the lease on an unresolved purchase, atomically: the condition is in the UPDATE itself, so
 * of two requests that both saw the lease run out, Postgres lets exactly one match (the other
 * re-checks the row after the first commits and matches nothing). Null when it was not free.
 */
async function takeLease(tx: Db, topUpId: string, lockToken: string, now: Date, leaseMs: number): Promise<TopUp | null> {
  const [taken] = await tx
    .update(topUps)
    .set({
      lockToken,
      lockedUntil: new Date(now.getTime() + leaseMs),
      attempts: sql`${topUps.attempts} + 1`,
      updatedAt: now,
    })
    .where(and(eq(topUps.id, topUpId), inArray(topUps.status, [...UNRESOLVED_STATUSES]), leaseIsFree(now)))
    .returning();
  return taken ?? null;
}

/**
 * Steps 5 and 6: the currency and payment method this request means. A retry whose reference is
 * stored and whose explicit fields match is answered from the stored purchase even when the
 * provider cannot list payment methods now, or its card has since expired or been removed: its
 * payment is already at the provider, and asking about it needs no listing.
 */
async function resolvePurchaseTerms(
  services: Services,
  organization: Organization,
  request: TopUpRequest,
): Promise<{ currency: Currency; paymentMethodId: string }> {
  const [stored] = await services.db
    .select()
    .from(topUps)
    .where(and(eq(topUps.organizationId, organization.id), eq(topUps.reference, request.reference)));
  const explicitMatch =
    stored &&
    stored.points === request.points &&
    (request.currency === undefined || request.currency === stored.currency) &&
    (request.paymentSourceId === undefined || request.paymentSourceId === stored.paymentSourceId);
  if (stored && explicitMatch) {
    const currency = request.currency ?? (organization.currency as Currency | null) ?? (stored.currency as Currency);
    if (request.paymentSourceId !== undefined) return { currency, paymentMethodId: request.paymentSourceId };
    try {
      const methods = await listUsablePaymentMethods(services, organization);
      return { currency, paymentMethodId: resolvePaymentMethod(methods, undefined).id };
    } catch (error) {
      if (error instanceof PointsError && UNLISTABLE.has(error.code)) {
        return { currency, paymentMethodId: stored.paymentSourceId };
      }
      throw error;
    }
  }
  const currency = resolveCurrency(organization, request.currency);
  const methods = await listUsablePaymentMethods(services, organization);
  return { currency, paymentMethodId: resolvePaymentMethod(methods, request.paymentSourceId).id };
}

/** Why a default method cannot be named now; for a stored purchase its own method stands. */
const UNLISTABLE = new Set(["payment_methods_unavailable", "no_payment_method", "payment_method_required"]);

/**
 * Drives a leased, unresolved purchase to the provider's answer and records it (P2 to P4).
 * Used for new purchases, for retries with the same reference, and by the reconciler.
 */
async function settleTopUp(
  services: Services,
  leased: TopUp,
  lockToken: string,
  replayed: boolean,
  options: PurchaseOptions,
): Promise<PurchaseResult> {
  let topUp = leased;
  try {
    if (topUp.status === "pending") {
      const [marked] = await services.db
        .update(topUps)
        .set({ status: "processing", chargeAttemptedAt: services.clock.now(), updatedAt: services.clock.now() })
        .where(and(eq(topUps.id, topUp.id), eq(topUps.lockToken, lockToken), eq(topUps.status, "pending")))
        .returning();
      if (!marked) return await currentResult(services.db, topUp.id, replayed);
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
    console.warn(`Payment outcome of ${topUp.id} is unknown; it stays unresolved.`, errorSummary(error));
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
  const recorded = await services.db.transaction(async (tx) => {
    // Lock order everywhere is organisation, then top-up: no deadlock with the P1 transaction.
    const [org] = await tx
      .select({ pointsBalance: organizations.pointsBalance })
      .from(organizations)
      .where(eq(organizations.id, topUp.organizationId))
      .for("update");
    const unresolved = and(eq(topUps.id, topUp.id), inArray(topUps.status, [...UNRESOLVED_STATUSES]));
    const [updated] = await tx
      .update(topUps)
      .set({
        ...statusChange(topUp, outcome, now),
        providerPaymentId: sql`coalesce(${topUps.providerPaymentId}, ${outcome.paymentId})`,
        lockToken: null,
        lockedUntil: null,
        updatedAt: now,
      })
      .where(known ? unresolved : and(unresolved, eq(topUps.lockToken, lockToken)))
      .returning();
    if (!updated) {
      // Someone else holds the lease now; a payment id we learned is still worth keeping.
      if (outcome.paymentId) {
        await tx
          .update(topUps)
          .set({ providerPaymentId: outcome.paymentId })
          .where(and(unresolved, isNull(topUps.providerPaymentId)));
      }
      return null;
    }
    const pointsBalance =
      updated.status === "paid" ? await creditTopUp(tx, updated, now) : (org?.pointsBalance ?? 0);
    return { topUp: updated, pointsBalance };
  });
  if (!recorded) return currentResult(services.db, topUp.id, replayed);
  return {
    outcome: recorded.topUp.status === "paid" ? "paid_now" : outcomeOf(recorded.topUp),
    topUp: recorded.topUp,
    pointsBalance: recorded.pointsBalance,
    replayed,
  };
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

function outcomeOf(topUp: TopUp): PurchaseOutcome {
  switch (topUp.status) {
    case "paid":
      return "paid";
    case "failed":
      return "failed";
    case "awaiting_payment":
      return "awaiting_payment";
    default:
      return topUp.lockedUntil ? "purchase_in_progress" : "unresolved";
  }
}

async function currentResult(db: Db, topUpId: string, replayed: boolean): Promise<PurchaseResult> {
  const [topUp] = await db.select().from(topUps).where(eq(topUps.id, topUpId));
  if (!topUp) throw new Error(`Top-up ${topUpId} vanished.`);
  return { outcome: outcomeOf(topUp), topUp, pointsBalance: await getPointsBalance(db, topUp.organizationId), replayed };
}

async function releaseLease(db: Db, topUpId: string, lockToken: string): Promise<void> {
  try {
    await db
      .update(topUps)
      .set({ lockToken: null, lockedUntil: null })
      .where(and(eq(topUps.id, topUpId), eq(topUps.lockToken, lockToken)));
  } catch (error) {
    // The lease runs out by itself; a retry after that resumes the purchase.
    console.error(`Could not release the lease on ${topUpId}:`, errorSummary(error));
  }
}

/** Step 5: the request's currency, else the organisation's saved one. */
export function resolveCurrency(organization: Pick<Organization, "currency">, requested?: Currency): Currency {
  const currency = requested ?? (organization.currency as Currency | null);
  if (!currency) {
    throw new PointsError(
      "currency_required",
      "The organisation has no saved currency: send `currency` (USD, GBP or EUR) or save one in Settings.",
      { details: { fields: { currency: "is required because the organisation has no saved currency" } } },
    );
  }
  return currency;
}

/**
 * Settles one stored purchase by id, as a retry with its reference would: takes the lease if it
 * is free, asks the provider about the same payment (never a new charge) and records the answer.
 * Terminal purchases and ones another request is working on are returned as they are.
 */
export async function resolveTopUp(
  services: Services,
  topUpId: string,
  options: PurchaseOptions = {},
): Promise<PurchaseResult | null> {
  const now = services.clock.now();
  const lockToken = randomString(24);
  const leased = await services.db.transaction(async (tx) => {
    const [row] = await tx.select().from(topUps).where(eq(topUps.id, topUpId));
    if (!row) return null;
    if (row.status === "paid" || row.status === "failed") return row;
    if (row.lockedUntil && row.lockedUntil > now) return row;
    return (await takeLease(tx, topUpId, lockToken, now, options.leaseMs ?? DEFAULT_LEASE_MS)) ?? row;
  });
  if (!leased) return null;
  if (leased.lockToken !== lockToken) return currentResult(services.db, topUpId, true);
  return settleTopUp(services, leased, lockToken, true, options);
}

/**
 * The reconciler: settles purchases nobody came back for: unresolved ones left by a crash, a
 * timeout or an abandoned client, and ones awaiting a cardholder who may have finished on the
 * provider's page (or never will: after 23 hours they are cancelled). Each is settled exactly as
 * a retry with its reference would be, under its lease, so running it twice, on every instance,
 * or beside live traffic changes nothing more.
 *
 * A purchase is due once its lease is free, nobody touched it for minAgeMs, and its backoff
 * (next_attempt_at) has passed. Due purchases go oldest first in bounded batches; each unknown
 * answer pushes a purchase back by a doubling delay, so a stuck one cannot starve the rest.
 */
export async function reconcileTopUps(
  services: Services,
  options: PurchaseOptions & { limit?: number; minAgeMs?: number; ignoreBackoff?: boolean } = {},
): Promise<PurchaseResult[]> {
  const now = services.clock.now();
  const untouchedSince = new Date(now.getTime() - (options.minAgeMs ?? 0));
  const candidates = await services.db
    .select({ id: topUps.id })
    .from(topUps)
    .where(
      and(
        inArray(topUps.status, [...UNRESOLVED_STATUSES]),
        leaseIsFree(now),
        options.ignoreBackoff ? undefined : or(isNull(topUps.nextAttemptAt), lte(topUps.nextAttemptAt, now)),
        lte(topUps.updatedAt, untouchedSince),
      ),
    )
    .orderBy(asc(topUps.createdAt), asc(topUps.id))
    .limit(options.limit ?? RECONCILE_BATCH);
  const results: PurchaseResult[] = [];
  for (const { id } of candidates) {
    try {
      const result = await resolveTopUp(services, id, options);
      if (result) results.push(result);
    } catch (error) {
      // One purchase's database trouble must not stop the batch; its lease runs out by itself.
      console.error(`Reconciling ${id} failed:`, errorSummary(error));
    }
  }
  return results;
}

function errorSummary(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
