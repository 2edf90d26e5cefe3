import type { Metadata } from "next";
import {
  DailyPointsCard,
  FrequencyLimitCard,
  MaxBalanceCard,
  MaxPerTopUpCard,
} from "@/components/dashboard/limits/limit-cards";
import { PageHeader } from "@/components/ui/card";
import { dashboardContext } from "@/lib/dashboard/context";
import { formatDateTime } from "@/lib/format";
import { loadLimitsPage } from "./load";

export const metadata: Metadata = { title: "Limits · Points" };

export default async function LimitsPage() {
  const context = await dashboardContext();
  const { usage, now } = await loadLimitsPage(context);

  return (
    <>
      <PageHeader
        title="Limits"
        description="Your organisation's purchase limits and how much of each is in use. Limits are set by our team; contact support to change one."
      />
      <div className="grid gap-4 md:grid-cols-2">
        <MaxPerTopUpCard usage={usage} />
        <MaxBalanceCard usage={usage} />
        <FrequencyLimitCard usage={usage} />
        <DailyPointsCard usage={usage} />
      </div>
      <p className="mt-6 text-xs text-slate-500">Usage as of {formatDateTime(now)}. Reload the page to update it.</p>
    </>
  );
}
