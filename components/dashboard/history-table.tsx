import Link from "next/link";
import { Badge, StatusBadge } from "@/components/ui/badge";
import type { Spend, TopUp } from "@/lib/db/schema";
import { formatDateTime, formatMoney, formatPoints } from "@/lib/format";
import { afterPaymentNotes } from "@/lib/points/after-payment/view";
import { needsAttention } from "@/lib/points/attention";
import { type HistoryItem, purchaseCardLabel } from "@/lib/points/history";

/**
 * Top-ups and spends, newest first, as a table that scrolls sideways on narrow screens. Purchases
 * still waiting for the cardholder or the issuer link to the page where they can be finished.
 */
export function HistoryTable({
  items,
  labels,
  emptyMessage,
  caption = "Top-ups, newest first",
}: {
  items: HistoryItem[];
  labels: Map<string, string>;
  emptyMessage: string;
  /** What the table lists, said to screen readers before its rows. */
  caption?: string;
}) {
  const now = new Date();
  if (items.length === 0) {
    return <p className="px-1 py-8 text-center text-sm text-slate-500">{emptyMessage}</p>;
  }
  return (
    <>
      {/* Phones get one card per top-up; a table this wide would hide the status off-screen. */}
      <ul className="-mx-5 divide-y divide-slate-100 md:hidden" data-testid="history-list">
        {items.map((item) => {
          if (item.kind === "spend") return <SpendCard key={item.spend.id} spend={item.spend} />;
          const { topUp } = item;
          return (
            <li key={topUp.id}>
              <Link
                href={`/dashboard/history/${topUp.id}`}
                className="block px-5 py-3 hover:bg-slate-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600"
              >
                <span className="flex items-center justify-between gap-3">
                  <span className="font-semibold tabular-nums text-slate-900">{formatPoints(topUp.points)} Points</span>
                  <StatusBadge status={topUp.status} attention={needsAttention(topUp, now)} />
                </span>
                <span className="mt-1 flex items-center justify-between gap-3 text-sm text-slate-600">
                  <span className="tabular-nums">
                    {formatMoney(topUp.amount, topUp.currency)} · {purchaseCardLabel(topUp, labels) ?? "saved card"}
                  </span>
                  <SourceBadge source={topUp.source} />
                </span>
                <span className="mt-1 block truncate font-mono text-xs text-slate-500">{topUp.reference}</span>
                <AfterPaymentNotes topUp={topUp} />
                <span className="mt-0.5 flex items-center justify-between text-xs text-slate-500">
                  <time dateTime={topUp.createdAt.toISOString()}>{formatDateTime(topUp.createdAt)}</time>
                  <span className="font-medium text-indigo-700">{actionLabel(topUp.status)} →</span>
                </span>
              </Link>
            </li>
          );
        })}
      </ul>
      {/* `relative` keeps the screen-reader-only labels inside the scroll box, not widening the page. */}
      <div className="relative -mx-5 hidden overflow-x-auto md:block">
        <table className="w-full min-w-[60rem] text-left text-sm" data-testid="history-table">
          <caption className="sr-only">{caption}</caption>
          <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th scope="col" className="px-5 py-2 font-medium">
                Time (UTC)
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Reference
              </th>
              <th scope="col" className="px-3 py-2 text-right font-medium">
                Points
              </th>
              <th scope="col" className="px-3 py-2 text-right font-medium">
                Amount
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Payment method
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Status
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Source
              </th>
              <th scope="col" className="px-5 py-2 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {items.map((item) => {
              if (item.kind === "spend") return <SpendRow key={item.spend.id} spend={item.spend} />;
              const { topUp } = item;
              return (
                <tr
                  key={topUp.id}
                  data-testid="top-up-row"
                  data-reference={topUp.reference}
                  className="hover:bg-slate-50"
                >
                  <td className="whitespace-nowrap px-5 py-3 text-slate-600">
                    <time dateTime={topUp.createdAt.toISOString()} title={topUp.createdAt.toISOString()}>
                      {formatDateTime(topUp.createdAt).replace(" UTC", "")}
                    </time>
                  </td>
                  <td
                    className="max-w-[14rem] truncate px-3 py-3 font-mono text-xs text-slate-800"
                    title={topUp.reference}
                  >
                    {topUp.reference}
                  </td>
                  <td className="whitespace-nowrap px-3 py-3 text-right font-medium tabular-nums">
                    {formatPoints(topUp.points)}
                  </td>
                  <td className="whitespace-nowrap px-3 py-3 text-right tabular-nums">
                    {formatMoney(topUp.amount, topUp.currency)}
                  </td>
                  <td className="whitespace-nowrap px-3 py-3 text-slate-700" title={topUp.paymentSourceId}>
                    {purchaseCardLabel(topUp, labels) ?? (
                      <span className="font-mono text-xs">{topUp.paymentSourceId}</span>
                    )}
                  </td>
                  <td className="whitespace-nowrap px-3 py-3">
                    <StatusBadge status={topUp.status} attention={needsAttention(topUp, now)} />
                    <AfterPaymentNotes topUp={topUp} />
                  </td>
                  <td className="whitespace-nowrap px-3 py-3">
                    <SourceBadge source={topUp.source} />
                  </td>
                  <td className="whitespace-nowrap px-5 py-3 text-right">
                    <Link
                      href={`/dashboard/history/${topUp.id}`}
                      className="font-medium text-indigo-700 hover:text-indigo-900 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600"
                    >
                      {actionLabel(topUp.status)}
                      <span className="sr-only"> for {topUp.reference}</span>
                    </Link>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Points taken, as a person reads them: "−120" (a minus sign, not a hyphen). */
function spentPoints(spend: Spend): string {
  return `\u2212${formatPoints(spend.points)}`;
}

/** A spend on a phone: no page of its own to open, so a plain card. */
function SpendCard({ spend }: { spend: Spend }) {
  return (
    <li className="px-5 py-3" data-testid="spend-card" data-reference={spend.reference}>
      <span className="flex items-center justify-between gap-3">
        <span className="font-semibold tabular-nums text-slate-900">{spentPoints(spend)} Points</span>
        <SpentBadge />
      </span>
      <span className="mt-1 flex items-center justify-between gap-3 text-sm text-slate-600">
        <span className="min-w-0 truncate">{spend.description}</span>
        <SourceBadge source={spend.source} />
      </span>
      <span className="mt-1 block truncate font-mono text-xs text-slate-500">{spend.reference}</span>
      <span className="mt-0.5 block text-xs text-slate-500">
        <time dateTime={spend.createdAt.toISOString()}>{formatDateTime(spend.createdAt)}</time>
      </span>
    </li>
  );
}

/** A spend in the table: Points taken, its reference and description; no money, card or page. */
function SpendRow({ spend }: { spend: Spend }) {
  return (
    <tr data-testid="spend-row" data-reference={spend.reference} className="hover:bg-slate-50">
      <td className="whitespace-nowrap px-5 py-3 text-slate-600">
        <time dateTime={spend.createdAt.toISOString()} title={spend.createdAt.toISOString()}>
          {formatDateTime(spend.createdAt).replace(" UTC", "")}
        </time>
      </td>
      <td className="max-w-[14rem] px-3 py-3">
        <span className="block truncate font-mono text-xs text-slate-800" title={spend.reference}>
          {spend.reference}
        </span>
        {spend.description && (
          <span className="mt-0.5 block truncate text-xs text-slate-600" title={spend.description}>
            {spend.description}
          </span>
        )}
      </td>
      <td className="whitespace-nowrap px-3 py-3 text-right font-medium tabular-nums">{spentPoints(spend)}</td>
      <td className="px-3 py-3" />
      <td className="px-3 py-3" />
      <td className="whitespace-nowrap px-3 py-3">
        <SpentBadge />
      </td>
      <td className="whitespace-nowrap px-3 py-3">
        <SourceBadge source={spend.source} />
      </td>
      <td className="px-5 py-3" />
    </tr>
  );
}

function SpentBadge() {
  return <Badge tone="amber">Spent</Badge>;
}

/** What happened after payment ("Refunded 250 Points (€22.00)", "Disputed: 7,500 Points held"), in words. */
function AfterPaymentNotes({ topUp }: { topUp: TopUp }) {
  const notes = afterPaymentNotes(topUp);
  if (notes.length === 0) return null;
  return (
    <span className="mt-1 block space-y-0.5 text-xs text-slate-600" data-testid="after-payment-notes">
      {notes.map((note) => (
        <span key={note} className="block">
          {note}
        </span>
      ))}
    </span>
  );
}

const sourceLabels: Record<string, string> = {
  api: "API",
  dashboard: "Dashboard",
  operator: "Operator",
  auto_recharge: "Auto-recharge",
};

/** Where a purchase or spend came from, as History and a purchase's page show it. */
export function SourceBadge({ source }: { source: string }) {
  return <Badge tone={source === "api" ? "slate" : "indigo"}>{sourceLabels[source] ?? source}</Badge>;
}

function actionLabel(status: string): string {
  if (status === "awaiting_payment") return "Complete payment";
  if (status === "pending" || status === "processing") return "Check status";
  return "View";
}
