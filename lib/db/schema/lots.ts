/*
 * Points in lots (docs/contract.md §10): every credit keeps its own remaining Points, a paid top-up's
 * and a grant's alike, and the balance is their sum. Only the SQL functions of migration 0020
 * (points_lots_take, points_lots_give) and the inserts beside the credits change them, always under
 * the organisation's row lock.
 */
import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./organizations";

export const pointLots = pgTable(
  "point_lots",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** lot_<top-up or grant id>: one lot per credit, never merged. */
    id: text("id").notNull(),
    /** paid (a top-up, an auto-recharge too) or promotional (a grant). */
    category: text("category").notNull(),
    /** The paid top-up it holds the Points of. */
    topUpId: text("top_up_id"),
    /** The grant it holds the Points of. */
    grantId: text("grant_id"),
    /** The Points it was credited with. */
    points: integer("points").notNull(),
    /** What is left of them to spend. */
    remaining: integer("remaining").notNull(),
    /** When what is left leaves the balance; null: never. */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    /** When `points.expiring` said it was within 30 days of its expiry, and within 7: once each. */
    notified30At: timestamp("notified_30_at", { withTimezone: true, mode: "date" }),
    notified7At: timestamp("notified_7_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex("point_lots_top_up_idx").on(t.organizationId, t.topUpId).where(sql`${t.topUpId} is not null`),
    uniqueIndex("point_lots_grant_idx").on(t.organizationId, t.grantId).where(sql`${t.grantId} is not null`),
    // The order of use, over the lots with Points left.
    index("point_lots_use_idx")
      .on(t.organizationId, t.expiresAt, t.category, t.createdAt, t.id)
      .where(sql`${t.remaining} > 0`),
    // The expiry job's scan: lots with Points left, by when they expire.
    index("point_lots_due_idx").on(t.expiresAt).where(sql`${t.remaining} > 0 and ${t.expiresAt} is not null`),
    check("point_lots_category_check", sql`${t.category} in ('paid','promotional')`),
    check(
      "point_lots_source_check",
      sql`(${t.category} = 'paid' and ${t.grantId} is null) or (${t.category} = 'promotional' and ${t.grantId} is not null and ${t.topUpId} is null)`,
    ),
    check("point_lots_points_check", sql`${t.points} between 1 and 1000000`),
    check("point_lots_remaining_check", sql`${t.remaining} between 0 and ${t.points}`),
  ],
);

/**
 * The operator's grants of promotional Points (`npm run points -- grant create`): each one's Points
 * are a promotional lot of their own (point_lots.grant_id). Never refunded, never on a receipt.
 */
export const grants = pgTable(
  "grants",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** gr_… */
    id: text("id").notNull(),
    points: integer("points").notNull(),
    reason: text("reason").notNull(),
    /** The operator's id for it, unique per organisation: the same reference again is the same grant. */
    reference: text("reference"),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    createdAt: createdAt(),
    /** When what was left of it was taken back (`grant void`), and how many Points that was. */
    voidedAt: timestamp("voided_at", { withTimezone: true, mode: "date" }),
    voidedPoints: integer("voided_points"),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex("grants_reference_idx").on(t.organizationId, t.reference).where(sql`${t.reference} is not null`),
    index("grants_id_idx").on(t.id),
    check("grants_points_check", sql`${t.points} between 1 and 1000000`),
    check("grants_reason_check", sql`char_length(${t.reason}) between 1 and 200`),
  ],
);
