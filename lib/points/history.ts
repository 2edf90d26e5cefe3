import { and, asc, desc, eq, getTableColumns, isNotNull, type SQL, sql } from "drizzle-orm";
import { TOP_UP_SOURCES, TOP_UP_STATUSES, type TopUpSource, type TopUpStatus } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { type Organization, type TopUp, topUps } from "@/lib/db/schema";
import { csvText } from "@/lib/format";
import { log } from "@/lib/observability/log";
import { billingProblemOf } from "./billing-problems";
import { PointsError } from "./errors";
import { listProvisionedPaymentMethods } from "./organizations";
import type { Services } from "./services";
import { type TopUpJson, toTopUpJson } from "./top-up-json";

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
const cursorAtColumn = () =>
  sql<string>`to_char(${topUps.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * One organisation's top-ups, API and dashboard alike, newest first, filtered by status, source
 * and what happened after payment. Keyset pagination on (created_at desc, id desc): each page is one backward range scan
 * of top_ups_organization_created_idx starting just below the previous page's last row, so a
 * deep page costs what the first one does, whatever the number of top-ups. The id breaks ties
 * between purchases created in the same microsecond, so no row is skipped or shown twice.
 */
export async function listTopUps(db: Db, organizationId: string, options: ListTopUpsOptions): Promise<TopUpPage> {
  const limit = Math.min(Math.max(Math.trunc(options.limit), 1), MAX_PAGE_SIZE);
  const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
  if (options.cursor !== undefined && !after) {
    throw new PointsError(
      "invalid_request",
      "That page link is not valid any more; start again from the newest page.",
      {
        details: { fields: { cursor: "is not a cursor this service issued" } },
      },
    );
  }
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

/** Reads the history filters from search parameters; anything unknown means "all". */
export function parseHistoryFilters(params: Record<string, string | string[] | undefined>): HistoryFilters & {
  cursor?: string;
} {
  const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const status = one(params.status);
  const source = one(params.source);
  const after = one(params.after);
  const cursor = one(params.cursor);
  return {
    status: (TOP_UP_STATUSES as readonly string[]).includes(status ?? "") ? (status as TopUpStatus) : undefined,
    source: (TOP_UP_SOURCES as readonly string[]).includes(source ?? "") ? (source as TopUpSource) : undefined,
    after: (AFTER_PAYMENT_FILTERS as readonly string[]).includes(after ?? "")
      ? (after as AfterPaymentFilter)
      : undefined,
    cursor: cursor ? cursor : undefined,
  };
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

/** A CSV column: a field of the API's TopUp object, or one of its dispute's, flattened. */
export type CsvColumn = Exclude<keyof TopUpJson, "failure" | "dispute"> | "dispute_status" | "dispute_points_state";

/** The first ten columns are those of earlier exports, in their order; what happened after payment follows. */
export const CSV_COLUMNS: readonly CsvColumn[] = [
  "id",
  "reference",
  "points",
  "amount",
  "currency",
  "payment_source_id",
  "status",
  "source",
  "created_at",
  "paid_at",
  "refunded_points",
  "refunded_amount",
  "dispute_status",
  "dispute_points_state",
];

const CSV_BATCH_SIZE = 1000;

/**
 * Every top-up matching the filters as CSV, newest first, with a header row. Fields are named
 * and valued as in the API's TopUp object (amount in minor units, times in ISO 8601 UTC; the
 * dispute's status and points_state as dispute_status and dispute_points_state, empty without one). It is
 * pulled a page at a time, so exporting 100,000 rows never holds them all in memory.
 */
export function streamTopUpsCsv(db: Db, organizationId: string, filters: HistoryFilters): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(",")}\r\n`));
        return;
      }
      const page = await listTopUps(db, organizationId, { ...filters, cursor, limit: CSV_BATCH_SIZE });
      if (page.topUps.length > 0) controller.enqueue(encoder.encode(page.topUps.map(toCsvLine).join("")));
      if (page.nextCursor) cursor = page.nextCursor;
      else controller.close();
    },
  });
}

/** One CSV row: the columns are fields of the API's TopUp object, taken from its one serializer. */
export function toCsvLine(topUp: TopUp): string {
  const json = toTopUpJson(topUp);
  const flat: Record<CsvColumn, string | number | null> = {
    ...json,
    dispute_status: json.dispute?.status ?? null,
    dispute_points_state: json.dispute?.points_state ?? null,
  };
  const cells = CSV_COLUMNS.map((column) => {
    const value = flat[column];
    return typeof value === "string" ? csvText(value) : value === null ? "" : String(value);
  });
  return `${cells.join(",")}\r\n`;
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
