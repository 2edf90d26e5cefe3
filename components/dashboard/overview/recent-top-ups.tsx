import Link from "next/link";
import { HistoryTable } from "@/components/dashboard/history-table";
import { buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import type { TopUp } from "@/lib/db/schema";

/** The Overview's five most recent top-ups, with the way to the whole History. */
export function RecentTopUps({ topUps, labels }: { topUps: TopUp[]; labels: Map<string, string> }) {
  return (
    <Card
      title="Recent top-ups"
      actions={
        <Link href="/dashboard/history" className={buttonClasses("secondary")}>
          View all
        </Link>
      }
    >
      <HistoryTable
        items={topUps.map((topUp) => ({ kind: "top_up", topUp }))}
        labels={labels}
        caption="The five most recent top-ups"
        emptyMessage="No top-ups yet. Buy Points here, or through the API with one of your keys."
      />
    </Card>
  );
}
