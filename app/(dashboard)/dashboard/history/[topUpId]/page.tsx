import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { BuyAuthenticationForm } from "@/components/dashboard/buy-authentication-form";
import { BuyOutcome, type PurchaseArrival } from "@/components/dashboard/buy-outcome";
import { BuyPurchaseForm } from "@/components/dashboard/buy-purchase-form";
import { BuySteps } from "@/components/dashboard/buy-steps";
import { SourceBadge } from "@/components/dashboard/history-table";
import { StatusBadge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { dashboardContext } from "@/lib/dashboard/context";
import { formatDateTime, formatMoney, formatPoints } from "@/lib/format";
import { type AfterPaymentEntry, loadAfterPayment } from "@/lib/points/after-payment/view";
import { receiptPath } from "@/lib/points/api/json";
import { getPointsBalance } from "@/lib/points/balance/ledger";
import { getTopUp } from "@/lib/points/purchase/top-ups";
import { needsAttention } from "@/lib/points/views/attention";
import { paymentMethodLabels, purchaseCardLabel } from "@/lib/points/views/history";
import { buyPoints, completeAuthentication, startProviderAuthentication } from "../../buy/actions";

export const metadata: Metadata = { title: "Purchase · Points" };

/**
 * One purchase, its state as it is now, and what to do next; opened from History, and where the buy
 * form lands after every attempt (`?bought=1`, or `?replayed=1` when the form was sent again), so
 * refreshing it only reads: it never sends the purchase again. The buy steps show only in that flow.
 */
export default async function PurchasePage({
  params,
  searchParams,
}: {
  params: Promise<{ topUpId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { user, runtime, organization } = await dashboardContext();
  const { topUpId } = await params;
  const arrival = arrivalOf(await searchParams);
  // Another organisation's purchase is not found, exactly like one that does not exist.
  const topUp = await getTopUp(runtime.db, organization.id, topUpId);
  if (!topUp) notFound();
  const [pointsBalance, labels, afterPayment] = await Promise.all([
    getPointsBalance(runtime.db, organization.id),
    paymentMethodLabels(runtime, organization),
    loadAfterPayment(runtime.db, topUp, runtime.provider),
  ]);
  const isAdmin = user.role === "admin";
  const unresolved = topUp.status === "pending" || topUp.status === "processing";
  const cardLabel = purchaseCardLabel(topUp, labels) ?? topUp.paymentSourceId;
  const retryQuery = new URLSearchParams({ currency: topUp.currency, points: String(topUp.points) });
  const inBuyFlow = arrival === "bought" || arrival === "replayed";

  return (
    <>
      <PageHeader
        title={`${formatPoints(topUp.points)} Points for ${formatMoney(topUp.amount, topUp.currency)}`}
        description={
          <>
            Purchase <span className="font-mono text-xs">{topUp.reference}</span>
          </>
        }
        actions={
          topUp.status === "paid" ? (
            <Link href={receiptPath(topUp.id)} className={buttonClasses("secondary")}>
              Receipt
            </Link>
          ) : undefined
        }
      />
      {/* Right after Buy, the purchase ends the steps it went through; from History it is a record. */}
      {inBuyFlow && <BuySteps current={3} last={outcomeStep(topUp.status)} />}
      <div className="space-y-6">
        <BuyOutcome topUp={topUp} pointsBalance={pointsBalance} arrival={arrival}>
          {topUp.status === "awaiting_payment" &&
            (!isAdmin ? (
              <p>An admin of {organization.name} can complete the authentication.</p>
            ) : runtime.provider.testMode?.completeAuthentication ? (
              <div className="space-y-3">
                <p className="font-medium">
                  Test mode: act as the cardholder and complete or fail the bank&apos;s authentication step.
                </p>
                <BuyAuthenticationForm action={completeAuthentication} topUpId={topUp.id} />
              </div>
            ) : (
              <div className="space-y-3">
                <p>
                  The card&apos;s bank asks the cardholder to confirm this payment on its own page; you come back here
                  after.
                </p>
                <BuyAuthenticationForm action={startProviderAuthentication} topUpId={topUp.id} mode="redirect" />
              </div>
            ))}
          {unresolved && isAdmin && (
            <BuyPurchaseForm
              action={buyPoints}
              fields={{
                points: topUp.points,
                currency: topUp.currency,
                paymentSourceId: topUp.paymentSourceId,
                reference: topUp.reference,
              }}
              check
              submitLabel="Check again now"
              pendingLabel="Checking…"
              variant="secondary"
            />
          )}
        </BuyOutcome>

        <div className="flex flex-wrap gap-3">
          {isAdmin && (
            <Link
              href={topUp.status === "failed" ? `/dashboard/buy?${retryQuery.toString()}` : "/dashboard/buy"}
              className={buttonClasses(topUp.status === "paid" || topUp.status === "failed" ? "primary" : "secondary")}
            >
              {topUp.status === "failed" ? "Try again with another card" : "Start a new purchase"}
            </Link>
          )}
          <Link href="/dashboard/history" className={buttonClasses("secondary")}>
            {inBuyFlow ? "View history" : "Back to History"}
          </Link>
        </div>

        {afterPayment.length > 0 && <AfterPayment entries={afterPayment} />}

        <Card title="Details">
          <dl className="grid gap-x-8 gap-y-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
            <Detail label="Status">
              <StatusBadge status={topUp.status} attention={needsAttention(topUp, new Date())} />
            </Detail>
            <Detail label="Points">{formatPoints(topUp.points)}</Detail>
            <Detail label="Amount">{formatMoney(topUp.amount, topUp.currency)}</Detail>
            <Detail label="Payment method">
              {cardLabel}
              <span className="block break-all font-mono text-xs text-slate-500">{topUp.paymentSourceId}</span>
            </Detail>
            <Detail label="Source">
              <SourceBadge source={topUp.source} />
            </Detail>
            <Detail label="Reference">
              <span className="break-all font-mono text-xs">{topUp.reference}</span>
            </Detail>
            <Detail label="Created">{formatDateTime(topUp.createdAt)}</Detail>
            <Detail label="Paid">{topUp.paidAt ? formatDateTime(topUp.paidAt) : "—"}</Detail>
            <Detail label="Purchase ID">
              <span className="break-all font-mono text-xs">{topUp.id}</span>
            </Detail>
          </dl>
        </Card>
      </div>
    </>
  );
}

/** `?bought=1`, `?replayed=1` or `?checked=1`, as the buy actions redirect here; nothing else counts. */
function arrivalOf(query: Record<string, string | string[] | undefined>): PurchaseArrival {
  if (query.replayed === "1") return "replayed";
  if (query.checked === "1") return "checked";
  if (query.bought === "1") return "bought";
  return undefined;
}

/** The last step's name when it is not "Done": the purchase ended otherwise, or has not ended yet. */
function outcomeStep(status: string): string | undefined {
  if (status === "paid") return undefined;
  if (status === "failed") return "Declined";
  if (status === "awaiting_payment") return "Awaiting the cardholder";
  return "Being confirmed";
}

const toneDots: Record<AfterPaymentEntry["tone"], string> = {
  neutral: "bg-slate-400",
  warning: "bg-amber-500",
  good: "bg-emerald-500",
  bad: "bg-rose-500",
};

/** Refunds and a dispute, oldest first, in words; the same for admins and members (nothing to act on here). */
function AfterPayment({ entries }: { entries: AfterPaymentEntry[] }) {
  return (
    <Card title="After payment" description="Refunds and disputes of this purchase, oldest first. Times are UTC.">
      <ol className="space-y-4" data-testid="after-payment">
        {entries.map((entry) => (
          <li key={`${entry.at.toISOString()} ${entry.title}`} className="flex gap-3 text-sm">
            <span aria-hidden="true" className={`mt-1.5 h-2 w-2 shrink-0 rounded-full ${toneDots[entry.tone]}`} />
            <div>
              <p className="font-medium text-slate-900">{entry.title}</p>
              <p className="text-xs text-slate-500">
                <time dateTime={entry.at.toISOString()}>{formatDateTime(entry.at)}</time>
              </p>
              {entry.details.map((detail) => (
                <p key={detail} className="mt-0.5 text-slate-600">
                  {detail}
                </p>
              ))}
            </div>
          </li>
        ))}
      </ol>
    </Card>
  );
}

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-slate-500">{label}</dt>
      <dd className="mt-0.5 font-medium text-slate-900">{children}</dd>
    </div>
  );
}
