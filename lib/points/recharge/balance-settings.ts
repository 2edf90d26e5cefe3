import { eq } from "drizzle-orm";
import { BUNDLES, type Bundle } from "@/lib/catalog";
import { type Organization, organizations } from "@/lib/db/schema";
import { requireOrganization } from "../accounts/organizations";
import { PointsError } from "../errors";
import { emitSettingsChange } from "../events/events";
import type { Services } from "../services";

/** The largest threshold, level or cap: the database's integer. */
const MAX_SETTING = 2_147_483_647;

/** What Settings saves about the balance: the low-balance threshold and auto-recharge. */
export interface BalanceSettings {
  /** Below it, `balance.low` and a notice; null for none. */
  lowBalanceThreshold: number | null;
  autoRecharge: {
    enabled: boolean;
    /** Buy when the spendable balance falls below this. */
    below: number | null;
    points: Bundle | null;
    /** Points it may buy per calendar month (UTC); null for no cap. */
    monthlyMax: number | null;
  };
}

/** A new organisation's: no threshold, auto-recharge off. */
export const NO_BALANCE_SETTINGS: BalanceSettings = {
  lowBalanceThreshold: null,
  autoRecharge: { enabled: false, below: null, points: null, monthlyMax: null },
};

export function balanceSettingsOf(organization: Organization): BalanceSettings & { pausedReason: string | null } {
  return {
    lowBalanceThreshold: organization.lowBalanceThreshold,
    autoRecharge: {
      enabled: organization.autoRechargeEnabled,
      below: organization.autoRechargeBelow,
      points: (organization.autoRechargePoints as Bundle | null) ?? null,
      monthlyMax: organization.autoRechargeMonthlyMax,
    },
    pausedReason: organization.autoRechargePausedReason,
  };
}

const isCount = (value: number | null) =>
  value === null || (Number.isSafeInteger(value) && value >= 1 && value <= MAX_SETTING);

/** Every offending field at once, or nothing: the one check of these settings, for Settings and `org update`. */
export function checkBalanceSettings(input: BalanceSettings): void {
  const fields: Record<string, string> = {};
  const { autoRecharge } = input;
  if (!isCount(input.lowBalanceThreshold))
    fields.lowBalanceThreshold = "must be a whole number of Points above zero, or none";
  if (!isCount(autoRecharge.below)) fields.autoRechargeBelow = "must be a whole number of Points above zero";
  if (autoRecharge.points !== null && !(BUNDLES as readonly number[]).includes(autoRecharge.points)) {
    fields.autoRechargePoints = `must be one of the bundles ${BUNDLES.join(", ")}`;
  }
  if (!isCount(autoRecharge.monthlyMax))
    fields.autoRechargeMonthlyMax = "must be a whole number of Points above zero, or none";
  if (autoRecharge.enabled) {
    if (autoRecharge.below === null) fields.autoRechargeBelow ??= "is needed to turn auto-recharge on";
    if (autoRecharge.points === null) fields.autoRechargePoints ??= "is needed to turn auto-recharge on";
    if (
      autoRecharge.points !== null &&
      autoRecharge.monthlyMax !== null &&
      autoRecharge.monthlyMax < autoRecharge.points
    ) {
      fields.autoRechargeMonthlyMax ??= "must be at least the bundle, or no recharge could ever be bought";
    }
  }
  if (Object.keys(fields).length > 0) {
    throw new PointsError("invalid_request", "The balance settings are not valid; nothing was saved.", {
      details: { fields },
    });
  }
}

/**
 * Saves the low-balance threshold and auto-recharge. Saving resumes a paused auto-recharge: only
 * this, an admin's (or the operator's) deliberate save, ever does. Turning it off does not cancel a
 * purchase already sent. The change is `settings.updated` and an audit entry, in one transaction.
 */
export async function saveBalanceSettings(
  services: Services,
  organizationId: string,
  input: BalanceSettings,
): Promise<Organization> {
  checkBalanceSettings(input);
  const before = await requireOrganization(services.db, organizationId);
  const now = services.clock.now();
  return services.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(organizations)
      .set({
        lowBalanceThreshold: input.lowBalanceThreshold,
        autoRechargeEnabled: input.autoRecharge.enabled,
        autoRechargeBelow: input.autoRecharge.below,
        autoRechargePoints: input.autoRecharge.points,
        autoRechargeMonthlyMax: input.autoRecharge.monthlyMax,
        autoRechargePausedReason: null,
        updatedAt: now,
      })
      .where(eq(organizations.id, organizationId))
      .returning();
    if (!updated) throw new Error(`Organisation ${organizationId} vanished while saving its balance settings.`);
    return emitSettingsChange(tx, before, updated, now);
  });
}
