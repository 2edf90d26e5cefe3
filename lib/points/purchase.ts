import { and, eq, inArray, isNull, lte, or } from "drizzle-orm";
import type { ChargeOutcome } from "@/lib/billing/provider";
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
}

/** Thrown by a test's afterPhase hook: the request stops as if the process died (no lease release). */
export class SimulatedCrash extends Error {
  constructor(phase: PurchasePhase) {
    super(`Simulated crash after ${phase}`);
    this.name = "SimulatedCrash";
  }
}

export const DEFAULT_LEASE_MS = 90_000;

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
  const currency = resolveCurrency(organization, request.currency);
  const methods = await listUsablePaymentMethods(services, organization);
  const paymentMethod = resolvePaymentMethod(methods, request.paymentSourceId);
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
        existing.paymentSourceId !== paymentMethod.id
      ) {
        return replay("reference_conflict");
      }
      if (existing.status === "paid") return replay("paid");
      if (existing.status === "failed") return replay("failed");
      if (existing.lockedUntil && existing.lockedUntil > now) return replay("purchase_in_progress");
      const [leased] = await tx
        .update(topUps)
        .set({
          lockToken,
          lockedUntil: new Date(now.getTime() + leaseMs),
          attempts: existing.attempts + 1,
          updatedAt: now,
        })
        .where(eq(topUps.id, existing.id))
        .returning();
      return { kind: "work", topUp: leased ?? existing, replayed: true } satisfies Started;
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
        paymentSourceId: paymentMethod.id,
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
  await options.afterPhase?.("recorded", started.topUp);
  return settleTopUp(services, started.topUp, lockToken, started.replayed, options);
}

type Started =
  | { kind: "answer"; result: PurchaseResult }
  | { kind: "work"; topUp: TopUp; replayed: boolean };

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

    const outcome = await askProvider(services, topUp);
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
 * P3. A purchase whose payment the provider already named is asked about, never charged again;
 * otherwise the charge is sent under the purchase's own idempotency key, so a re-send after a
 * crash or timeout is answered with the same payment. Any error means "unknown": it stays processing.
 */
async function askProvider(services: Services, topUp: TopUp): Promise<ChargeOutcome> {
  try {
    if (topUp.providerPaymentId) return await services.provider.retrievePayment(topUp.providerPaymentId);
    return await services.provider.charge({
      idempotencyKey: topUp.providerIdempotencyKey,
      customerId: topUp.billingCustomerId,
      paymentMethodId: topUp.paymentSourceId,
      amount: topUp.amount,
      currency: topUp.currency as Currency,
      metadata: { top_up_id: topUp.id, organization_id: topUp.organizationId, reference: topUp.reference },
    });
  } catch (error) {
    console.warn(`Payment outcome of ${topUp.id} is unknown; it stays processing.`, errorSummary(error));
    return { status: "processing", paymentId: null };
  }
}

/** P4: the provider's answer and, for a payment that succeeded, the credit, in one transaction. */
async function recordOutcome(
  services: Services,
  topUp: TopUp,
  lockToken: string,
  outcome: ChargeOutcome,
  replayed: boolean,
): Promise<PurchaseResult> {
  const now = services.clock.now();
  const recorded = await services.db.transaction(async (tx) => {
    // Lock order everywhere is organisation, then top-up: no deadlock with the P1 transaction.
    const [org] = await tx
      .select({ pointsBalance: organizations.pointsBalance })
      .from(organizations)
      .where(eq(organizations.id, topUp.organizationId))
      .for("update");
    const [updated] = await tx
      .update(topUps)
      .set({
        ...statusChange(topUp, outcome, now),
        providerPaymentId: outcome.paymentId ?? topUp.providerPaymentId,
        lockToken: null,
        lockedUntil: null,
        updatedAt: now,
      })
      .where(
        and(
          eq(topUps.id, topUp.id),
          eq(topUps.lockToken, lockToken),
          inArray(topUps.status, [...UNRESOLVED_STATUSES]),
        ),
      )
      .returning();
    if (!updated) return null; // The lease ran out and another request owns the purchase now.
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
      return { status: "paid", paidAt: now, failureCode: null, failureMessage: null };
    case "failed":
      return { status: "failed", failureCode: outcome.code, failureMessage: outcome.message };
    case "requires_action":
      return { status: "awaiting_payment", failureCode: outcome.code, failureMessage: outcome.message };
    case "processing":
      // An unknown answer changes nothing we knew: awaiting_payment has no edge back to processing.
      return { status: topUp.status === "awaiting_payment" ? "awaiting_payment" : "processing" };
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
    const [row] = await tx.select().from(topUps).where(eq(topUps.id, topUpId)).for("update");
    if (!row) return null;
    if (row.status === "paid" || row.status === "failed") return row;
    if (row.lockedUntil && row.lockedUntil > now) return row;
    const [taken] = await tx
      .update(topUps)
      .set({
        lockToken,
        lockedUntil: new Date(now.getTime() + (options.leaseMs ?? DEFAULT_LEASE_MS)),
        attempts: row.attempts + 1,
        updatedAt: now,
      })
      .where(eq(topUps.id, topUpId))
      .returning();
    return taken ?? row;
  });
  if (!leased) return null;
  if (leased.lockToken !== lockToken) {
    return { outcome: outcomeOf(leased), topUp: leased, pointsBalance: await getPointsBalance(services.db, leased.organizationId), replayed: true };
  }
  return settleTopUp(services, leased, lockToken, true, options);
}

/**
 * The reconciler: resolves purchases left unresolved by a crash or an abandoned client. Each
 * one whose lease has run out (and, with minAgeMs, that nobody touched for that long) is settled
 * exactly as a retry with its reference would be, so running it twice, or beside live traffic,
 * changes nothing more.
 */
export async function reconcileTopUps(
  services: Services,
  options: PurchaseOptions & { limit?: number; minAgeMs?: number } = {},
): Promise<PurchaseResult[]> {
  const now = services.clock.now();
  const untouchedSince = new Date(now.getTime() - (options.minAgeMs ?? 0));
  const candidates = await services.db
    .select({ id: topUps.id })
    .from(topUps)
    .where(
      and(
        inArray(topUps.status, ["pending", "processing"]),
        or(isNull(topUps.lockedUntil), lte(topUps.lockedUntil, now)),
        lte(topUps.updatedAt, untouchedSince),
      ),
    )
    .limit(options.limit ?? 500);
  const results: PurchaseResult[] = [];
  for (const { id } of candidates) {
    const result = await resolveTopUp(services, id, options);
    if (result) results.push(result);
  }
  return results;
}

function errorSummary(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
