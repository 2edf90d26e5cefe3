import { balancesOfRender } from "@/lib/dashboard/balances";
import type { DashboardContext } from "@/lib/dashboard/context";
import type { TopUp } from "@/lib/db/schema";
import type { Balances } from "@/lib/points/after-payment/view";
import { type ExpiringPoints, readLots } from "@/lib/points/balance/balance";
import type { BillingProblemCode } from "@/lib/points/cards/billing-problems";
import { currentBillingProblem } from "@/lib/points/cards/billing-status";
import { type BalanceAlerts, loadBalanceAlerts } from "@/lib/points/recharge/load-balance-alerts";
import { listTopUps, paymentMethodLabels } from "@/lib/points/views/history";

/** What the Overview shows: it has one state, whatever the provider answers. */
export interface OverviewPageState {
  isAdmin: boolean;
  /** The five most recent top-ups. */
  recent: TopUp[];
  /** The newest purchase waiting for the cardholder, if one is. */
  waiting: TopUp | undefined;
  labels: Map<string, string>;
  billingProblem: BillingProblemCode | null;
  balances: Balances;
  balanceAlerts: BalanceAlerts;
  /** The next Points to expire within 60 days, as spends would use them; undefined when none do. */
  nextExpiry: ExpiringPoints | undefined;
}

export async function loadOverviewPage({ user, runtime, organization }: DashboardContext): Promise<OverviewPageState> {
  const [recent, awaiting, labels, billingProblem, balances, balanceAlerts, lots] = await Promise.all([
    listTopUps(runtime.db, organization.id, { limit: 5 }),
    listTopUps(runtime.db, organization.id, { status: "awaiting_payment", limit: 1 }),
    paymentMethodLabels(runtime, organization),
    currentBillingProblem(runtime, organization),
    balancesOfRender(organization.id),
    loadBalanceAlerts(runtime.db, organization, runtime.clock.now()),
    readLots(runtime.db, organization.id, runtime.clock.now()),
  ]);
  return {
    isAdmin: user.role === "admin",
    recent: recent.topUps,
    waiting: awaiting.topUps[0],
    labels,
    billingProblem,
    balances,
    balanceAlerts,
    nextExpiry: lots.expiring[0],
  };
}
