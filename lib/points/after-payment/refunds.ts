import { and, asc, eq, inArray, lte, notInArray } from "drizzle-orm";
import { withDeadline } from "@/lib/billing/deadline";
import type { ProviderRefund, RefundRefusal } from "@/lib/billing/provider";
import type { Db } from "@/lib/db/client";
import { pointsLedger, type Refund, refunds, type TopUp, topUps } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { log } from "@/lib/observability/log";
import { getPointsBalance } from "@/lib/points/balance/ledger";
import { PointsError } from "@/lib/points/errors";
import { assertChargedHere, chargedHereSql } from "@/lib/points/purchase/charged-by";
import type { Services } from "@/lib/points/services";
import { recordAudit } from "../audit";
import { applyRefunds } from "./apply-refunds";
import { paidTopUpOfPayment } from "./paid-top-up";
import { amountForPoints } from "./proportion";

const HOUR_MS = 60 * 60 * 1000;
/** Refunds whose Points are reserved against what is left to refund: all but those that moved no money. */
const LIVE_REFUND_STATUSES = ["requested", "pending", "succeeded"] as const;
/** Refunds that moved no money: their request name is free again (refunds_request_idx skips them). */
const SPENT_REFUND_STATUSES = ["failed", "canceled"] as const;

export interface RefundRequestInput {
  topUpId: string;
  /** Points to refund; omitted: every Point still refundable. */
  points?: number;
  reason?: string;
  /**
   * The operator's name for this request: the same key for the same top-up is the same refund,
   * however often it is run, unless the provider refused or canceled it: then the same key makes
   * a new attempt. Omitted: the Points asked for (`points:500`, or `points:rest`).
   */
  key?: string;
}

export interface RefundResult {
  refund: Refund;
  topUp: TopUp;
  /** succeeded: Points taken back; pending: the provider has yet to return the money; failed: nothing moved;
   *  unresolved: the provider did not answer, so it may have refunded: run the same request again. */
  outcome: "succeeded" | "pending" | "failed" | "unresolved";
  /** True when the request had been made before: this run refunded nothing new. */
  replayed: boolean;
  /** Points that could not be taken back because they had been spent (the balance never goes below zero). */
  shortfall: number;
  pointsBalance: number;
}

/**
 * Refunds a paid top-up, whole or in part by Points (the operator's `top-up refund`). The request
 * is recorded with the idempotency key it is sent under before the provider is called, so a
 * repeated command, a crash and a retry, or two operators at once refund once: each re-sends under
 * the same key and applies the one refund the provider made, and its Points are debited once (the
 * ledger's (kind, cause) is unique). A refund the provider refuses changes no Points, and frees its
 * name: the same request again is a new attempt, sent under a new key. Refused before anything is
 * recorded (billing_provider_mismatch) when another provider than this one charged the top-up.
 */
export async function refundTopUp(
  services: Services,
  input: RefundRequestInput,
  options: { afterProviderAnswer?(refund: Refund): Promise<void> } = {},
): Promise<RefundResult> {
  const { refund: requested, replayed } = await recordRequest(services, input);
  if (requested.appliedAt || requested.status === "failed" || requested.status === "canceled") {
    return resultOf(services, requested, replayed);
  }
  const [topUp] = await services.db.select().from(topUps).where(eq(topUps.id, requested.topUpId));
  if (!topUp?.providerPaymentId) throw new Error(`Top-up ${requested.topUpId} has no payment to refund.`);
  const paymentId = topUp.providerPaymentId;

  const ask = async (): Promise<ProviderRefund | RefundRefusal> => {
    // Past the provider's memory of the key, a re-send would refund again: look for it first.
    const age = services.clock.now().getTime() - requested.createdAt.getTime();
    if (age > services.provider.idempotencyKeyTtlMs - HOUR_MS) {
      const made = (await services.provider.listRefunds(paymentId)).find((refund) => refund.requestId === requested.id);
      if (made) return made;
    }
    return services.provider.refund({
      idempotencyKey: requested.providerIdempotencyKey ?? `refund_${requested.id}`,
      paymentId,
      amount: requested.amount,
      metadata: { refund_id: requested.id, top_up_id: topUp.id, points: String(requested.points) },
    });
  };
  let answer: ProviderRefund | RefundRefusal;
  try {
    answer = await withDeadline(ask(), services.provider.callBudgetMs);
  } catch (error) {
    log().warn(
      { event: "refund_unanswered", refund_id: requested.id, top_up_id: topUp.id },
      `refund ${requested.id} of top-up ${topUp.id}: the provider did not answer (${error instanceof Error ? error.message : String(error)}); the same request again refunds once.`,
    );
    return { ...(await resultOf(services, requested, replayed)), outcome: "unresolved" };
  }
  await options.afterProviderAnswer?.(requested);
  if ("refused" in answer) {
    const [failed] = await services.db
      .update(refunds)
      .set({ status: "failed", failureMessage: `${answer.message} (${answer.code})`, updatedAt: services.clock.now() })
      .where(and(eq(refunds.id, requested.id), eq(refunds.status, "requested")))
      .returning();
    return resultOf(services, failed ?? requested, replayed);
  }
  await applyRefunds(services, topUp.id, [answer], null);
  const [current] = await services.db.select().from(refunds).where(eq(refunds.id, requested.id));
  return resultOf(services, current ?? requested, replayed);
}

/** The request, recorded under the top-up's lock so that what is left to refund is counted once. */
async function recordRequest(
  services: Services,
  input: RefundRequestInput,
): Promise<{ refund: Refund; replayed: boolean }> {
  if (input.points !== undefined && (!Number.isInteger(input.points) || input.points <= 0)) {
    throw new PointsError("invalid_request", "Points to refund must be a whole number above zero.", {
      details: { fields: { points: "must be a whole number above zero" } },
    });
  }
  const requestKey = input.key ?? `points:${input.points ?? "rest"}`;
  const now = services.clock.now();
  return services.db.transaction(async (tx) => {
    const [topUp] = await tx.select().from(topUps).where(eq(topUps.id, input.topUpId)).for("update");
    if (!topUp) throw new PointsError("not_found", `No top-up ${input.topUpId}.`);
    assertChargedHere(services.provider, topUp, "refund");
    // A request the provider refused or canceled is kept, but does not answer for its name.
    const [existing] = await tx
      .select()
      .from(refunds)
      .where(
        and(
          eq(refunds.topUpId, topUp.id),
          eq(refunds.requestKey, requestKey),
          notInArray(refunds.status, [...SPENT_REFUND_STATUSES]),
        ),
      );
    if (existing) return { refund: existing, replayed: true };
    if (topUp.status !== "paid" || !topUp.providerPaymentId) {
      throw new PointsError(
        "invalid_request",
        `Top-up ${topUp.id} is ${topUp.status}: only a paid top-up can be refunded.`,
      );
    }
    const left = await refundable(tx, topUp);
    if (left.points <= 0) {
      throw new PointsError(
        "invalid_request",
        `Top-up ${topUp.id} has no Points left to refund${topUp.disputeId ? " (a dispute covers them)" : ""}.`,
      );
    }
    const points = input.points ?? left.points;
    if (points > left.points) {
      throw new PointsError(
        "invalid_request",
        `Top-up ${topUp.id} has ${left.points} Points left to refund, not ${points}.`,
        {
          details: { fields: { points: `at most ${left.points}` } },
        },
      );
    }
    const amount = amountForPoints(topUp, points, left);
    if (amount <= 0) {
      throw new PointsError(
        "invalid_request",
        `${points} Points of top-up ${topUp.id} are worth less than one minor unit: refund more.`,
        {
          details: { fields: { points: "too few to refund any money" } },
        },
      );
    }
    const id = newId("refund");
    const [refund] = await tx
      .insert(refunds)
      .values({
        id,
        organizationId: topUp.organizationId,
        topUpId: topUp.id,
        source: "operator",
        requestKey,
        providerIdempotencyKey: `refund_${id}`,
        points,
        amount,
        currency: topUp.currency,
        status: "requested",
        reason: input.reason ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!refund) throw new Error("The refund request was not recorded.");
    await recordAudit(tx, {
      organizationId: topUp.organizationId,
      action: "top_up.refund_requested",
      target: topUp.id,
      after: { refund_id: refund.id, points, amount, currency: topUp.currency, reason: refund.reason },
      at: now,
    });
    return { refund, replayed: false };
  });
}

/**
 * What is left to refund: the Points and money not taken by refunds that may still move money,
 * nor covered by a dispute (a disputed charge cannot be refunded).
 */
async function refundable(tx: Db, topUp: TopUp): Promise<{ points: number; amount: number }> {
  const live = await tx
    .select({ points: refunds.points, amount: refunds.amount })
    .from(refunds)
    .where(and(eq(refunds.topUpId, topUp.id), inArray(refunds.status, [...LIVE_REFUND_STATUSES])));
  const disputed = topUp.disputePointsState && topUp.disputePointsState !== "released" ? (topUp.disputePoints ?? 0) : 0;
  return {
    points: topUp.points - disputed - live.reduce((sum, row) => sum + row.points, 0),
    amount: topUp.amount - live.reduce((sum, row) => sum + row.amount, 0),
  };
}

/**
 * A payment's refunds may have changed (an event said so): asks the provider for them all and
 * applies what has not been. The event's own body is not trusted, and a replay applies nothing twice.
 */
export async function syncRefunds(
  services: Services,
  paymentId: string,
  eventId: string | null,
  options: { waitMs?: number } = {},
): Promise<{ result: "handled" | "unmatched" | "deferred"; detail: string }> {
  const found = await paidTopUpOfPayment(services, paymentId, options);
  if (found.kind !== "paid") return { result: found.kind, detail: found.reason };
  const provided = await services.provider.listRefunds(paymentId);
  const { applied, shortfall } = await applyRefunds(services, found.topUp.id, provided, eventId);
  return {
    result: "handled",
    detail: `top-up ${found.topUp.id}: ${applied} refund${applied === 1 ? "" : "s"} applied${shortfall ? `, ${shortfall} Points short` : ""}`,
  };
}

async function resultOf(services: Services, refund: Refund, replayed: boolean): Promise<RefundResult> {
  const [topUp] = await services.db.select().from(topUps).where(eq(topUps.id, refund.topUpId));
  if (!topUp) throw new Error(`Top-up ${refund.topUpId} vanished.`);
  const shortfall = await refundShortfall(services.db, refund);
  const outcomes: Record<string, RefundResult["outcome"]> = {
    succeeded: "succeeded",
    pending: "pending",
    failed: "failed",
    canceled: "failed",
  };
  const outcome = outcomes[refund.status] ?? "unresolved";
  return {
    refund,
    topUp,
    outcome,
    replayed,
    shortfall,
    pointsBalance: await getPointsBalance(services.db, topUp.organizationId),
  };
}

async function refundShortfall(db: Db, refund: Refund): Promise<number> {
  if (!refund.providerRefundId || !refund.appliedAt) return 0;
  const [row] = await db
    .select({ shortfall: pointsLedger.shortfall })
    .from(pointsLedger)
    .where(and(eq(pointsLedger.kind, "refund"), eq(pointsLedger.causeId, refund.providerRefundId)))
    .orderBy(asc(pointsLedger.createdAt));
  return row?.shortfall ?? 0;
}

/**
 * Refund requests left unanswered (a timeout, a crash before the answer), re-sent under their own
 * key: the provider refunds once, and its answer is applied as the request's. Run by `reconcile`.
 * Those of top-ups another provider charged are left for a run with that provider.
 */
export async function retryRequestedRefunds(
  services: Services,
  options: { minAgeMs: number },
): Promise<RefundResult[]> {
  const cutoff = new Date(services.clock.now().getTime() - options.minAgeMs);
  const waiting = await services.db
    .select({ topUpId: refunds.topUpId, requestKey: refunds.requestKey })
    .from(refunds)
    .innerJoin(topUps, eq(topUps.id, refunds.topUpId))
    .where(and(eq(refunds.status, "requested"), lte(refunds.createdAt, cutoff), chargedHereSql(services.provider)))
    .orderBy(asc(refunds.createdAt))
    .limit(50);
  const results: RefundResult[] = [];
  for (const { topUpId, requestKey } of waiting) {
    if (requestKey) results.push(await refundTopUp(services, { topUpId, key: requestKey }));
  }
  return results;
}
