import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { organizations, type TopUp } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { recordAudit } from "../audit";
import { emitEvent, storedTopUp } from "../events/events";

/** Why auto-recharge paused: a failed recharge's code, `authentication_required`, or `disputed`. */
export interface Pause {
  organizationId: string;
  reason: string;
  /** The recharge behind it: the one that failed, or the one disputed. */
  topUp?: TopUp;
  /**
   * The crossing a failed recharge answered, marked answered by the same update, so however many
   * attempts meet the failure one pause is written. Without it (a dispute), auto-recharge pauses
   * if it is on and not paused already, and every crossing so far is answered: none buys on the card.
   */
  crossing?: number;
  now: Date;
}

/**
 * Pauses auto-recharge in the caller's transaction, once: `auto_recharge.failed` and an audit
 * entry. Only an admin saving the setting again resumes it. Answers whether it paused.
 */
export async function pauseAutoRecharge(tx: Db, pause: Pause): Promise<boolean> {
  const { organizationId, reason, topUp, crossing, now } = pause;
  const [paused] = await tx
    .update(organizations)
    .set({
      autoRechargeHandled: crossing ?? sql`${organizations.autoRechargeCrossings}`,
      autoRechargePausedReason: reason,
      updatedAt: now,
    })
    .where(
      and(
        eq(organizations.id, organizationId),
        crossing === undefined
          ? and(eq(organizations.autoRechargeEnabled, true), isNull(organizations.autoRechargePausedReason))
          : lt(organizations.autoRechargeHandled, crossing),
      ),
    )
    .returning({ id: organizations.id });
  if (!paused) return false;
  await emitEvent(
    tx,
    organizationId,
    "auto_recharge.failed",
    topUp ? { top_up: storedTopUp(topUp), reason } : { reason },
    now,
  );
  await recordAudit(tx, {
    organizationId,
    action: "auto_recharge.paused",
    target: organizationId,
    before: { auto_recharge_paused_reason: null },
    after: { auto_recharge_paused_reason: reason, top_up_id: topUp?.id ?? null },
    at: now,
  });
  log().warn(
    { event: "auto_recharge_paused", organization_id: organizationId, reason, top_up_id: topUp?.id ?? null },
    "Auto-recharge paused until an admin saves the setting again.",
  );
  return true;
}
