import type { BillingProvider } from "@/lib/billing/provider";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";

/** The outside world, passed to every domain operation so tests can swap any part. */
export interface Services {
  db: Db;
  provider: BillingProvider;
  clock: Clock;
}
