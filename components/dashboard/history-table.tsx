import Link from "next/link";
import { Badge, StatusBadge } from "@/components/ui/badge";
import type { Spend, TopUp } from "@/lib/db/schema";
import { formatMoney, formatPoints, formatUtcDateTime } from "@/lib/format";
import { afterPaymentNotes } from "@/lib/points/after-payment/view";
import { needsAttention } from "@/lib/points/views/attention";
import { type HistoryItem, purchaseCardLabel } from "@/lib/points/views/history";

/**
 * Top-ups and spends, newest first: a table from `md` up, and on a phone the same rows as cards.
 * Purchases still waiting for the cardholder or the issuer link to the page where they can be finished.
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
    // `relative` keeps the screen-reader-only labels inside the scroll box, not widening the page.
    <div className="relative -mx-5 md:overflow-x-auto">
      <table className="w-full text-left text-sm max-md:block md:min-w-[60rem]" data-testid="history-table">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500 max-md:hidden">
          <tr>
            {COLUMNS.map(([label, align, heard]) => (
              <th key={label} scope="col" className={`${align} py-2 font-medium`}>
                {heard ? <span className="sr-only">{label}</span> : label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 max-md:block">
          {items.map((item) => {
            if (item.kind === "spend") return <SpendRow key={item.spend.id} spend={item.spend} />;
            const { topUp } = item;
            return (
              <tr key={topUp.id} data-testid="top-up-row" data-reference={topUp.reference} className={ROW}>
                <td className={`${TIME} max-md:row-start-5 max-md:col-span-2`}>
                  <UtcTime date={topUp.createdAt} />
                </td>
                <td className={`${REFERENCE} max-md:row-start-3`} title={topUp.reference}>
                  {topUp.reference}
                </td>
                <td className={POINTS}>
                  {formatPoints(topUp.points)}
                  <span className="md:hidden"> Points</span>
                </td>
                <td className="whitespace-nowrap text-right tabular-nums max-md:row-start-2 max-md:pr-1.5 max-md:text-left max-md:text-slate-600 md:px-3 md:py-3">
                  {formatMoney(topUp.amount, topUp.currency)}
                </td>
                <td
                  className="min-w-0 truncate whitespace-nowrap text-slate-700 max-md:row-start-2 max-md:text-slate-600 max-md:before:mr-1.5 max-md:before:content-['·'] md:px-3 md:py-3"
                  title={topUp.paymentSourceId}
                >
                  {purchaseCardLabel(topUp, labels) ?? (
                    <span className="font-mono text-xs">{topUp.paymentSourceId}</span>
                  )}
                </td>
                <td className="whitespace-nowrap max-md:contents md:px-3 md:py-3">
                  <span className={BADGE_CELL}>
                    <StatusBadge status={topUp.status} attention={needsAttention(topUp, now)} />
                  </span>
                  <AfterPaymentNotes topUp={topUp} />
                </td>
                <td className={SOURCE}>
                  <SourceBadge source={topUp.source} />
                </td>
                <td className="whitespace-nowrap text-right max-md:row-start-5 max-md:col-start-3 max-md:mt-0.5 max-md:text-xs md:px-5 md:py-3">
                  {/* On a phone the row is a card and its link covers all of it. */}
                  <Link
                    href={`/dashboard/history/${topUp.id}`}
                    className="font-medium text-indigo-700 hover:text-indigo-900 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600 max-md:after:absolute max-md:after:inset-0 max-md:after:content-['']"
                  >
                    {actionLabel(topUp.status)}
                    <span className="sr-only"> for {topUp.reference}</span>
                    <span className="md:hidden" aria-hidden="true">
                      {" "}
                      →
                    </span>
                  </Link>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The table's columns from `md` up: each header's text, its padding and alignment, and whether it is
 * for screen readers only (the links' column has no visible header).
 */
const COLUMNS: ReadonlyArray<readonly [label: string, align: string, heard?: boolean]> = [
  ["Time (UTC)", "px-5"],
  ["Reference", "px-3"],
  ["Points", "px-3 text-right"],
  ["Amount", "px-3 text-right"],
  ["Payment method", "px-3"],
  ["Status", "px-3"],
  ["Source", "px-3"],
  ["Actions", "px-5", true],
];

/** When a row happened: the column's header says UTC on a wide screen, the time itself on a phone. */
function UtcTime({ date }: { date: Date }) {
  const iso = date.toISOString();
  return (
    <time dateTime={iso} title={iso}>
      {formatUtcDateTime(date)}
      <span className="md:hidden"> UTC</span>
    </time>
  );
}

/*
 * On a phone each row is a grid of three columns: Points and the status; the amount, the card and
 * the source; the reference; any after-payment notes; the time and the link.
 */
const ROW =
  "hover:bg-slate-50 max-md:relative max-md:grid max-md:grid-cols-[auto_minmax(0,1fr)_auto] max-md:items-center max-md:px-5 max-md:py-3";
const TIME = "whitespace-nowrap text-slate-600 max-md:mt-0.5 max-md:text-xs max-md:text-slate-500 md:px-5 md:py-3";
const REFERENCE =
  "max-w-[14rem] truncate font-mono text-xs text-slate-800 max-md:col-span-3 max-md:mt-1 max-md:max-w-none max-md:text-slate-500 md:px-3 md:py-3";
const POINTS =
  "whitespace-nowrap text-right font-medium tabular-nums max-md:row-start-1 max-md:col-span-2 max-md:text-left max-md:text-base max-md:font-semibold max-md:text-slate-900 md:px-3 md:py-3";
const BADGE_CELL = "max-md:row-start-1 max-md:pl-3 max-md:col-start-3 max-md:justify-self-end";
const SOURCE =
  "whitespace-nowrap max-md:row-start-2 max-md:pl-3 max-md:col-start-3 max-md:justify-self-end md:px-3 md:py-3";

/** Points taken, as a person reads them: "−120" (a minus sign, not a hyphen). */
function spentPoints(spend: Spend): string {
  return `\u2212${formatPoints(spend.points)}`;
}

/** A spend in the table: Points taken, its reference and description; no money, card or page. */
function SpendRow({ spend }: { spend: Spend }) {
  return (
    <tr data-testid="spend-row" data-reference={spend.reference} className={ROW}>
      <td className={`${TIME} max-md:row-start-4 max-md:col-span-3`}>
        <UtcTime date={spend.createdAt} />
      </td>
      <td className="max-w-[14rem] max-md:contents md:px-3 md:py-3">
        <span
          className="block truncate font-mono text-xs text-slate-800 max-md:row-start-3 max-md:col-span-3 max-md:mt-1 max-md:text-slate-500"
          title={spend.reference}
        >
          {spend.reference}
        </span>
        {spend.description && (
          <span
            className="mt-0.5 block truncate text-xs text-slate-600 max-md:row-start-2 max-md:col-span-2 max-md:mt-0 max-md:text-sm"
            title={spend.description}
          >
            {spend.description}
          </span>
        )}
      </td>
      <td className={POINTS}>
        {spentPoints(spend)}
        <span className="md:hidden"> Points</span>
      </td>
      <td className="max-md:hidden md:px-3 md:py-3" />
      <td className="max-md:hidden md:px-3 md:py-3" />
      <td className="whitespace-nowrap md:px-3 md:py-3 max-md:row-start-1 max-md:col-start-3 max-md:justify-self-end max-md:pl-3">
        <SpentBadge />
      </td>
      <td className={SOURCE}>
        <SourceBadge source={spend.source} />
      </td>
      <td className="max-md:hidden md:px-5 md:py-3" />
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
    <span
      className="mt-1 block space-y-0.5 text-xs text-slate-600 max-md:row-start-4 max-md:col-span-3"
      data-testid="after-payment-notes"
    >
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
