import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Stripe webhook events already handled, by Stripe's event id: a redelivered or replayed event is
 * answered without acting twice. Written only after the event's effect succeeded, so a failed
 * attempt is redelivered by Stripe and handled then.
 */
export const stripeEvents = pgTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  /** What handling it did, as answered to Stripe (visible in its delivery log). */
  result: text("result").notNull(),
  /** Why, in words; for `unmatched` (a refund or dispute of a payment this service does not know), what to look at. */
  detail: text("detail"),
  receivedAt: timestamp("received_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * Refund and dispute events that named a payment of a purchase not yet settled here: kept, as the
 * provider-neutral event, until the purchase settles and the event is handled (then it is recorded
 * in stripe_events and its row here deleted). The reconciler hands them over again on every run, so
 * none is lost when the provider stops redelivering (Stripe: after 3 days).
 */
export const deferredBillingEvents = pgTable(
  "deferred_billing_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    /** The event as the provider translated it (lib/billing/provider.ts ReceivedBillingEvent). */
    event: jsonb("event").notNull(),
    /** Why it waits, in words (the purchase it waits for). */
    detail: text("detail").notNull(),
    attempts: integer("attempts").notNull().default(1),
    firstDeferredAt: timestamp("first_deferred_at", { withTimezone: true, mode: "date" }).notNull(),
    lastDeferredAt: timestamp("last_deferred_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index("deferred_billing_events_first_idx").on(t.firstDeferredAt)],
);

/*
 * The simulated billing provider keeps its own state in these tables, apart from the
 * purchase tables: it plays the part of an outside system, so the purchase code only
 * reaches it through lib/billing/simulated/ and never joins to it.
 */
