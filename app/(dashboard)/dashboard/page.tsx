import type { Metadata } from "next";
import Link from "next/link";
import { autoRechargeLine, BalanceNotices } from "@/components/dashboard/balance-notices";
import { BillingProblemNotice } from "@/components/dashboard/billing-problem-notice";
import { HistoryTable } from "@/components/dashboard/history-table";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { balancesOfRender } from "@/lib/dashboard/balances";
import { dashboardContext } from "@/lib/dashboard/context";
import { formatPoints } from "@/lib/format";
import { heldPointsText } from "@/lib/points/after-payment/view";
import { currentBillingProblem } from "@/lib/points/cards/billing-status";
import { loadBalanceAlerts } from "@/lib/points/recharge/load-balance-alerts";
import { listTopUps, paymentMethodLabels } from "@/lib/points/views/history";

export const metadata: Metadata = { title: "Overview · Points" };

const QUICK_LINKS = [
  ["/dashboard/buy", "Buy Points", "Choose a bundle and pay with a saved card."],
  ["/dashboard/history", "History", "Every top-up, with filters and CSV export."],
  ["/dashboard/payment-details", "Payment details", "Saved cards and their IDs for the API."],
  ["/dashboard/api-keys", "API keys", "Create and revoke keys for POST /v3/points/top-ups."],
] as const;

export default async function OverviewPage() {
  const { user, runtime, organization } = await dashboardContext();
  const [recent, awaiting, labels, billingProblem, balances, balanceAlerts] = await Promise.all([
    listTopUps(runtime.db, organization.id, { limit: 5 }),
    listTopUps(runtime.db, organization.id, { status: "awaiting_payment", limit: 1 }),
    paymentMethodLabels(runtime, organization),
    currentBillingProblem(runtime, organization),
    balancesOfRender(organization.id),
    loadBalanceAlerts(runtime.db, organization, runtime.clock.now()),
  ]);
  const waiting = awaiting.topUps[0];
  const rechargeLine = autoRechargeLine(balanceAlerts);

  return (
    <>
      <PageHeader title="Overview" description={`${organization.name}'s Points at a glance.`} />
      <div className="space-y-6">
        <BillingProblemNotice code={billingProblem} provider={runtime.provider} />
        <BalanceNotices alerts={balanceAlerts} isAdmin={user.role === "admin"} />
        {waiting && (
          <Alert tone="warning" title="A purchase is waiting for the cardholder">
            {formatPoints(waiting.points)} Points ({waiting.reference}) are added once the payment is authenticated.{" "}
            <Link href={`/dashboard/history/${waiting.id}`} className="font-semibold underline">
              Complete payment
            </Link>
          </Alert>
        )}
        <div className="grid gap-6 lg:grid-cols-3">
          <section
            aria-labelledby="balance-title"
            className="flex flex-col justify-between gap-6 rounded-xl bg-gradient-to-br from-indigo-600 to-indigo-800 p-6 text-white shadow-sm lg:col-span-1"
          >
            <div>
              <h2 id="balance-title" className="text-sm font-medium uppercase tracking-wide text-indigo-100">
                Points balance
              </h2>
              <p className="mt-2 text-5xl font-semibold tabular-nums" data-testid="overview-balance">
                {formatPoints(balances.pointsBalance)}
              </p>
              <p className="mt-1 text-sm text-indigo-100">Points available to your organisation</p>
              {rechargeLine && (
                <p className="mt-3 text-sm text-white" data-testid="overview-auto-recharge">
                  {rechargeLine}
                </p>
              )}
              {balances.heldPoints > 0 && (
                <p className="mt-3 rounded-md bg-white/10 px-3 py-2 text-sm text-white" data-testid="overview-held">
                  <span className="font-semibold tabular-nums">{heldPointsText(balances)}</span>, apart from the
                  balance: they cannot be spent until it is settled, and come back if it is won.{" "}
                  <Link href="/dashboard/history?after=disputed" className="font-semibold underline">
                    Disputed purchases
                  </Link>
                </p>
              )}
            </div>
            {user.role === "admin" && (
              <Link
                href="/dashboard/buy"
                className="inline-flex w-fit items-center rounded-md bg-white px-3.5 py-2 text-sm font-semibold text-indigo-700 shadow-sm hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
              >
                Buy Points
              </Link>
            )}
          </section>
          <nav aria-label="Quick links" className="grid gap-3 sm:grid-cols-2 lg:col-span-2">
            {QUICK_LINKS.map(([href, title, text]) => (
              <Link
                key={href}
                href={href}
                className="group rounded-xl border border-slate-200 bg-white p-4 shadow-sm hover:border-indigo-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
              >
                <span className="flex items-center justify-between text-sm font-semibold text-slate-900">
                  {title}
                  <span aria-hidden="true" className="text-slate-400 group-hover:text-indigo-600">
                    →
                  </span>
                </span>
                <span className="mt-1 block text-sm text-slate-600">{text}</span>
              </Link>
            ))}
          </nav>
        </div>
        <Card
          title="Recent top-ups"
          actions={
            <Link href="/dashboard/history" className={buttonClasses("secondary")}>
              View all
            </Link>
          }
        >
          <HistoryTable
            items={recent.topUps.map((topUp) => ({ kind: "top_up", topUp }))}
            labels={labels}
            caption="The five most recent top-ups"
            emptyMessage="No top-ups yet. Buy Points here, or through the API with one of your keys."
          />
        </Card>
      </div>
    </>
  );
}
