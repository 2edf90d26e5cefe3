import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";

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
    /**
     * Points an open dispute holds: the organisation's still, but not spendable (not in
     * points_balance). Changed only beside a ledger row, so it equals SUM(points_ledger.held_delta).
     */
    heldPoints: bigint("held_points", { mode: "number" }).notNull().default(0),
    maxPointsPerTopUp: integer("max_points_per_top_up"),
    maxPointsBalance: integer("max_points_balance"),
    frequencyLimitCount: integer("frequency_limit_count"),
    frequencyLimitWindowSeconds: integer("frequency_limit_window_seconds"),
    dailyPointsLimit: integer("daily_points_limit"),
    /**
     * Paid Points expire this many days after their purchase (docs/contract.md §10); null: never.
     * Applies to purchases made from when it is set.
     */
    paidPointsExpireAfterDays: integer("paid_points_expire_after_days"),
    /** The organisation's customer at the billing provider (cus_…). Never sent by clients. */
    billingCustomerId: text("billing_customer_id").notNull(),
    /**
     * The sequence of the organisation's last event (lib/points/events/events.ts): bumped in the transaction
     * that writes the event, under this row's lock, so the numbers are 1, 2, 3… in commit order.
     */
    eventSequence: bigint("event_sequence", { mode: "number" }).notNull().default(0),
    /** Below it, the balance is low: crossing it downward is one `balance.low` event. Null: none. */
    lowBalanceThreshold: integer("low_balance_threshold"),
    /** Auto-recharge (lib/points/recharge/auto-recharge.ts): on, below what, which bundle, and a monthly cap. */
    autoRechargeEnabled: boolean("auto_recharge_enabled").notNull().default(false),
    autoRechargeBelow: integer("auto_recharge_below"),
    autoRechargePoints: integer("auto_recharge_points"),
    /** Points auto-recharge may buy per calendar month (UTC); null: no cap. */
    autoRechargeMonthlyMax: integer("auto_recharge_monthly_max"),
    /** Why auto-recharge is paused (a decline, a card asking for its holder); null when it is not. */
    autoRechargePausedReason: text("auto_recharge_paused_reason"),
    /**
     * Crossings below `auto_recharge_below` while it was on, counted under this row's lock; each
     * names the purchase that answers it. `auto_recharge_handled` is the last one dealt with.
     */
    autoRechargeCrossings: bigint("auto_recharge_crossings", { mode: "number" }).notNull().default(0),
    autoRechargeHandled: bigint("auto_recharge_handled", { mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // One customer backs one organisation: a second would list and charge the first's cards.
    uniqueIndex("organizations_billing_customer_idx").on(t.billingCustomerId),
    check("organizations_currency_check", sql`${t.currency} in ('USD','GBP','EUR')`),
    check("organizations_points_balance_check", sql`${t.pointsBalance} >= 0`),
    check("organizations_held_points_check", sql`${t.heldPoints} >= 0`),
    check(
      "organizations_paid_points_expiry_check",
      sql`${t.paidPointsExpireAfterDays} is null or ${t.paidPointsExpireAfterDays} between 1 and 36500`,
    ),
    check("organizations_low_balance_threshold_check", sql`${t.lowBalanceThreshold} > 0`),
    check(
      "organizations_auto_recharge_check",
      sql`not ${t.autoRechargeEnabled} or (${t.autoRechargeBelow} > 0 and ${t.autoRechargePoints} in (100, 250, 500, 1000, 2500, 5000, 7500))`,
    ),
    check("organizations_auto_recharge_monthly_max_check", sql`${t.autoRechargeMonthlyMax} > 0`),
  ],
);

/** The name of a key made without one (`key create` without --name), and of every key made before names. */
export const UNNAMED_API_KEY = "Unnamed key";

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /**
     * What the key is for, as the person who made it put it: trimmed, 1 to 100 characters
     * (lib/points/accounts/api-keys.ts checks it; the column's check holds the length). Not unique.
     */
    name: text("name").notNull().default(UNNAMED_API_KEY),
    /** The first characters of the key, safe to show in lists. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the whole key, hex. The key itself is shown once and never stored. */
    hash: text("hash").notNull(),
    createdAt: createdAt(),
    /** Written at most once a minute per key, so lookups stay reads. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    /**
     * What the key may do: `purchase` (every endpoint; keys made before scopes existed), `spend`
     * (every GET, the quote and spends, never a purchase) or `read` (every GET and the quote). Set
     * when the key is created, never changed.
     */
    scope: text("scope").notNull().default("purchase"),
    /**
     * The key's own cap on the Points of its purchases in a rolling 24 hours, checked after the
     * organisation's limits (lib/points/limits/limits.ts); null when the key has none.
     */
    dailyPointsCap: integer("daily_points_cap"),
  },
  (t) => [
    uniqueIndex("api_keys_hash_idx").on(t.hash),
    index("api_keys_organization_idx").on(t.organizationId),
    check("api_keys_scope_check", sql`${t.scope} in ('purchase','spend','read')`),
    check("api_keys_daily_points_cap_check", sql`${t.dailyPointsCap} > 0`),
    check("api_keys_read_no_cap_check", sql`${t.scope} = 'purchase' or ${t.dailyPointsCap} is null`),
    check("api_keys_name_check", sql`char_length(${t.name}) between 1 and 100`),
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
  (t) => [uniqueIndex("users_email_idx").on(t.email), check("users_role_check", sql`${t.role} in ('admin','member')`)],
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
