import Link from "next/link";
import { HistoryTable } from "@/components/dashboard/history-table";
import { Alert } from "@/components/ui/alert";
import type { HistoryItem, HistoryKind } from "@/lib/points/views/history";
import { HistoryPagesNav } from "./history-pages-nav";

/** History's listing: a page of the view, and the ways to the newest and next pages. */
export function HistoryListed({
  items,
  labels,
  kinds,
  topUpFiltered,
  filtered,
  cursor,
  newestHref,
  nextHref,
}: {
  items: HistoryItem[];
  labels: Map<string, string>;
  kinds: HistoryKind[];
  topUpFiltered: boolean;
  filtered: boolean;
  cursor: string | undefined;
  newestHref: string;
  nextHref: string | null;
}) {
  const what = listedWhat(kinds);
  return (
    <>
      <HistoryTable
        items={items}
        labels={labels}
        caption={caption(what, topUpFiltered)}
        emptyMessage={
          filtered
            ? `No ${what} match these filters.`
            : cursor
              ? "Nothing older."
              : "Nothing yet. Purchases made here or through the API, and Points spent, appear in this list."
        }
      />
      <HistoryPagesNav cursor={cursor} newestHref={newestHref} nextHref={nextHref} />
    </>
  );
}

/** History when the page asked for cannot be read: why, and the way back to the newest page. */
export function HistoryRefused({
  message,
  kinds,
  cursor,
  newestHref,
}: {
  message: string;
  kinds: HistoryKind[];
  cursor: string | undefined;
  newestHref: string;
}) {
  return (
    <>
      <Alert tone="warning">
        {message}{" "}
        <Link href={newestHref} className="font-semibold underline">
          Newest {listedWhat(kinds)}
        </Link>
      </Alert>
      <HistoryPagesNav cursor={cursor} newestHref={newestHref} nextHref={null} />
    </>
  );
}

/** What the view lists, in words. */
function listedWhat(kinds: HistoryKind[]): string {
  return kinds.length === 2 ? "top-ups and spends" : kinds[0] === "spend" ? "spends" : "top-ups";
}

/** What the table lists, said to screen readers before its rows. */
function caption(what: string, topUpFiltered: boolean): string {
  if (topUpFiltered) return "Top-ups matching the filters, newest first";
  if (what === "spends") return "Spends, newest first";
  return what === "top-ups" ? "Top-ups, newest first" : "Top-ups, newest first, with spends in the same order";
}
