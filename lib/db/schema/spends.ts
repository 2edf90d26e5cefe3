/*
 * Points spent through the API (POST /v3/points/spends) or by an operator (`org spend`). Keys are
 * led by organization_id, as every table's, so the data can be distributed by organisation.
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./organizations";

export const spends = pgTable(
  "spends",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** sp_…; the ledger's usage row names it as its cause. */
    id: text("id").notNull(),
    /** The caller's id for the spend, unique per organisation: a retry with it never spends twice. */
    reference: text("reference").notNull(),
    points: integer("points").notNull(),
    description: text("description"),
    /** api (a key) or operator (`npm run points -- org spend`). */
    source: text("source").notNull(),
    /** The key that spent, for `api`. */
    apiKeyId: text("api_key_id"),
    /** The spendable balance the spend left. */
    balanceAfter: bigint("balance_after", { mode: "number" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex("spends_reference_idx").on(t.organizationId, t.reference),
    index("spends_created_idx").on(t.organizationId, t.createdAt, t.id),
    check("spends_points_check", sql`${t.points} between 1 and 1000000`),
    check("spends_source_check", sql`${t.source} in ('api','operator')`),
    check("spends_description_check", sql`${t.description} is null or char_length(${t.description}) <= 200`),
  ],
);
