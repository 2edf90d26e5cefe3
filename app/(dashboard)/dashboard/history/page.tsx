import type { Metadata } from "next";
import Link from "next/link";
import { HistoryFilters } from "@/components/dashboard/history-filters";
import { HistoryTable } from "@/components/dashboard/history-table";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { dashboardContext } from "@/lib/dashboard/context";
import { PointsError } from "@/lib/points/errors";
import { readerOf } from "@/lib/points/services";
import { historyKinds, listHistory, type HistoryPage as Page, paymentMethodLabels } from "@/lib/points/views/history";
import { historyQuery, parseHistoryFilters } from "@/lib/points/views/history-query";

export const metadata: Metadata = { title: "History · Points" };

const PAGE_SIZE = 25;

export default async function HistoryPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { runtime, organization } = await dashboardContext();
  const { cursor, ...filters } = parseHistoryFilters(await searchParams);

  const filterQuery = historyQuery(filters);
  const withQuery = (path: string, extra: Record<string, string> = {}) => {
    const query = new URLSearchParams(filterQuery);
    for (const [key, value] of Object.entries(extra)) query.set(key, value);
    const text = query.toString();
    return text ? `${path}?${text}` : path;
  };

  // Asked for beside the page, not after it; it never rejects (labels fall back to the IDs).
  const labelsRead = paymentMethodLabels(runtime, organization);
  let page: Page | null = null;
  let pageError: string | null = null;
  try {
    page = await listHistory(readerOf(runtime), organization.id, { ...filters, cursor, limit: PAGE_SIZE });
  } catch (error) {
    if (!(error instanceof PointsError)) throw error;
    pageError = error.message;
  }
  const labels = await labelsRead;
  const topUpFiltered = Boolean(filters.status || filters.source || filters.after);
  const kinds = historyKinds(filters);
  const what = kinds.length === 2 ? "top-ups and spends" : kinds[0] === "spend" ? "spends" : "top-ups";
  const filtered = topUpFiltered || kinds.length === 1 || Boolean(filters.from || filters.to);

  return (
    <>
      <PageHeader
        title="History"
        description="Every top-up of your organisation, bought through the API or here, and every spend of its Points, newest first. Times are UTC."
        actions={
          <a href={withQuery("/dashboard/history/export")} className={buttonClasses("secondary")} download>
            Export CSV
          </a>
        }
      />
      <Card>
        <div className="space-y-5">
          <HistoryFilters filters={filters} />
          {topUpFiltered && !filters.kind && (
            <p className="text-sm text-slate-600" data-testid="spends-hidden">
              Spends are not listed while a status, source or after-payment filter is set: those describe purchases
              only.
            </p>
          )}
          {pageError ? (
            <Alert tone="warning">
              {pageError}{" "}
              <Link href={withQuery("/dashboard/history")} className="font-semibold underline">
                Newest {what}
              </Link>
            </Alert>
          ) : (
            <HistoryTable
              items={page?.items ?? []}
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
          )}
          {(cursor || page?.nextCursor) && (
            <nav aria-label="Pages" className="flex items-center justify-between border-t border-slate-100 pt-4">
              {cursor ? (
                <Link href={withQuery("/dashboard/history")} className={buttonClasses("ghost")}>
                  ← Newest
                </Link>
              ) : (
                <span />
              )}
              {page?.nextCursor && (
                <Link
                  href={withQuery("/dashboard/history", { cursor: page.nextCursor })}
                  className={buttonClasses("secondary")}
                >
                  Next page →
                </Link>
              )}
            </nav>
          )}
        </div>
      </Card>
    </>
  );
}

/** What the table lists, said to screen readers before its rows. */
function caption(what: string, topUpFiltered: boolean): string {
  if (topUpFiltered) return "Top-ups matching the filters, newest first";
  if (what === "spends") return "Spends, newest first";
  return what === "top-ups" ? "Top-ups, newest first" : "Top-ups, newest first, with spends in the same order";
}
