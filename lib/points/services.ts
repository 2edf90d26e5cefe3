import type { BillingProvider } from "@/lib/billing/provider";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";

/** The outside world, passed to every domain operation so tests can swap any part. */
export interface Services {
  db: Db;
  /**
   * A replica (DATABASE_READ_URL) for reads that may lag the primary a moment: the lists of
   * top-ups, History and its export. Everything that decides or answers one purchase (a replay, a
   * top-up by id, the balance, a key) reads `db`.
   */
  readDb?: Db;
  provider: BillingProvider;
  clock: Clock;
  /**
   * Work that follows a commit and need not hold up the answer: the recharge a spend, a refund or a
   * dispute made due. A route runs it with after(), the operator command before it exits. Without
   * it, the reconciler finds the work within a minute.
   */
  defer?: (task: () => Promise<void>) => void;
}

/** Where the reads that may lag go: the replica when there is one, else the primary. */
export function readerOf(services: Pick<Services, "db" | "readDb">): Db {
  return services.readDb ?? services.db;
}
