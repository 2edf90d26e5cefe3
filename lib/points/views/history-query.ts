import {
  AFTER_PAYMENT_FILTERS,
  type AfterPaymentFilter,
  type HistoryView,
  historyKinds,
  TOP_UP_SOURCES,
  TOP_UP_STATUSES,
  type TopUpSource,
  type TopUpStatus,
} from "./history";

/*
 * A History view in a URL: the dashboard's page, its pages and its export read the same query.
 */

/** Reads the history filters from search parameters; anything unknown means "all". */
export function parseHistoryFilters(params: Record<string, string | string[] | undefined>): HistoryView & {
  cursor?: string;
} {
  const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const status = one(params.status);
  const source = one(params.source);
  const after = one(params.after);
  const cursor = one(params.cursor);
  const kind = one(params.kind);
  const dates = dayRange(one(params.from), one(params.to));
  // Spent was asked for: the top-up filters, which no spend matches, are dropped rather than emptying the list.
  if (kind === "spend") return { kind, ...dates, cursor: cursor ? cursor : undefined };
  return {
    kind: kind === "top_up" ? kind : undefined,
    ...dates,
    status: (TOP_UP_STATUSES as readonly string[]).includes(status ?? "") ? (status as TopUpStatus) : undefined,
    source: (TOP_UP_SOURCES as readonly string[]).includes(source ?? "") ? (source as TopUpSource) : undefined,
    after: (AFTER_PAYMENT_FILTERS as readonly string[]).includes(after ?? "")
      ? (after as AfterPaymentFilter)
      : undefined,
    cursor: cursor ? cursor : undefined,
  };
}

/** A real calendar day written YYYY-MM-DD, or undefined. */
function utcDay(value: string | undefined): string | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const day = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value) ? value : undefined;
}

/**
 * From the first UTC day to the last, both included: created at or after the first's midnight and
 * before the midnight that ends the last. A range given backwards is read the right way round.
 */
function dayRange(
  fromText: string | undefined,
  toText: string | undefined,
): Pick<HistoryView, "from" | "to" | "createdGte" | "createdLt"> {
  let from = utcDay(fromText);
  let to = utcDay(toText);
  if (from && to && from > to) [from, to] = [to, from];
  const range: Pick<HistoryView, "from" | "to" | "createdGte" | "createdLt"> = {};
  if (from) Object.assign(range, { from, createdGte: `${from}T00:00:00.000Z` });
  if (to) {
    const end = new Date(`${to}T00:00:00.000Z`);
    end.setUTCDate(end.getUTCDate() + 1);
    Object.assign(range, { to, createdLt: end.toISOString() });
  }
  return range;
}

/** The filters of a History view as they go in its URL (and its export's): what parseHistoryFilters reads back. */
export function historyQuery(view: HistoryView): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ["kind", "status", "source", "after", "from", "to"] as const) {
    const value = view[name];
    if (value) query.set(name, value);
  }
  return query;
}

/**
 * The export's file name, saying each filter once: what it lists, then its days (the range chosen,
 * else the day it was exported), then the status, source and after-payment filters.
 */
export function historyExportName(view: HistoryView, now: Date): string {
  const kinds = historyKinds(view);
  const name = kinds.length === 2 ? "history" : kinds[0] === "spend" ? "spends" : "top-ups";
  const days =
    view.from && view.to
      ? view.from === view.to
        ? view.from
        : `${view.from}-to-${view.to}`
      : view.from
        ? `from-${view.from}`
        : view.to
          ? `to-${view.to}`
          : now.toISOString().slice(0, 10);
  return `${[name, days, view.status, view.source, view.after].filter(Boolean).join("-")}.csv`;
}
