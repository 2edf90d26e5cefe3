import { eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { type Organization, organizations } from "@/lib/db/schema";
import { rechargedThisMonth } from "./auto-recharge";
import { isCapReached, isLowBalance } from "./balance-alerts";
import { type BalanceSettings, balanceSettingsOf } from "./balance-settings";

/** Everything the dashboard shows about the balance settings, read once per page. */
export interface BalanceAlerts {
  pointsBalance: number;
  lowBalanceThreshold: number | null;
  low: boolean;
  autoRecharge: BalanceSettings["autoRecharge"] & {
    pausedReason: string | null;
    /** Points auto-recharge bought (or is buying) this calendar month, UTC. */
    boughtThisMonth: number;
    capReached: boolean;
  };
}

/** The organisation's balance settings, its balance as stored on the row, and the month's recharges. */
export async function loadBalanceAlerts(db: Db, organization: Organization, now: Date): Promise<BalanceAlerts> {
  const settings = balanceSettingsOf(organization);
  const { autoRecharge } = settings;
  const boughtThisMonth = await rechargedThisMonth(db, organization.id, now);
  return {
    pointsBalance: organization.pointsBalance,
    lowBalanceThreshold: settings.lowBalanceThreshold,
    low: isLowBalance(organization.pointsBalance, settings.lowBalanceThreshold),
    autoRecharge: {
      ...autoRecharge,
      pausedReason: settings.pausedReason,
      boughtThisMonth,
      capReached: isCapReached(boughtThisMonth, autoRecharge.points, autoRecharge.monthlyMax),
    },
  };
}

/** The low-balance threshold alone, for the header beside the balance; null for none (or no organisation). */
export async function lowBalanceThresholdOf(db: Db, organizationId: string): Promise<number | null> {
  const [row] = await db
    .select({ threshold: organizations.lowBalanceThreshold })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return row?.threshold ?? null;
}
