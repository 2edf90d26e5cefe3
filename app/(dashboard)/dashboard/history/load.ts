import type { DashboardContext } from "@/lib/dashboard/context";
import { PointsError } from "@/lib/points/errors";
import { readerOf } from "@/lib/points/services";
import {
  type HistoryItem,
  type HistoryKind,
  type HistoryPage,
  type HistoryView,
  historyKinds,
  listHistory,
  paymentMethodLabels,
} from "@/lib/points/views/history";
import { historyQuery, parseHistoryFilters } from "@/lib/points/views/history-query";

const PAGE_SIZE = 25;

/** What History shows in every state: the view asked for, and the ways to its export and its newest page. */
interface HistoryShown {
  filters: HistoryView;
  /** The page asked for; undefined for the newest. */
  cursor: string | undefined;
  kinds: HistoryKind[];
  /** A status, source or after-payment filter is set: those describe purchases only, so spends are left out. */
  topUpFiltered: boolean;
  /** Anything narrows the list: a top-up filter, one kind, or dates. */
  filtered: boolean;
  labels: Map<string, string>;
  exportHref: string;
  newestHref: string;
}

/** History lists a page of the view, or says why the page cannot be read (a cursor it refuses). */
export type HistoryPageState =
  | (HistoryShown & {
      kind: "listed";
      items: HistoryItem[];
      /** The next (older) page of the view; null on the last page. */
      nextHref: string | null;
    })
  | (HistoryShown & { kind: "refused"; message: string });

export async function loadHistoryPage(
  { runtime, organization }: DashboardContext,
  searchParams: Record<string, string | string[] | undefined>,
): Promise<HistoryPageState> {
  const { cursor, ...filters } = parseHistoryFilters(searchParams);
  const href = hrefsOf(historyQuery(filters));

  // Asked for beside the page, not after it; it never rejects (labels fall back to the IDs).
  const labelsRead = paymentMethodLabels(runtime, organization);
  const read = await readPage(readerOf(runtime), organization.id, { ...filters, cursor, limit: PAGE_SIZE });
  const labels = await labelsRead;
  const kinds = historyKinds(filters);
  // A top-up filter (status, source, after payment) is set exactly when, with no kind chosen, only top-ups are listed.
  const topUpFiltered = historyKinds({ ...filters, kind: undefined }).length === 1;
  const shown: HistoryShown = {
    filters,
    cursor,
    kinds,
    topUpFiltered,
    filtered: topUpFiltered || kinds.length === 1 || Boolean(filters.from || filters.to),
    labels,
    exportHref: href("/dashboard/history/export"),
    newestHref: href("/dashboard/history"),
  };
  if (read.kind === "refused") return { ...shown, kind: "refused", message: read.message };
  const { items, nextCursor } = read.page;
  return {
    ...shown,
    kind: "listed",
    items,
    nextHref: nextCursor ? href("/dashboard/history", { cursor: nextCursor }) : null,
  };
}

/** The page of the view, or the message of a PointsError that refuses it (a page link not valid any more). */
async function readPage(
  ...args: Parameters<typeof listHistory>
): Promise<{ kind: "listed"; page: HistoryPage } | { kind: "refused"; message: string }> {
  try {
    return { kind: "listed", page: await listHistory(...args) };
  } catch (error) {
    if (!(error instanceof PointsError)) throw error;
    return { kind: "refused", message: error.message };
  }
}

/** Paths with the view's filters in their query, and any more parameters. */
function hrefsOf(filterQuery: URLSearchParams) {
  return (path: string, extra: Record<string, string> = {}) => {
    const query = new URLSearchParams(filterQuery);
    for (const [key, value] of Object.entries(extra)) query.set(key, value);
    const text = query.toString();
    return text ? `${path}?${text}` : path;
  };
}
