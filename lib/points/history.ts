import { and, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { type Organization, type TopUp, topUps } from "@/lib/db/schema";
import { billingProblemOf } from "./billing-problems";
import { PointsError } from "./errors";
import { listProvisionedPaymentMethods } from "./organizations";
import type { Services } from "./services";
import { toTopUpJson } from "./top-up-json";

export const TOP_UP_STATUSES = ["pending", "processing", "awaiting_payment", "failed", "paid"] as const;
export type TopUpStatus = (typeof TOP_UP_STATUSES)[number];

export const TOP_UP_SOURCES = ["api", "dashboard"] as const;
export type TopUpSource = (typeof TOP_UP_SOURCES)[number];

export interface HistoryFilters {
  status?: TopUpStatus;
  source?: TopUpSource;
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

/**
 * One organisation's top-ups, API and dashboard alike, newest first, filtered by status and
 * source. Keyset pagination on (created_at desc, id desc): each page is one backward range scan
 * of top_ups_organization_created_idx starting just below the previous page's last row, so a
 * deep page costs what the first one does, whatever the number of top-ups. The id breaks ties
 * between purchases created in the same microsecond, so no row is skipped or shown twice.
 */
export async function listTopUps(db: Db, organizationId: string, options: ListTopUpsOptions): Promise<TopUpPage> {
  const limit = Math.min(Math.max(Math.trunc(options.limit), 1), MAX_PAGE_SIZE);
  const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
  if (options.cursor !== undefined && !after) {
    throw new PointsError("invalid_request", "That page link is not valid any more; start again from the newest page.", {
      details: { fields: { cursor: "is not a cursor this service issued" } },
    });
  }
  const conditions: SQL[] = [eq(topUps.organizationId, organizationId)];
  if (options.status) conditions.push(eq(topUps.status, options.status));
  if (options.source) conditions.push(eq(topUps.source, options.source));
  if (after) {
    // A row comparison, so Postgres uses it as the index range bound rather than a filter.
    conditions.push(sql`(${topUps.createdAt}, ${topUps.id}) < (${after.createdAt}::timestamptz, ${after.id})`);
  }
  const rows = await db
    .select({
      ...getTableColumns(topUps),
      // Postgres keeps microseconds and a JS Date only milliseconds: the cursor carries the exact value.
      cursorAt: sql<string>`to_char(${topUps.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    })
    .from(topUps)
    .where(and(...conditions))
    .orderBy(desc(topUps.createdAt), desc(topUps.id))
    .limit(limit + 1);

  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor({ createdAt: last.cursorAt, id: last.id }) : null;
  return { topUps: page.map(({ cursorAt: _cursorAt, ...topUp }) => topUp), nextCursor };
}

/** One of the organisation's top-ups; another organisation's ID is simply not found. */
export async function getTopUp(db: Db, organizationId: string, topUpId: string): Promise<TopUp | undefined> {
  const [row] = await db
    .select()
    .from(topUps)
    .where(and(eq(topUps.id, topUpId), eq(topUps.organizationId, organizationId)));
  return row;
}

/** Reads the history filters from search parameters; anything unknown means "all". */
export function parseHistoryFilters(params: Record<string, string | string[] | undefined>): HistoryFilters & {
  cursor?: string;
} {
  const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const status = one(params.status);
  const source = one(params.source);
  const cursor = one(params.cursor);
  return {
    status: (TOP_UP_STATUSES as readonly string[]).includes(status ?? "") ? (status as TopUpStatus) : undefined,
    source: (TOP_UP_SOURCES as readonly string[]).includes(source ?? "") ? (source as TopUpSource) : undefined,
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
    console.warn("Payment method labels unavailable:", error instanceof Error ? error.message : error);
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

export const CSV_COLUMNS: readonly (keyof ReturnType<typeof toTopUpJson>)[] = [
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
];

const CSV_BATCH_SIZE = 1000;

/**
 * Every top-up matching the filters as CSV, newest first, with a header row. Fields are named
 * and valued as in the API's TopUp object (amount in minor units, times in ISO 8601 UTC). It is
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
  const cells = CSV_COLUMNS.map((column) => {
    const value = json[column];
    return typeof value === "string" ? csvText(value) : value === null ? "" : String(value);
  });
  return `${cells.join(",")}\r\n`;
}

/**
 * RFC 4180 quoting, plus the OWASP guard against formula injection: a text cell that a
 * spreadsheet would run as a formula (a reference may start with "-") gets a leading apostrophe.
 */
function csvText(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

interface Cursor {
  createdAt: string;
  id: string;
}

const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function encodeCursor(cursor: Cursor): string {
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
