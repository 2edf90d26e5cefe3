import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const createdAt = () =>
  timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
const updatedAt = () =>
  timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();

export const organizations = pgTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** The saved default currency; null means a purchase must name one (422 currency_required). */
    currency: text("currency"),
    /** Set by an admin in Settings and saved; the REST API follows only this saved value. */
    apiPurchasesEnabled: boolean("api_purchases_enabled").notNull().default(false),
    /** Operator setting: whether the organisation is eligible for API top-ups at all (404 when not). */
    apiAvailable: boolean("api_available").notNull().default(true),
    /**
     * Changed only in the transaction that inserts a points_ledger row, so it always equals
     * SUM(points_ledger.delta) for the organisation.
     */
    pointsBalance: bigint("points_balance", { mode: "number" }).notNull().default(0),
    maxPointsPerTopUp: integer("max_points_per_top_up"),
    maxPointsBalance: integer("max_points_balance"),
    frequencyLimitCount: integer("frequency_limit_count"),
    frequencyLimitWindowSeconds: integer("frequency_limit_window_seconds"),
    dailyPointsLimit: integer("daily_points_limit"),
    /** The organisation's customer at the billing provider (cus_…). Never sent by clients. */
    billingCustomerId: text("billing_customer_id").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // One customer backs one organisation: a second would list and charge the first's cards.
    uniqueIndex("organizations_billing_customer_idx").on(t.billingCustomerId),
    check("organizations_currency_check", sql`${t.currency} in ('USD','GBP','EUR')`),
    check("organizations_points_balance_check", sql`${t.pointsBalance} >= 0`),
  ],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** The first characters of the key, safe to show in lists. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the whole key, hex. The key itself is shown once and never stored. */
    hash: text("hash").notNull(),
    createdAt: createdAt(),
    /** Written at most once a minute per key, so lookups stay reads. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("api_keys_hash_idx").on(t.hash),
    index("api_keys_organization_idx").on(t.organizationId),
  ],
);

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** Stored lower-cased; unique across the service because it is the sign-in name. */
    email: text("email").notNull(),
    /** scrypt$N$r$p$salt$hash, see lib/auth/password.ts. */
    passwordHash: text("password_hash").notNull(),
    role: text("role").notNull(),
    /**
     * Carried in the session token and checked on every request: raised by a password reset, a
     * role change or a removal, it ends every session signed in before.
     */
    sessionVersion: integer("session_version").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("users_email_idx").on(t.email),
    check("users_role_check", sql`${t.role} in ('admin','member')`),
  ],
);

export const topUps = pgTable(
  "top_ups",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** The caller's reference; unique per organisation, case-sensitive. This is the idempotency key. */
    reference: text("reference").notNull(),
    /** The resolved, frozen request: a replay must match these exactly. */
    points: integer("points").notNull(),
    currency: text("currency").notNull(),
    /** Minor units, priced by the billing provider before the charge and never re-priced. */
    amount: bigint("amount", { mode: "number" }).notNull(),
    paymentSourceId: text("payment_source_id").notNull(),
    /**
     * The card's label when the purchase was made ("Visa •••• 4242"), shown once the provider no
     * longer knows the card (removed, detached, customer relinked). Null on rows older than it.
     */
    paymentMethodLabel: text("payment_method_label"),
    billingCustomerId: text("billing_customer_id").notNull(),
    source: text("source").notNull(),
    status: text("status").notNull(),
    failureCode: text("failure_code"),
    failureMessage: text("failure_message"),
    /**
     * The idempotency key sent to the provider (topup_<id>). Replaced only after the provider may
     * have forgotten it (23 hours) and a search by metadata found no payment, and then recorded
     * here before the charge is sent under the new key.
     */
    providerIdempotencyKey: text("provider_idempotency_key").notNull(),
    /** The provider's payment (pi_…) once known; recovery retrieves it instead of charging. */
    providerPaymentId: text("provider_payment_id"),
    /**
     * Set when the row moves to processing, before the charge is sent: the recovery point, and the
     * age of provider_idempotency_key (a re-send under it is safe only while the provider keeps it).
     */
    chargeAttemptedAt: timestamp("charge_attempted_at", { withTimezone: true, mode: "date" }),
    /**
     * The lease: the request holding lock_token may work on this purchase until locked_until.
     * It is a lease rather than a row lock so that no transaction stays open across a provider call,
     * and so that a crashed instance's work is taken over once the lease runs out.
     */
    lockToken: text("lock_token"),
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "date" }),
    attempts: integer("attempts").notNull().default(0),
    /** When the reconciler may next ask about it: capped exponential backoff after unknown answers. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    paidAt: timestamp("paid_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("top_ups_organization_reference_idx").on(t.organizationId, t.reference),
    uniqueIndex("top_ups_provider_payment_idx").on(t.providerPaymentId),
    uniqueIndex("top_ups_provider_idempotency_key_idx").on(t.providerIdempotencyKey),
    index("top_ups_organization_created_idx").on(t.organizationId, t.createdAt, t.id),
    index("top_ups_unresolved_idx")
      .on(t.status, t.nextAttemptAt, t.createdAt)
      .where(sql`${t.status} in ('pending','processing','awaiting_payment')`),
    check(
      "top_ups_status_check",
      sql`${t.status} in ('pending','processing','awaiting_payment','failed','paid')`,
    ),
    check("top_ups_source_check", sql`${t.source} in ('api','dashboard')`),
    check("top_ups_currency_check", sql`${t.currency} in ('USD','GBP','EUR')`),
    check("top_ups_points_check", sql`${t.points} in (100, 250, 500, 1000, 2500, 5000, 7500)`),
    check("top_ups_amount_check", sql`${t.amount} > 0`),
    check("top_ups_paid_at_check", sql`(${t.status} = 'paid') = (${t.paidAt} is not null)`),
  ],
);

export const pointsLedger = pgTable(
  "points_ledger",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** Unique: a paid top-up is credited exactly once, whatever races or retries happen. */
    topUpId: text("top_up_id").references(() => topUps.id),
    delta: bigint("delta", { mode: "number" }).notNull(),
    balanceAfter: bigint("balance_after", { mode: "number" }).notNull(),
    reason: text("reason").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("points_ledger_top_up_idx").on(t.topUpId),
    index("points_ledger_organization_idx").on(t.organizationId, t.createdAt),
    check("points_ledger_delta_check", sql`${t.delta} <> 0`),
    check("points_ledger_balance_after_check", sql`${t.balanceAfter} >= 0`),
    // Append-only in the database itself: a trigger (migration 0001) refuses UPDATE and DELETE.
  ],
);

/**
 * Failed sign-ins, one row each, counted per key (`email:<address>` or `ip:<address>`) over a
 * window, in Postgres so that every app instance shares the throttle (lib/auth/throttle.ts).
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    key: text("key").notNull(),
    failedAt: timestamp("failed_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("sign_in_failures_key_idx").on(t.key, t.failedAt)],
);

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
  receivedAt: timestamp("received_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/*
 * The simulated billing provider keeps its own state in these tables, apart from the
 * purchase tables: it plays the part of an outside system, so the purchase code only
 * reaches it through lib/billing/simulated.ts and never joins to it.
 */

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

export type Organization = typeof organizations.$inferSelect;
export type NewOrganization = typeof organizations.$inferInsert;
export type ApiKey = typeof apiKeys.$inferSelect;
export type User = typeof users.$inferSelect;
export type TopUp = typeof topUps.$inferSelect;
export type NewTopUp = typeof topUps.$inferInsert;
export type LedgerEntry = typeof pointsLedger.$inferSelect;
export type SimPaymentMethod = typeof simPaymentMethods.$inferSelect;
export type SimPayment = typeof simPayments.$inferSelect;
