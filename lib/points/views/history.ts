import { and, asc, desc, eq, getTableColumns, isNotNull, type SQL, sql } from "drizzle-orm";
import { TOP_UP_SOURCES, TOP_UP_STATUSES, type TopUpSource, type TopUpStatus } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { type Organization, type Spend, spends, type TopUp, topUps } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { listProvisionedPaymentMethods } from "../accounts/organizations";
import { billingProblemOf } from "../cards/billing-problems";
import { PointsError } from "../errors";
import type { Services } from "../services";

export { TOP_UP_SOURCES, TOP_UP_STATUSES, type TopUpSource, type TopUpStatus };

/** What happened after payment: refunded (in whole or in part), or disputed (whatever the outcome). */
export const AFTER_PAYMENT_FILTERS = ["refunded", "disputed"] as const;
export type AfterPaymentFilter = (typeof AFTER_PAYMENT_FILTERS)[number];

export interface HistoryFilters {
  status?: TopUpStatus;
  source?: TopUpSource;
  after?: AfterPaymentFilter;
  /** Exactly this reference (the API's `reference`). */
  reference?: string;
  /**
   * Created at or after this instant, and before that one: UTC text Postgres reads to the
   * microsecond, as lib/rfc3339.ts's utcText writes it (ISO 8601 for years 1 to 9999).
   */
  createdGte?: string;
  createdLt?: string;
}

export interface ListTopUpsOptions extends HistoryFilters {
  /** The opaque `nextCursor` of the previous page; omitted for the newest page. */
  cursor?: string;
  limit: number;
}

export interface TopUpPage {
  topUps: TopUp[];
  /** Pass it back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export const MAX_PAGE_SIZE = 500;

/** A row's exact place in the listing order: its created_at to the microsecond, and its id. */
export interface TopUpPosition {
  createdAt: string;
  id: string;
}

/** Which side of a position a page is taken from: older rows (the next page) or newer ones (the previous page). */
export interface TopUpRange extends HistoryFilters {
  from?: { position: TopUpPosition; direction: "older" | "newer" };
  limit: number;
}

export interface TopUpRangePage {
  /** Newest first, whichever direction the page was taken in. */
  topUps: (TopUp & { position: TopUpPosition })[];
  /** Whether more rows lie beyond this page in its direction. */
  hasMore: boolean;
}

// Postgres keeps microseconds and a JS Date only milliseconds: a position carries the exact value.
const cursorAtColumn = (column: typeof topUps.createdAt | typeof spends.createdAt = topUps.createdAt) =>
  sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * One organisation's top-ups, API and dashboard alike, newest first, filtered by status, source
 * and what happened after payment. Keyset pagination on (created_at desc, id desc): each page is one backward range scan
 * of top_ups_organization_created_idx starting just below the previous page's last row, so a
 * deep page costs what the first one does, whatever the number of top-ups. The id breaks ties
 * between purchases created in the same microsecond, so no row is skipped or shown twice.
 */
export async function listTopUps(db: Db, organizationId: string, options: ListTopUpsOptions): Promise<TopUpPage> {
  const limit = pageSize(options.limit);
  const after = positionOfCursor(options.cursor);
  const { cursor: _cursor, ...filters } = options;
  const page = await listTopUpRange(db, organizationId, {
    ...filters,
    limit,
    from: after ? { position: after, direction: "older" } : undefined,
  });
  const last = page.topUps.at(-1);
  const nextCursor = page.hasMore && last ? encodeCursor(last.position) : null;
  return { topUps: page.topUps.map(({ position: _position, ...topUp }) => topUp), nextCursor };
}

function pageSize(limit: number): number {
  return Math.min(Math.max(Math.trunc(limit), 1), MAX_PAGE_SIZE);
}

/** The position a page link's cursor names; undefined for the newest page. */
function positionOfCursor(cursor: string | undefined): TopUpPosition | undefined {
  if (cursor === undefined) return undefined;
  const position = decodeCursor(cursor);
  if (!position) {
    throw new PointsError(
      "invalid_request",
      "That page link is not valid any more; start again from the newest page.",
      {
        details: { fields: { cursor: "is not a cursor this service issued" } },
      },
    );
  }
  return position;
}

/**
 * The one listing query behind the dashboard's History and GET /v3/points/top-ups: at most
 * `limit` rows matching the filters on one side of a position (or the newest), newest first.
 * Rows newer than a position are read oldest first, so the page is the one just above it, and
 * then turned round.
 */
export async function listTopUpRange(db: Db, organizationId: string, range: TopUpRange): Promise<TopUpRangePage> {
  const conditions: SQL[] = [eq(topUps.organizationId, organizationId)];
  if (range.status) conditions.push(eq(topUps.status, range.status));
  if (range.source) conditions.push(eq(topUps.source, range.source));
  if (range.reference !== undefined) conditions.push(eq(topUps.reference, range.reference));
  // Compared as text cast in the database, so an instant given to the microsecond keeps it.
  if (range.createdGte) conditions.push(sql`${topUps.createdAt} >= ${range.createdGte}::timestamptz`);
  if (range.createdLt) conditions.push(sql`${topUps.createdAt} < ${range.createdLt}::timestamptz`);
  // Money refunded, not Points: a small refund made at the provider may take no Points back.
  // Constants in the text, not parameters, so a generic plan still matches the partial index.
  if (range.after === "refunded") conditions.push(sql`${topUps.refundedAmount} > 0`);
  if (range.after === "disputed") conditions.push(isNotNull(topUps.disputeId));
  const newer = range.from?.direction === "newer";
  if (range.from) {
    const { createdAt, id } = range.from.position;
    // A row comparison, so Postgres uses it as the index range bound rather than a filter.
    conditions.push(
      newer
        ? sql`(${topUps.createdAt}, ${topUps.id}) > (${createdAt}::timestamptz, ${id})`
        : sql`(${topUps.createdAt}, ${topUps.id}) < (${createdAt}::timestamptz, ${id})`,
    );
  }
  const rows = await db
    .select({ ...getTableColumns(topUps), cursorAt: cursorAtColumn() })
    .from(topUps)
    .where(and(...conditions))
    .orderBy(...(newer ? [asc(topUps.createdAt), asc(topUps.id)] : [desc(topUps.createdAt), desc(topUps.id)]))
    .limit(range.limit + 1);
  const page = rows.slice(0, range.limit).map(({ cursorAt, ...topUp }) => ({
    ...topUp,
    position: { createdAt: cursorAt, id: topUp.id },
  }));
  return { topUps: newer ? page.reverse() : page, hasMore: rows.length > range.limit };
}

/** Where one of the organisation's top-ups stands in the listing order; undefined for another's or an unknown ID. */
export async function topUpPosition(
  db: Db,
  organizationId: string,
  topUpId: string,
): Promise<TopUpPosition | undefined> {
  const [row] = await db
    .select({ id: topUps.id, cursorAt: cursorAtColumn() })
    .from(topUps)
    .where(and(eq(topUps.id, topUpId), eq(topUps.organizationId, organizationId)));
  return row ? { createdAt: row.cursorAt, id: row.id } : undefined;
}

/** History's two kinds of row: a top-up (a purchase, whatever its outcome) and Points spent. */
export const HISTORY_KINDS = ["top_up", "spend"] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

/** What History shows: the top-up filters, and which kinds of row. */
export interface HistoryView extends HistoryFilters {
  /** Omitted: both kinds, unless a top-up filter is set. */
  kind?: HistoryKind;
  /** The first and last UTC day shown (YYYY-MM-DD), as chosen; createdGte and createdLt say the same as instants. */
  from?: string;
  to?: string;
}

export type HistoryItem = { kind: "top_up"; topUp: TopUp } | { kind: "spend"; spend: Spend };

export interface HistoryPage {
  /** Newest first, top-ups and spends in one order. */
  items: HistoryItem[];
  /** Pass it back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/**
 * The kinds a view lists. Status, source and what happened after payment describe purchases
 * only, so while one is set spends are left out rather than shown as if they matched.
 */
export function historyKinds(view: HistoryView): HistoryKind[] {
  if (view.kind) return [view.kind];
  return view.status || view.source || view.after ? ["top_up"] : ["top_up", "spend"];
}

/**
 * The dashboard's History: top-ups and spends in one list, newest first, paged by the same keyset
 * (created_at desc, id desc) as listTopUps, whose cursors it takes and issues. Each page reads at
 * most `limit` + 1 rows below the cursor from each table (one index range each) and merges them:
 * the page's rows are the newest `limit` of both, and a cursor at its last row is a position both
 * tables can be read below. Top-up and spend IDs differ in their prefix (tu_ after sp_ in any
 * collation), so the pair never ties and no row is skipped or shown twice across kinds.
 */
export async function listHistory(
  db: Db,
  organizationId: string,
  options: HistoryView & { cursor?: string; limit: number },
): Promise<HistoryPage> {
  const limit = pageSize(options.limit);
  const position = positionOfCursor(options.cursor);
  const { cursor: _cursor, kind: _kind, ...filters } = options;
  const kinds = historyKinds(options);
  const from = position ? { position, direction: "older" as const } : undefined;
  const [topUpPage, spendPage] = await Promise.all([
    kinds.includes("top_up") ? listTopUpRange(db, organizationId, { ...filters, limit, from }) : null,
    kinds.includes("spend") ? listSpendRange(db, organizationId, { ...filters, limit, from: position }) : null,
  ]);
  const merged = mergeNewestFirst<{ item: HistoryItem; position: TopUpPosition }>(
    (topUpPage?.topUps ?? []).map(({ position, ...topUp }) => ({ item: { kind: "top_up" as const, topUp }, position })),
    (spendPage?.spends ?? []).map(({ position, spend }) => ({ item: { kind: "spend" as const, spend }, position })),
  );
  const page = merged.slice(0, limit);
  const hasMore = merged.length > limit || Boolean(topUpPage?.hasMore) || Boolean(spendPage?.hasMore);
  const last = page.at(-1);
  return { items: page.map(({ item }) => item), nextCursor: hasMore && last ? encodeCursor(last.position) : null };
}

/** Spends older than a position (or the newest), newest first: one backward range of spends_created_idx. */
async function listSpendRange(
  db: Db,
  organizationId: string,
  range: Pick<HistoryFilters, "reference" | "createdGte" | "createdLt"> & { from?: TopUpPosition; limit: number },
): Promise<{ spends: { spend: Spend; position: TopUpPosition }[]; hasMore: boolean }> {
  const conditions: SQL[] = [eq(spends.organizationId, organizationId)];
  if (range.reference !== undefined) conditions.push(eq(spends.reference, range.reference));
  if (range.createdGte) conditions.push(sql`${spends.createdAt} >= ${range.createdGte}::timestamptz`);
  if (range.createdLt) conditions.push(sql`${spends.createdAt} < ${range.createdLt}::timestamptz`);
  if (range.from) {
    conditions.push(
      sql`(${spends.createdAt}, ${spends.id}) < (${range.from.createdAt}::timestamptz, ${range.from.id})`,
    );
  }
  const rows = await db
    .select({ ...getTableColumns(spends), cursorAt: cursorAtColumn(spends.createdAt) })
    .from(spends)
    .where(and(...conditions))
    .orderBy(desc(spends.createdAt), desc(spends.id))
    .limit(range.limit + 1);
  return {
    spends: rows
      .slice(0, range.limit)
      .map(({ cursorAt, ...spend }) => ({ spend, position: { createdAt: cursorAt, id: spend.id } })),
    hasMore: rows.length > range.limit,
  };
}

/**
 * Two lists, each newest first, as one. Positions' times are fixed-width UTC text, so they compare
 * as strings; only rows of different lists are compared, so the IDs' prefixes decide a tie.
 */
function mergeNewestFirst<T extends { position: TopUpPosition }>(left: T[], right: T[]): T[] {
  const merged: T[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    const a = left[i];
    const b = right[j];
    if (a && (!b || newerThan(a.position, b.position))) {
      merged.push(a);
      i++;
    } else if (b) {
      merged.push(b);
      j++;
    }
  }
  return merged;
}

function newerThan(a: TopUpPosition, b: TopUpPosition): boolean {
  return a.createdAt === b.createdAt ? a.id > b.id : a.createdAt > b.createdAt;
}

/**
 * Card labels by payment method ID for showing a history, expired cards included. A history
 * must still render when the provider cannot answer, so then the IDs are shown instead.
 */
export async function paymentMethodLabels(
  services: Services,
  organization: Pick<Organization, "billingCustomerId"> & { id?: string },
): Promise<Map<string, string>> {
  try {
    const methods = await listProvisionedPaymentMethods(services, organization);
    return new Map(methods.map((method) => [method.id, method.label]));
  } catch (error) {
    // A lasting refusal is logged once per cause, not once per page view.
    if (billingProblemOf(services.provider, error, organization.id)) return new Map();
    log().warn(
      { event: "payment_method_labels_unavailable" },
      `Payment method labels unavailable: ${error instanceof Error ? error.message : String(error)}`,
    );
    return new Map();
  }
}

/**
 * The card a purchase was made with, as a person reads it: the label stored with the purchase, so
 * it survives the provider losing the card; for purchases older than that, the provider's label
 * now; null when neither is known (the caller shows the ID).
 */
export function purchaseCardLabel(
  topUp: Pick<TopUp, "paymentSourceId" | "paymentMethodLabel">,
  labels: Map<string, string>,
): string | null {
  return topUp.paymentMethodLabel ?? labels.get(topUp.paymentSourceId) ?? null;
}

type Cursor = TopUpPosition;

const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The History's `cursor` for the page of rows older than a position (what `nextCursor` holds). */
export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id]), "utf8").toString("base64url");
}

function decodeCursor(value: string): Cursor | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
    if (!Array.isArray(parsed) || parsed.length !== 2) return null;
    const [createdAt, id] = parsed as unknown[];
    if (typeof createdAt !== "string" || !CURSOR_TIME.test(createdAt)) return null;
    if (typeof id !== "string" || !/^[A-Za-z0-9_]{1,64}$/.test(id)) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}
