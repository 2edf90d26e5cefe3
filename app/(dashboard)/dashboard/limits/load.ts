import type { DashboardContext } from "@/lib/dashboard/context";
import { getLimitUsage, type LimitUsage } from "@/lib/points/limits/limit-usage";

/** What Limits shows: it has one state, each limit and its use as of `now`. */
export interface LimitsPageState {
  usage: LimitUsage;
  now: Date;
}

export async function loadLimitsPage({ runtime, organization }: DashboardContext): Promise<LimitsPageState> {
  const now = runtime.clock.now();
  const usage = await getLimitUsage(runtime.db, organization, now);
  return { usage, now };
}
