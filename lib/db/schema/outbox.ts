/*
 * What the service tells organisations: their events (an outbox written in the transaction of the
 * change), the webhook endpoints that receive them, and each delivery with its attempts. Every key
 * is led by organization_id, so these tables can be distributed by organisation.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";
import { organizations } from "./organizations";

export const events = pgTable(
  "events",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** 1, 2, 3… per organisation, from organizations.event_sequence. */
    sequence: bigint("sequence", { mode: "number" }).notNull(),
    id: text("id").notNull(),
    type: text("type").notNull(),
    /**
     * The event's data. For a top-up's events, `top_up` is the purchase's row as it was written
     * (to_jsonb), turned into the API's TopUp when read, so the one function that shapes a TopUp
     * shapes this too (lib/points/events/events.ts).
     */
    data: jsonb("data").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    primaryKey({ name: "events_pkey", columns: [t.organizationId, t.sequence] }),
    uniqueIndex("events_id_idx").on(t.organizationId, t.id),
    index("events_created_idx").on(t.createdAt),
  ],
);

/** A secret rotated away, still signing until `signs_until` (ISO 8601). */
export interface RetiredSecret {
  secret: string;
  signs_until: string;
}

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    id: text("id").notNull(),
    url: text("url").notNull(),
    /** The event types it receives; null for every type. */
    eventTypes: text("event_types").array(),
    status: text("status").notNull().default("enabled"),
    /** Why it was disabled, in words (an admin, a 410, three days of failures). */
    disabledReason: text("disabled_reason"),
    /** whsec_…: signs every delivery. Needed in clear to sign, so kept like a password to a partner's system. */
    secret: text("secret").notNull(),
    /** Unused since migration 0019 (retired_secrets replaced them); kept so instances still running the release before it read on. */
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true, mode: "date" }),
    /** Secrets rotated away that still sign beside `secret` until their time, newest first. */
    retiredSecrets: jsonb("retired_secrets").$type<RetiredSecret[]>().notNull().default([]),
    /** The last event sequence turned into deliveries for this endpoint (events after it are not yet). */
    fannedOutThrough: bigint("fanned_out_through", { mode: "number" }).notNull(),
    /** Since when every attempt failed (null while the last one succeeded): three days of it disable the endpoint. */
    failingSince: timestamp("failing_since", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: "webhook_endpoints_pkey", columns: [t.organizationId, t.id] }),
    index("webhook_endpoints_id_idx").on(t.id),
    check("webhook_endpoints_status_check", sql`${t.status} in ('enabled','disabled')`),
  ],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    organizationId: text("organization_id").notNull(),
    id: text("id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    eventSequence: bigint("event_sequence", { mode: "number" }).notNull(),
    eventId: text("event_id").notNull(),
    /** pending (to be tried, or tried again), delivered, failed (given up after three days). */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
    /** Failing until then, it is given up (three days after it was made, or sent again by hand). */
    giveUpAt: timestamp("give_up_at", { withTimezone: true, mode: "date" }).notNull(),
    /** A sender's claim: no other sender takes the delivery before this (one send at a time). */
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "date" }),
    lockToken: text("lock_token"),
    lastResponseStatus: integer("last_response_status"),
    lastError: text("last_error"),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: "webhook_deliveries_pkey", columns: [t.organizationId, t.id] }),
    uniqueIndex("webhook_deliveries_event_idx").on(t.organizationId, t.endpointId, t.eventSequence),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    /** The claim's walk: each endpoint with deliveries pending, then its first due ones (lib/webhooks/claim.ts). */
    index("webhook_deliveries_endpoint_due_idx")
      .on(t.organizationId, t.endpointId, t.nextAttemptAt, t.eventSequence)
      .where(sql`${t.status} = 'pending'`),
    foreignKey({
      name: "webhook_deliveries_endpoint_fk",
      columns: [t.organizationId, t.endpointId],
      foreignColumns: [webhookEndpoints.organizationId, webhookEndpoints.id],
    }).onDelete("cascade"),
    foreignKey({
      name: "webhook_deliveries_event_fk",
      columns: [t.organizationId, t.eventSequence],
      foreignColumns: [events.organizationId, events.sequence],
    }).onDelete("cascade"),
    check("webhook_deliveries_status_check", sql`${t.status} in ('pending','delivered','failed')`),
  ],
);

export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    organizationId: text("organization_id").notNull(),
    deliveryId: text("delivery_id").notNull(),
    attempt: integer("attempt").notNull(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
    responseStatus: integer("response_status"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
  },
  (t) => [
    primaryKey({ name: "webhook_attempts_pkey", columns: [t.organizationId, t.deliveryId, t.attempt] }),
    foreignKey({
      name: "webhook_attempts_delivery_fk",
      columns: [t.organizationId, t.deliveryId],
      foreignColumns: [webhookDeliveries.organizationId, webhookDeliveries.id],
    }).onDelete("cascade"),
  ],
);

/**
 * Who changed what: every change an admin, an API key or an operator makes, written in the
 * transaction of the change (lib/points/audit.ts). Append-only: a trigger (migration 0014) refuses
 * any update, delete or truncate.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** aud_…, ordered by when it was made (newOrderedId). */
    id: text("id").notNull(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id").notNull(),
    action: text("action").notNull(),
    /** What was changed: an id (key_…, usr_…, we_…, tu_…, pm_…) or the organisation's. */
    target: text("target").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
    requestId: text("request_id"),
  },
  (t) => [
    primaryKey({ name: "audit_log_pkey", columns: [t.organizationId, t.id] }),
    // Ids sort in the order they were made (lib/ids.ts newOrderedId): the log's order.
    index("audit_log_order_idx").on(t.organizationId, t.id),
    check("audit_log_actor_type_check", sql`${t.actorType} in ('user','api_key','operator')`),
  ],
);
