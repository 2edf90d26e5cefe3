import type { Metadata } from "next";
import Link from "next/link";
import { HistoryFilters } from "@/components/dashboard/history-filters";
import { HistoryTable } from "@/components/dashboard/history-table";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { dashboardContext } from "@/lib/dashboard/context";
import { PointsError } from "@/lib/points/errors";
import { listTopUps, parseHistoryFilters, paymentMethodLabels, type TopUpPage } from "@/lib/points/history";
import { readerOf } from "@/lib/points/services";

export const metadata: Metadata = { title: "History · Points" };

const PAGE_SIZE = 25;

export default async function HistoryPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { runtime, organization } = await dashboardContext();
  const { cursor, ...filters } = parseHistoryFilters(await searchParams);

  const filterQuery = new URLSearchParams();
  if (filters.status) filterQuery.set("status", filters.status);
  if (filters.source) filterQuery.set("source", filters.source);
  if (filters.after) filterQuery.set("after", filters.after);
  const withQuery = (path: string, extra: Record<string, string> = {}) => {
    const query = new URLSearchParams(filterQuery);
    for (const [key, value] of Object.entries(extra)) query.set(key, value);
    const text = query.toString();
    return text ? `${path}?${text}` : path;
  };

  // Asked for beside the page, not after it; it never rejects (labels fall back to the IDs).
  const labelsRead = paymentMethodLabels(runtime, organization);
  let page: TopUpPage | null = null;
  let pageError: string | null = null;
  try {
    page = await listTopUps(readerOf(runtime), organization.id, { ...filters, cursor, limit: PAGE_SIZE });
  } catch (error) {
    if (!(error instanceof PointsError)) throw error;
    pageError = error.message;
  }
  const labels = await labelsRead;
  const filtered = Boolean(filters.status || filters.source || filters.after);

  return (
    <>
      <PageHeader
        title="History"
        description="Every top-up of your organisation, bought through the API or here, newest first. Times are UTC."
        actions={
          <a href={withQuery("/dashboard/history/export")} className={buttonClasses("secondary")} download>
            Export CSV
          </a>
        }
      />
      <Card>
        <div className="space-y-5">
          <HistoryFilters filters={filters} />
          {pageError ? (
            <Alert tone="warning">
              {pageError}{" "}
              <Link href={withQuery("/dashboard/history")} className="font-semibold underline">
                Newest top-ups
              </Link>
            </Alert>
          ) : (
            <HistoryTable
              topUps={page?.topUps ?? []}
              labels={labels}
              caption={filtered ? "Top-ups matching the filters, newest first" : "Top-ups, newest first"}
              emptyMessage={
                filtered
                  ? "No top-ups match these filters."
                  : cursor
                    ? "No older top-ups."
                    : "No top-ups yet. Purchases made here or through the API appear in this list."
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
