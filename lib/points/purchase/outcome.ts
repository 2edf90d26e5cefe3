import { eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { type TopUp, topUps } from "@/lib/db/schema";
import { getPointsBalance } from "../balance/ledger";

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

export function outcomeOf(topUp: TopUp): PurchaseOutcome {
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

export async function currentResult(db: Db, topUpId: string, replayed: boolean): Promise<PurchaseResult> {
  const [topUp] = await db.select().from(topUps).where(eq(topUps.id, topUpId));
  if (!topUp) throw new Error(`Top-up ${topUpId} vanished.`);
  return {
    outcome: outcomeOf(topUp),
    topUp,
    pointsBalance: await getPointsBalance(db, topUp.organizationId),
    replayed,
  };
}

export function errorSummary(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
