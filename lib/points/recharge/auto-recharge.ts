import { and, eq, gt, gte, inArray, lt, sql } from "drizzle-orm";
import { type Bundle, RECHARGE_REFERENCE_PREFIX } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { type Organization, organizations, type TopUp, topUps } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { getOrganization } from "../accounts/organizations";
import { PointsError } from "../errors";
import { purchasePoints } from "../purchase";
import type { Services } from "../services";
import { pauseAutoRecharge } from "./auto-recharge-pause";

/**
 * Auto-recharge (docs/contract.md §9): when a spend, a refund or a dispute takes the spendable
 * balance below the organisation's level, one purchase of its bundle on the default payment
 * method, through the purchase function with every limit, the lease and recovery.
 *
 * Exactly once per crossing: the crossing is counted on the organisation's row in the transaction
 * that crossed (ledger.ts), and its purchase's reference is derived from that count, so a retry, a
 * second instance or the reconciler after a crash all find the same purchase. It runs after that
 * transaction commits, never inside the request that crossed.
 */

/** Statuses that count toward the month's cap: bought, or possibly being bought. */
const COUNTED_STATUSES = ["paid", "processing", "awaiting_payment"] as const;

/**
 * Recharges one organisation may make in any rolling hour, whatever its monthly cap: a backstop
 * against a card charged again and again (docs/contract.md §9). A crossing past it waits, and is
 * bought by the reconciler once the hour allows.
 */
export const RECHARGES_PER_HOUR = 3;
const HOUR_MS = 60 * 60 * 1000;

/**
 * The reference of the purchase that answers crossing `n`. Clients may not write this prefix
 * (top-up-request.ts); a client's purchase made before that rule holds `auto-recharge:N` in some
 * databases, and the recharge then takes `auto-recharge:N:recharge` instead.
 */
export function rechargeReference(crossing: number, clientHoldsIt = false): string {
  return `${RECHARGE_REFERENCE_PREFIX}${crossing}${clientHoldsIt ? ":recharge" : ""}`;
}

/** The start of the calendar month (UTC) that `now` is in. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** Points auto-recharge bought (or is buying) in `now`'s calendar month, UTC. */
export async function rechargedThisMonth(db: Db, organizationId: string, now: Date): Promise<number> {
  const start = monthStart(now);
  const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  const [row] = await db
    .select({ points: sql<string>`coalesce(sum(${topUps.points}), 0)` })
    .from(topUps)
    .where(
      and(
        eq(topUps.organizationId, organizationId),
        eq(topUps.source, "auto_recharge"),
        inArray(topUps.status, [...COUNTED_STATUSES]),
        gte(topUps.createdAt, start),
        lt(topUps.createdAt, end),
      ),
    );
  return Number(row?.points ?? 0);
}

/** Recharges made in the hour before `now`, whatever became of them. */
async function rechargesInLastHour(db: Db, organizationId: string, now: Date): Promise<number> {
  const [row] = await db
    .select({ count: sql<string>`count(*)` })
    .from(topUps)
    .where(
      and(
        eq(topUps.organizationId, organizationId),
        eq(topUps.source, "auto_recharge"),
        gt(topUps.createdAt, new Date(now.getTime() - HOUR_MS)),
      ),
    );
  return Number(row?.count ?? 0);
}

export type RechargeOutcome =
  | { kind: "none" }
  | { kind: "bought"; topUp: TopUp }
  | { kind: "capped"; boughtThisMonth: number }
  | { kind: "paused"; reason: string; topUp?: TopUp }
  | { kind: "pending"; why: string }
  | { kind: "skipped" };

/** A recharge its guard refused, with what runDueRecharge answers for it. */
class RechargeRefused extends Error {
  constructor(readonly outcome: Extract<RechargeOutcome, { kind: "capped" | "pending" | "skipped" }>) {
    super(`Auto-recharge refused: ${outcome.kind}.`);
  }
}

/**
 * The rules of a new recharge, checked on the organisation's locked row in the transaction that
 * records it (purchase/start.ts), so two crossings on two instances cannot both pass the cap: the
 * second counts the first's purchase, `processing` from its commit. Still on and not paused (a
 * dispute may have paused it meanwhile), within the month's cap, and within the hour's limit.
 */
function rechargeGuard(bundle: Bundle) {
  return async (tx: Db, org: Organization, now: Date): Promise<void> => {
    if (!org.autoRechargeEnabled || org.autoRechargePausedReason !== null) {
      throw new RechargeRefused({ kind: "skipped" });
    }
    if (org.autoRechargeMonthlyMax !== null) {
      const bought = await rechargedThisMonth(tx, org.id, now);
      if (bought + bundle > org.autoRechargeMonthlyMax) {
        throw new RechargeRefused({ kind: "capped", boughtThisMonth: bought });
      }
    }
    if ((await rechargesInLastHour(tx, org.id, now)) >= RECHARGES_PER_HOUR) {
      throw new RechargeRefused({ kind: "pending", why: "hourly_limit" });
    }
  };
}

/**
 * Answers the organisation's latest crossing, if it has not been answered: buys its bundle, or
 * finds the purchase an earlier attempt made. Earlier crossings still unanswered (the balance went
 * up and down again before a recharge ran) are answered by the same one purchase. A purchase whose
 * outcome is not known yet, or one the hour's limit holds back, leaves the crossing pending, for
 * the next attempt or the reconciler.
 */
export async function runDueRecharge(services: Services, organizationId: string): Promise<RechargeOutcome> {
  const organization = await getOrganization(services.db, organizationId);
  if (!organization || organization.autoRechargeCrossings <= organization.autoRechargeHandled) return { kind: "none" };
  const crossing = organization.autoRechargeCrossings;
  const bundle = organization.autoRechargePoints as Bundle | null;
  if (!organization.autoRechargeEnabled || organization.autoRechargePausedReason !== null || bundle === null) {
    await markHandled(services.db, organizationId, crossing);
    return { kind: "skipped" };
  }
  const reference = await referenceFor(services.db, organizationId, crossing);
  let result: Awaited<ReturnType<typeof purchasePoints>>;
  try {
    result = await purchasePoints(services, {
      organization,
      request: { points: bundle, reference },
      source: "auto_recharge",
      guard: rechargeGuard(bundle),
    });
  } catch (error) {
    if (error instanceof RechargeRefused) return refused(services, organizationId, crossing, error.outcome);
    if (!(error instanceof PointsError)) throw error;
    if (isPassing(error)) return { kind: "pending", why: error.code };
    return pause(services, organization, crossing, error.code);
  }
  switch (result.outcome) {
    case "paid":
    case "paid_now":
      await markHandled(services.db, organizationId, crossing);
      return { kind: "bought", topUp: result.topUp };
    case "failed":
      return pause(services, organization, crossing, result.topUp.failureCode ?? "payment_failed", result.topUp);
    case "awaiting_payment":
      return pause(services, organization, crossing, "authentication_required", result.topUp);
    case "reference_conflict":
      return pause(services, organization, crossing, "reference_conflict", result.topUp);
    default:
      return { kind: "pending", why: result.outcome };
  }
}

/** What a refused recharge leaves: the crossing answered (capped, or off meanwhile), or pending. */
async function refused(
  services: Services,
  organizationId: string,
  crossing: number,
  outcome: RechargeRefused["outcome"],
): Promise<RechargeOutcome> {
  if (outcome.kind === "pending") {
    log().info(
      { event: "auto_recharge_waiting", organization_id: organizationId, per_hour: RECHARGES_PER_HOUR },
      "Auto-recharge waits: the hour's recharges are made; the reconciler buys once the hour allows.",
    );
    return outcome;
  }
  await markHandled(services.db, organizationId, crossing);
  if (outcome.kind === "capped") {
    log().info(
      { event: "auto_recharge_capped", organization_id: organizationId, bought_this_month: outcome.boughtThisMonth },
      "Auto-recharge skipped: the month's cap is reached.",
    );
  }
  return outcome;
}

/** Refusals that pass by themselves: the crossing stays pending for the next attempt. */
function isPassing(error: PointsError): boolean {
  return [
    "purchase_in_progress",
    "payment_methods_unavailable",
    "database_unavailable",
    "frequency_limit_reached",
    "daily_limit_reached",
  ].includes(error.code);
}

/** The crossing's reference: its own, unless a client's purchase from before the prefix was refused holds it. */
async function referenceFor(db: Db, organizationId: string, crossing: number): Promise<string> {
  const [found] = await db
    .select({ source: topUps.source })
    .from(topUps)
    .where(and(eq(topUps.organizationId, organizationId), eq(topUps.reference, rechargeReference(crossing))));
  return rechargeReference(crossing, found !== undefined && found.source !== "auto_recharge");
}

async function markHandled(db: Db, organizationId: string, crossing: number): Promise<boolean> {
  const updated = await db
    .update(organizations)
    .set({ autoRechargeHandled: crossing })
    .where(and(eq(organizations.id, organizationId), lt(organizations.autoRechargeHandled, crossing)))
    .returning({ id: organizations.id });
  return updated.length > 0;
}

/** Pauses auto-recharge for this crossing's failed recharge, once however many attempts meet it. */
async function pause(
  services: Services,
  organization: Organization,
  crossing: number,
  reason: string,
  topUp?: TopUp,
): Promise<RechargeOutcome> {
  const now = services.clock.now();
  await services.db.transaction((tx) =>
    pauseAutoRecharge(tx, { organizationId: organization.id, reason, topUp, crossing, now }),
  );
  return { kind: "paused", reason, topUp };
}

/** The reconciler's part: every organisation with a crossing not answered yet, a batch at a time. */
export async function rechargeDueOrganizations(services: Services, batch = 50): Promise<number> {
  const due = await services.db
    .select({ id: organizations.id })
    .from(organizations)
    .where(gt(organizations.autoRechargeCrossings, organizations.autoRechargeHandled))
    .limit(batch);
  for (const { id } of due) await rechargeAfterSpend(services, id);
  return due.length;
}

/**
 * Hands the recharge a crossing calls for to `services.defer`, to run once the change that crossed
 * has committed (after the answer is sent); without one, the reconciler runs it within a minute.
 */
export function deferRecharge(services: Services, organizationId: string): void {
  services.defer?.(() => rechargeAfterSpend(services, organizationId));
}

/**
 * The recharge a spend's crossing calls for, run after its answer is sent: failures are logged and
 * left to the reconciler, which finds the crossing still unanswered.
 */
export async function rechargeAfterSpend(services: Services, organizationId: string): Promise<void> {
  try {
    await runDueRecharge(services, organizationId);
  } catch (error) {
    log().error(
      { event: "auto_recharge_failed_to_run", organization_id: organizationId, error: String(error) },
      "Auto-recharge could not run; the reconciler tries again.",
    );
  }
}
