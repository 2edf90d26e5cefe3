import type { Metadata } from "next";
import { BalanceNotices } from "@/components/dashboard/balance-notices";
import { BillingProblemNotice } from "@/components/dashboard/billing-problem-notice";
import { BalanceCard } from "@/components/dashboard/overview/balance-card";
import { QuickLinks } from "@/components/dashboard/overview/quick-links";
import { RecentTopUps } from "@/components/dashboard/overview/recent-top-ups";
import { WaitingPurchaseNotice } from "@/components/dashboard/overview/waiting-purchase-notice";
import { PageHeader } from "@/components/ui/card";
import { dashboardContext } from "@/lib/dashboard/context";
import { loadOverviewPage } from "./load";

export const metadata: Metadata = { title: "Overview · Points" };

export default async function OverviewPage() {
  const context = await dashboardContext();
  const overview = await loadOverviewPage(context);

  return (
    <>
      <PageHeader title="Overview" description={`${context.organization.name}'s Points at a glance.`} />
      <div className="space-y-6">
        <BillingProblemNotice code={overview.billingProblem} provider={context.runtime.provider} />
        <BalanceNotices alerts={overview.balanceAlerts} isAdmin={overview.isAdmin} />
        {overview.waiting && <WaitingPurchaseNotice topUp={overview.waiting} />}
        <div className="grid gap-6 lg:grid-cols-3">
          <BalanceCard
            balances={overview.balances}
            alerts={overview.balanceAlerts}
            isAdmin={overview.isAdmin}
            nextExpiry={overview.nextExpiry}
          />
          <QuickLinks />
        </div>
        <RecentTopUps topUps={overview.recent} labels={overview.labels} />
      </div>
    </>
  );
}
