import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";

export const simCustomers = pgTable("sim_customers", {
  id: text("id").primaryKey(),
  defaultPaymentMethodId: text("default_payment_method_id"),
  /** Operator switch (--simulate-outage): listing payment methods fails, as a provider outage would. */
  outage: boolean("outage").notNull().default(false),
  createdAt: createdAt(),
});

export const simPaymentMethods = pgTable(
  "sim_payment_methods",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => simCustomers.id),
    /** The test card: visa, mastercard, declined, insufficient_funds, authentication_required, processing, expired. */
    kind: text("kind").notNull(),
    brand: text("brand").notNull(),
    last4: text("last4").notNull(),
    expMonth: integer("exp_month").notNull(),
    expYear: integer("exp_year").notNull(),
    /** Detached methods stay for the history but are never listed or charged. */
    detachedAt: timestamp("detached_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
  },
  (t) => [index("sim_payment_methods_customer_idx").on(t.customerId, t.createdAt)],
);

export const simPayments = pgTable(
  "sim_payments",
  {
    id: text("id").primaryKey(),
    /** Like Stripe's Idempotency-Key: the same key never executes a second charge. */
    idempotencyKey: text("idempotency_key").notNull(),
    customerId: text("customer_id").notNull(),
    paymentMethodId: text("payment_method_id").notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    /** The charge's metadata.top_up_id, so a payment can be found by purchase (findPayment). */
    topUpId: text("top_up_id"),
    /** succeeded, failed, requires_action, processing */
    status: text("status").notNull(),
    failureCode: text("failure_code"),
    failureMessage: text("failure_message"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("sim_payments_idempotency_key_idx").on(t.idempotencyKey),
    index("sim_payments_top_up_idx").on(t.topUpId),
  ],
);

/** The simulated provider's refunds, as Stripe keeps Refunds. */
export const simRefunds = pgTable(
  "sim_refunds",
  {
    id: text("id").primaryKey(),
    /** Like Stripe's Idempotency-Key; null for a refund made "in the provider's dashboard". */
    idempotencyKey: text("idempotency_key"),
    paymentId: text("payment_id").notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    status: text("status").notNull(),
    /** metadata.refund_id: the request of the service that made it. */
    requestId: text("request_id"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("sim_refunds_idempotency_key_idx").on(t.idempotencyKey),
    index("sim_refunds_payment_idx").on(t.paymentId, t.createdAt),
  ],
);

/** The simulated provider's disputes: one opens on every payment made with the "dispute" card. */
export const simDisputes = pgTable(
  "sim_disputes",
  {
    id: text("id").primaryKey(),
    paymentId: text("payment_id").notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    /** open, won, lost */
    status: text("status").notNull(),
    fundsWithdrawn: boolean("funds_withdrawn").notNull().default(false),
    fundsReinstated: boolean("funds_reinstated").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("sim_disputes_payment_idx").on(t.paymentId)],
);

/**
 * The simulated provider's webhooks: events it would send, kept until delivered to the service
 * (lib/points/intake/provider-events.ts), as Stripe retries a webhook until it is answered.
 */
export const simEvents = pgTable(
  "sim_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    /** The BillingEvent, as JSON. */
    event: text("event").notNull(),
    createdAt: createdAt(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("sim_events_pending_idx").on(t.createdAt).where(sql`${t.deliveredAt} is null`)],
);
