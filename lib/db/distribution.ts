/**
 * How the schema would be spread over several Postgres nodes (Citus) by organisation, and what
 * stands in the way today (docs/scaling.md, "Beyond one primary"). Citus distributes a table by one
 * column; every primary key and unique index of a distributed table must contain that column, a
 * foreign key between two distributed tables must include it on both sides, and a table that
 * belongs to no organisation is either a reference table (copied to every node) or stays on the
 * coordinator. distribution.test.ts reads a migrated database's catalog and fails when a table, a
 * key or an index is not accounted for here, or when something listed here is gone.
 */

export type TableRole =
  /** An organisation's own rows, distributed by the column named. */
  | { kind: "distributed"; by: "id" | "organization_id" }
  /** Not an organisation's: stays on the coordinator (or becomes a reference table). */
  | { kind: "local"; why: string };

export const TABLE_ROLES: Record<string, TableRole> = {
  organizations: { kind: "distributed", by: "id" },
  api_keys: { kind: "distributed", by: "organization_id" },
  users: { kind: "distributed", by: "organization_id" },
  top_ups: { kind: "distributed", by: "organization_id" },
  refunds: { kind: "distributed", by: "organization_id" },
  points_ledger: { kind: "distributed", by: "organization_id" },
  events: { kind: "distributed", by: "organization_id" },
  webhook_endpoints: { kind: "distributed", by: "organization_id" },
  webhook_deliveries: { kind: "distributed", by: "organization_id" },
  webhook_attempts: { kind: "distributed", by: "organization_id" },
  audit_log: { kind: "distributed", by: "organization_id" },
  spends: { kind: "distributed", by: "organization_id" },
  point_lots: { kind: "distributed", by: "organization_id" },
  grants: { kind: "distributed", by: "organization_id" },
  stripe_events: { kind: "local", why: "the provider's event ids, checked before the organisation is known" },
  deferred_billing_events: { kind: "local", why: "provider events waiting for a purchase, read by the reconciler" },
  sign_in_failures: {
    kind: "local",
    why: "the sign-in throttle, keyed by email or address before any account is known",
  },
  sim_customers: { kind: "local", why: "the simulated provider's own state (an outside system's)" },
  sim_payment_methods: { kind: "local", why: "the simulated provider's own state" },
  sim_payments: { kind: "local", why: "the simulated provider's own state" },
  sim_refunds: { kind: "local", why: "the simulated provider's own state" },
  sim_disputes: { kind: "local", why: "the simulated provider's own state" },
  sim_events: { kind: "local", why: "the simulated provider's own state" },
};

/**
 * What would have to change before the distributed tables can be distributed: each primary key,
 * unique index or foreign key of theirs that does not contain the organisation's column, by name,
 * with the change it needs.
 */
export const CHANGES_FOR_DISTRIBUTION: Record<string, string> = {
  // Primary keys on a globally unique, prefixed id: (organization_id, id) instead.
  api_keys_pkey: "primary key (organization_id, id)",
  users_pkey: "primary key (organization_id, id)",
  top_ups_pkey: "primary key (organization_id, id)",
  refunds_pkey: "primary key (organization_id, id)",
  points_ledger_pkey: "primary key (organization_id, id)",
  // Unique across organisations, looked up before the organisation is known.
  organizations_billing_customer_idx:
    "a lookup table billing_customer_id -> organization_id (a reference table), unique there; the webhook reads it first",
  api_keys_hash_idx: "a lookup table key hash -> organization_id, unique there; authentication reads it first",
  users_email_idx: "a lookup table email -> organization_id, unique there; sign-in reads it first",
  top_ups_provider_payment_idx:
    "unique (organization_id, provider_payment_id); the webhook finds the organisation by the payment's customer",
  top_ups_provider_idempotency_key_idx: "unique (organization_id, provider_idempotency_key)",
  top_ups_dispute_idx: "unique (organization_id, dispute_id)",
  refunds_request_idx: "unique (organization_id, top_up_id, request_key)",
  refunds_provider_refund_idx: "unique (organization_id, provider_refund_id)",
  refunds_idempotency_key_idx: "unique (organization_id, provider_idempotency_key)",
  points_ledger_top_up_idx: "unique (organization_id, top_up_id) where kind = 'purchase'",
  points_ledger_cause_idx: "unique (organization_id, kind, cause_id)",
  // Foreign keys between distributed tables that leave the organisation out.
  top_ups_api_key_id_api_keys_id_fk: "foreign key (organization_id, api_key_id) to api_keys (organization_id, id)",
  refunds_top_up_id_top_ups_id_fk: "foreign key (organization_id, top_up_id) to top_ups (organization_id, id)",
  points_ledger_top_up_id_top_ups_id_fk: "foreign key (organization_id, top_up_id) to top_ups (organization_id, id)",
};
