import type { DashboardContext } from "@/lib/dashboard/context";
import { getSettings, type SettingsView } from "@/lib/points/cards/settings";
import { type BalanceAlerts, loadBalanceAlerts } from "@/lib/points/recharge/load-balance-alerts";

/**
 * What Settings shows: it has one state. When the provider cannot list the cards, or refuses the
 * organisation, the settings say so themselves (paymentMethods null, billingProblem set).
 */
export interface SettingsPageState {
  settings: SettingsView;
  balanceAlerts: BalanceAlerts;
  canEdit: boolean;
}

export async function loadSettingsPage({ user, runtime, organization }: DashboardContext): Promise<SettingsPageState> {
  const [settings, balanceAlerts] = await Promise.all([
    getSettings(runtime, user.organizationId),
    loadBalanceAlerts(runtime.db, organization, runtime.clock.now()),
  ]);
  return { settings, balanceAlerts, canEdit: user.role === "admin" };
}
