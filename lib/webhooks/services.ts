import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";

/** What the sender's parts need: the database and the clock. */
export interface DeliveryServices {
  db: Db;
  clock: Clock;
}
