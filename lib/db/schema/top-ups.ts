import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";
import { apiKeys, organizations } from "./organizations";

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
    /**
     * When its Points expire, frozen when it is made from the organisation's
     * paid_points_expire_after_days: its lot's expires_at once paid. Null: never.
     */
    pointsExpireAt: timestamp("points_expire_at", { withTimezone: true, mode: "date" }),
    billingCustomerId: text("billing_customer_id").notNull(),
    /**
     * The billing provider that charged it (simulated or stripe), recorded with the purchase: only
     * that provider is asked about its payment, settled, refunded or reconciled with
     * (lib/points/purchase/charged-by.ts). Null only on rows written outside the service (test fixtures),
     * which any provider may settle.
     */
    provider: text("provider"),
    source: text("source").notNull(),
    /**
     * The API key that made the purchase (null for the dashboard's, and for API purchases older
     * than key caps): a key's daily Points cap counts the purchases made with it.
     */
    apiKeyId: text("api_key_id").references(() => apiKeys.id),
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
    /**
     * What succeeded refunds took back: their Points (debited, or recorded as a shortfall) and
     * money. Changed only in the transaction that writes the refund's ledger row.
     */
    refundedPoints: integer("refunded_points").notNull().default(0),
    refundedAmount: bigint("refunded_amount", { mode: "number" }).notNull().default(0),
    /** The provider's dispute of this payment (a payment has at most one), once one opened. */
    disputeId: text("dispute_id"),
    /**
     * What the provider has said of the dispute, merged so that no event order can undo it: its
     * status (open, won, lost; a decision is never reopened) and whether the money was withdrawn
     * or reinstated (once true, true).
     */
    disputeStatus: text("dispute_status"),
    disputeFundsWithdrawn: boolean("dispute_funds_withdrawn").notNull().default(false),
    disputeFundsReinstated: boolean("dispute_funds_reinstated").notNull().default(false),
    /** The Points the dispute covers. */
    disputePoints: integer("dispute_points"),
    /**
     * Where those Points stand, following the money (lib/points/after-payment/disputes.ts): held while the
     * dispute is open, removed once the money is withdrawn or the dispute lost, released once it
     * is reinstated or won.
     */
    disputePointsState: text("dispute_points_state"),
    disputeOpenedAt: timestamp("dispute_opened_at", { withTimezone: true, mode: "date" }),
    disputeClosedAt: timestamp("dispute_closed_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("top_ups_organization_reference_idx").on(t.organizationId, t.reference),
    // Unique where set; a purchase has no payment id until its charge is answered, and no index
    // entry until then.
    uniqueIndex("top_ups_provider_payment_idx").on(t.providerPaymentId).where(sql`${t.providerPaymentId} is not null`),
    uniqueIndex("top_ups_provider_idempotency_key_idx").on(t.providerIdempotencyKey),
    index("top_ups_organization_created_idx").on(t.organizationId, t.createdAt, t.id),
    // History's and GET /v3/points/top-ups' filters, each read as one keyset range in listing order.
    index("top_ups_organization_status_created_idx").on(t.organizationId, t.status, t.createdAt, t.id),
    index("top_ups_organization_source_created_idx").on(t.organizationId, t.source, t.createdAt, t.id),
    index("top_ups_organization_refunded_idx")
      .on(t.organizationId, t.createdAt, t.id)
      .where(sql`${t.refundedAmount} > 0`),
    index("top_ups_organization_disputed_idx")
      .on(t.organizationId, t.createdAt, t.id)
      .where(sql`${t.disputeId} is not null`),
    // The Overview's count of disputes holding Points.
    index("top_ups_organization_held_idx").on(t.organizationId).where(sql`${t.disputePointsState} = 'held'`),
    index("top_ups_api_key_created_idx").on(t.apiKeyId, t.createdAt),
    index("top_ups_unresolved_idx")
      .on(t.status, t.nextAttemptAt, t.createdAt)
      .where(sql`${t.status} in ('pending','processing','awaiting_payment')`),
    check("top_ups_status_check", sql`${t.status} in ('pending','processing','awaiting_payment','failed','paid')`),
    check("top_ups_source_check", sql`${t.source} in ('api','dashboard','auto_recharge')`),
    check("top_ups_provider_check", sql`${t.provider} in ('simulated','stripe')`),
    check("top_ups_currency_check", sql`${t.currency} in ('USD','GBP','EUR')`),
    check("top_ups_points_check", sql`${t.points} in (100, 250, 500, 1000, 2500, 5000, 7500)`),
    check("top_ups_amount_check", sql`${t.amount} > 0`),
    check("top_ups_paid_at_check", sql`(${t.status} = 'paid') = (${t.paidAt} is not null)`),
    uniqueIndex("top_ups_dispute_idx").on(t.disputeId).where(sql`${t.disputeId} is not null`),
    check("top_ups_dispute_status_check", sql`${t.disputeStatus} in ('open','won','lost')`),
    check("top_ups_dispute_points_state_check", sql`${t.disputePointsState} in ('held','removed','released')`),
    // Never more taken back than was bought: refunds and a lost dispute together stay within the Points.
    check(
      "top_ups_taken_back_check",
      sql`${t.refundedPoints} >= 0 and ${t.refundedAmount} >= 0 and ${t.refundedAmount} <= ${t.amount} and ${t.points} - ${t.refundedPoints} - (case when ${t.disputePointsState} = 'removed' then coalesce(${t.disputePoints}, 0) else 0 end) >= 0`,
    ),
  ],
);

/**
 * A refund of a top-up: asked for by an operator (top-up refund), or made at the provider
 * (Stripe's dashboard) and learned from its events. An operator's is recorded, with the
 * idempotency key it is sent under, before the provider is called: a crash or a second operator
 * re-sends under the same key and refunds once.
 */
export const refunds = pgTable(
  "refunds",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    topUpId: text("top_up_id")
      .notNull()
      .references(() => topUps.id),
    /** operator (this service's command) or provider (made elsewhere, learned from an event). */
    source: text("source").notNull(),
    /** An operator's request, per top-up: the same request again is this refund, not another. */
    requestKey: text("request_key"),
    /** Sent with an operator's refund (refund_<id>); null for one made at the provider. */
    providerIdempotencyKey: text("provider_idempotency_key"),
    /** The provider's refund (re_…), once known. */
    providerRefundId: text("provider_refund_id"),
    /** The Points it takes back, and the money, in the top-up's currency's minor units. */
    points: integer("points").notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    /** requested (sent or about to be, answer not yet known), pending, succeeded, failed, canceled. */
    status: text("status").notNull(),
    reason: text("reason"),
    failureMessage: text("failure_message"),
    /** When its Points were debited (its ledger row written); null until it succeeded. */
    appliedAt: timestamp("applied_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A request that moved no money (refused, canceled) gives its name back: the same request again is
    // a new attempt. One that may move money keeps it, so the same request again is that refund.
    uniqueIndex("refunds_request_idx").on(t.topUpId, t.requestKey).where(sql`${t.status} not in ('failed','canceled')`),
    uniqueIndex("refunds_provider_refund_idx").on(t.providerRefundId),
    uniqueIndex("refunds_idempotency_key_idx").on(t.providerIdempotencyKey),
    index("refunds_top_up_idx").on(t.topUpId, t.createdAt),
    check("refunds_source_check", sql`${t.source} in ('operator','provider')`),
    check("refunds_status_check", sql`${t.status} in ('requested','pending','succeeded','failed','canceled')`),
    check("refunds_amounts_check", sql`${t.points} >= 0 and ${t.amount} > 0`),
  ],
);

export const pointsLedger = pgTable(
  "points_ledger",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** The top-up the movement concerns; a purchase credit is unique per top-up. */
    topUpId: text("top_up_id").references(() => topUps.id),
    /**
     * purchase (a paid top-up's credit), refund, dispute_hold, dispute_release, dispute_loss, or
     * usage (Points spent, recorded by an operator).
     */
    kind: text("kind").notNull().default("purchase"),
    /** Change to the spendable balance (organizations.points_balance). */
    delta: bigint("delta", { mode: "number" }).notNull(),
    balanceAfter: bigint("balance_after", { mode: "number" }).notNull(),
    /** Change to the Points held by disputes (organizations.held_points). */
    heldDelta: bigint("held_delta", { mode: "number" }).notNull().default(0),
    /**
     * Points a refund or a dispute hold should have taken but could not, because they had been
     * spent already: the balance never goes below zero, and operators are told.
     */
    shortfall: integer("shortfall").notNull().default(0),
    /** What caused it at the provider: the refund (re_…) or the dispute (du_…); unique per kind. */
    causeId: text("cause_id"),
    /** The provider's event that brought it, when one did. */
    eventId: text("event_id"),
    /**
     * The lots it changed, and by how much: `[{ "lot_id", "category", "points" }]`, Points taken
     * negative and given back positive. Null on rows older than lots (migration 0020).
     */
    lots: jsonb("lots").$type<Array<{ lot_id: string; category: string; points: number }>>(),
    reason: text("reason").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("points_ledger_top_up_idx").on(t.topUpId).where(sql`${t.kind} = 'purchase'`),
    // Each provider refund and each step of a dispute moves Points at most once. A purchase's row
    // has no cause (its top-up is the cause, unique above): no entry here.
    uniqueIndex("points_ledger_cause_idx").on(t.kind, t.causeId).where(sql`${t.causeId} is not null`),
    index("points_ledger_organization_idx").on(t.organizationId, t.createdAt),
    index("points_ledger_top_up_movements_idx").on(t.topUpId, t.createdAt),
    check(
      "points_ledger_kind_check",
      sql`${t.kind} in ('purchase','refund','dispute_hold','dispute_release','dispute_loss','usage','grant','grant_void','expiry')`,
    ),
    check("points_ledger_delta_check", sql`${t.kind} <> 'purchase' or ${t.delta} > 0`),
    check("points_ledger_shortfall_check", sql`${t.shortfall} >= 0`),
    check("points_ledger_cause_check", sql`${t.kind} in ('purchase','usage') or ${t.causeId} is not null`),
    check("points_ledger_balance_after_check", sql`${t.balanceAfter} >= 0`),
    // Append-only in the database itself: a trigger (migration 0001) refuses UPDATE and DELETE.
  ],
);
