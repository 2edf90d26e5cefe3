import type { Metadata } from "next";
import { HistoryListed, HistoryRefused } from "@/components/dashboard/history/history-states";
import { SpendsHiddenNote } from "@/components/dashboard/history/spends-hidden-note";
import { HistoryFilters } from "@/components/dashboard/history-filters";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { dashboardContext } from "@/lib/dashboard/context";
import { loadHistoryPage } from "./load";

export const metadata: Metadata = { title: "History · Points" };

export default async function HistoryPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const context = await dashboardContext();
  const history = await loadHistoryPage(context, await searchParams);

  return (
    <>
      <PageHeader
        title="History"
        description="Every top-up of your organisation, bought through the API or here, and every spend of its Points, newest first. Times are UTC."
        actions={
          <a href={history.exportHref} className={buttonClasses("secondary")} download>
            Export CSV
          </a>
        }
      />
      <Card>
        <div className="space-y-5">
          <HistoryFilters filters={history.filters} />
          {history.topUpFiltered && !history.filters.kind && <SpendsHiddenNote />}
          {history.kind === "refused" ? <HistoryRefused {...history} /> : <HistoryListed {...history} />}
        </div>
      </Card>
    </>
  );
}
