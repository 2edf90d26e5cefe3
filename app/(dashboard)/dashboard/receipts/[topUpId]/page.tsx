import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { PrintButton } from "@/components/dashboard/print-button";
import { dashboardContext } from "@/lib/dashboard/context";
import { expiryText, formatDateTime, formatMoney, formatPoints } from "@/lib/format";
import { getReceipt } from "@/lib/points/views/receipts";

export const metadata: Metadata = { title: "Receipt · Points" };

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-1 gap-1 py-2.5 sm:grid-cols-3 sm:gap-4 print:grid-cols-3">
      <dt className="text-sm text-slate-600">{label}</dt>
      <dd className="break-all text-sm text-slate-900 sm:col-span-2 print:col-span-2">{children}</dd>
    </div>
  );
}

/**
 * A paid purchase's receipt: what an accountant files. The dashboard's header, navigation and
 * buttons are left out of print (print: variants), so "Save as PDF" gives the receipt alone.
 */
export default async function ReceiptPage({ params }: { params: Promise<{ topUpId: string }> }) {
  const { runtime, organization } = await dashboardContext();
  const { topUpId } = await params;
  // Another organisation's purchase, or one not paid, has no receipt: not found alike.
  const receipt = await getReceipt(runtime, organization.id, topUpId);
  if (!receipt) notFound();
  const { topUp } = receipt;
  const refunded = receipt.refunds.reduce((sum, refund) => sum + refund.amount, 0);

  return (
    <article className="mx-auto max-w-2xl rounded-xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8 print:max-w-none print:border-0 print:p-0 print:shadow-none">
      <header className="flex flex-wrap items-start justify-between gap-4 border-b border-slate-200 pb-4">
        <div>
          <p className="text-sm font-medium text-slate-600">Receipt</p>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">
            {formatPoints(topUp.points)} Points · {formatMoney(topUp.amount, topUp.currency)}
          </h1>
          <p className="mt-1 text-sm text-slate-600">Paid {topUp.paidAt ? formatDateTime(topUp.paidAt) : ""}</p>
        </div>
        <PrintButton />
      </header>
      <dl className="divide-y divide-slate-100" aria-label="Receipt details">
        <Row label="Billed to">{receipt.organizationName}</Row>
        <Row label="Bundle">{formatPoints(topUp.points)} Points</Row>
        <Row label="Amount">
          {formatMoney(topUp.amount, topUp.currency)} ({topUp.currency})
        </Row>
        <Row label="Payment method">{topUp.paymentMethodLabel ?? topUp.paymentSourceId}</Row>
        <Row label="Date paid">{topUp.paidAt ? formatDateTime(topUp.paidAt) : "–"}</Row>
        <Row label="Expiry">{expiryText(topUp.pointsExpireAt)}</Row>
        <Row label="Purchase">
          <span className="font-mono text-xs">{topUp.id}</span> (reference{" "}
          <span className="font-mono text-xs">{topUp.reference}</span>)
        </Row>
        <Row label="Payment">
          <span className="font-mono text-xs">{topUp.providerPaymentId ?? "–"}</span>
        </Row>
        {receipt.refunds.length > 0 && (
          <Row label="Refunds">
            <ul className="space-y-1">
              {receipt.refunds.map((refund) => (
                <li key={refund.id}>
                  {formatMoney(refund.amount, refund.currency)} ({formatPoints(refund.points)} Points) on{" "}
                  {refund.appliedAt ? formatDateTime(refund.appliedAt) : ""}
                </li>
              ))}
            </ul>
            <p className="mt-1 font-medium">
              Net paid: {formatMoney(Math.max(0, topUp.amount - refunded), topUp.currency)}
            </p>
          </Row>
        )}
      </dl>
      <footer className="mt-6 flex flex-wrap gap-x-4 gap-y-2 border-t border-slate-200 pt-4 text-sm print:hidden">
        {receipt.providerReceiptUrl && (
          <a href={receipt.providerReceiptUrl} className="font-medium text-indigo-700 hover:underline" rel="noreferrer">
            The payment provider's receipt
          </a>
        )}
        <Link href={`/dashboard/history/${topUp.id}`} className="font-medium text-indigo-700 hover:underline">
          The purchase's page
        </Link>
      </footer>
    </article>
  );
}
