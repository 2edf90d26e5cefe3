import { and, eq, gt, gte, inArray, lt, sql } from "drizzle-orm";
import type { Bundle } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { type Organization, organizations, type TopUp, topUps } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { recordAudit } from "./audit";
import { PointsError } from "./errors";
import { emitEvent } from "./events";
import { getOrganization } from "./organizations";
import { purchasePoints } from "./purchase";
import type { Services } from "./services";
import { toTopUpJson } from "./top-up-json";

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

/** The reference of the purchase that answers crossing `n`. */
export function rechargeReference(crossing: number): string {
  return `auto-recharge:${crossing}`;
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

export type RechargeOutcome =
  | { kind: "none" }
  | { kind: "bought"; topUp: TopUp }
  | { kind: "capped"; boughtThisMonth: number }
  | { kind: "paused"; reason: string; topUp?: TopUp }
  | { kind: "pending"; why: string }
  | { kind: "skipped" };

/**
 * Answers the organisation's latest crossing, if it has not been answered: buys its bundle, or
 * finds the purchase an earlier attempt made. Earlier crossings still unanswered (the balance went
 * up and down again before a recharge ran) are answered by the same one purchase. A purchase whose
 * outcome is not known yet leaves the crossing pending, for the next attempt or the reconciler.
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
  const reference = rechargeReference(crossing);
  const now = services.clock.now();
  const existing = await findRecharge(services.db, organizationId, reference);
  if (!existing && organization.autoRechargeMonthlyMax !== null) {
    const bought = await rechargedThisMonth(services.db, organizationId, now);
    if (bought + bundle > organization.autoRechargeMonthlyMax) {
      await markHandled(services.db, organizationId, crossing);
      log().info(
        { event: "auto_recharge_capped", organization_id: organizationId, bought_this_month: bought },
        "Auto-recharge skipped: the month's cap is reached.",
      );
      return { kind: "capped", boughtThisMonth: bought };
    }
  }
  let result: Awaited<ReturnType<typeof purchasePoints>>;
  try {
    result = await purchasePoints(services, {
      organization,
      request: { points: bundle, reference },
      source: "auto_recharge",
    });
  } catch (error) {
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

async function findRecharge(db: Db, organizationId: string, reference: string): Promise<TopUp | undefined> {
  const [found] = await db
    .select()
    .from(topUps)
    .where(and(eq(topUps.organizationId, organizationId), eq(topUps.reference, reference)));
  return found;
}

async function markHandled(db: Db, organizationId: string, crossing: number): Promise<boolean> {
  const updated = await db
    .update(organizations)
    .set({ autoRechargeHandled: crossing })
    .where(and(eq(organizations.id, organizationId), lt(organizations.autoRechargeHandled, crossing)))
    .returning({ id: organizations.id });
  return updated.length > 0;
}

/**
 * Pauses auto-recharge once for this crossing: `auto_recharge.failed` and an audit entry, in the
 * transaction that marks the crossing answered, so however many attempts meet the failure, one
 * event is written. Only an admin saving the setting again resumes it.
 */
async function pause(
  services: Services,
  organization: Organization,
  crossing: number,
  reason: string,
  topUp?: TopUp,
): Promise<RechargeOutcome> {
  const now = services.clock.now();
  await services.db.transaction(async (tx) => {
    const [paused] = await tx
      .update(organizations)
      .set({ autoRechargeHandled: crossing, autoRechargePausedReason: reason, updatedAt: now })
      .where(and(eq(organizations.id, organization.id), lt(organizations.autoRechargeHandled, crossing)))
      .returning({ id: organizations.id });
    if (!paused) return;
    await emitEvent(
      tx,
      organization.id,
      "auto_recharge.failed",
      topUp ? { top_up: toTopUpJson(topUp), reason } : { reason },
      now,
    );
    await recordAudit(tx, {
      organizationId: organization.id,
      action: "auto_recharge.paused",
      target: organization.id,
      before: { auto_recharge_paused_reason: null },
      after: { auto_recharge_paused_reason: reason, top_up_id: topUp?.id ?? null },
      at: now,
    });
  });
  log().warn(
    { event: "auto_recharge_paused", organization_id: organization.id, reason, top_up_id: topUp?.id ?? null },
    "Auto-recharge paused until an admin saves the setting again.",
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
