import { sql } from "drizzle-orm";
import {
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
    pointsBalance: integer("points_balance").notNull().default(0),
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
  (t) => [check("organizations_currency_check", sql`${t.currency} in ('USD','GBP','EUR')`)],
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
    amount: integer("amount").notNull(),
    paymentSourceId: text("payment_source_id").notNull(),
    billingCustomerId: text("billing_customer_id").notNull(),
    source: text("source").notNull(),
    status: text("status").notNull(),
    failureCode: text("failure_code"),
    failureMessage: text("failure_message"),
    /** The only idempotency key ever sent to the provider for this purchase (topup_<id>). */
    providerIdempotencyKey: text("provider_idempotency_key").notNull(),
    /** The provider's payment (pi_…) once known; recovery retrieves it instead of charging. */
    providerPaymentId: text("provider_payment_id"),
    /** Set when the row moves to processing, before the charge is sent: the recovery point. */
    chargeAttemptedAt: timestamp("charge_attempted_at", { withTimezone: true, mode: "date" }),
    /**
     * The lease: the request holding lock_token may work on this purchase until locked_until.
     * It is a lease rather than a row lock so that no transaction stays open across a provider call,
     * and so that a crashed instance's work is taken over once the lease runs out.
     */
    lockToken: text("lock_token"),
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "date" }),
    attempts: integer("attempts").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    paidAt: timestamp("paid_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("top_ups_organization_reference_idx").on(t.organizationId, t.reference),
    uniqueIndex("top_ups_provider_payment_idx").on(t.providerPaymentId),
    index("top_ups_organization_created_idx").on(t.organizationId, t.createdAt, t.id),
    index("top_ups_unresolved_idx")
      .on(t.status, t.lockedUntil)
      .where(sql`${t.status} in ('pending','processing','awaiting_payment')`),
    check(
      "top_ups_status_check",
      sql`${t.status} in ('pending','processing','awaiting_payment','failed','paid')`,
    ),
    check("top_ups_source_check", sql`${t.source} in ('api','dashboard')`),
    check("top_ups_currency_check", sql`${t.currency} in ('USD','GBP','EUR')`),
    check("top_ups_points_check", sql`${t.points} > 0`),
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
    delta: integer("delta").notNull(),
    balanceAfter: integer("balance_after").notNull(),
    reason: text("reason").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("points_ledger_top_up_idx").on(t.topUpId),
    index("points_ledger_organization_idx").on(t.organizationId, t.createdAt),
  ],
);

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
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    /** succeeded, failed, requires_action, processing */
    status: text("status").notNull(),
    failureCode: text("failure_code"),
    failureMessage: text("failure_message"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("sim_payments_idempotency_key_idx").on(t.idempotencyKey)],
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
