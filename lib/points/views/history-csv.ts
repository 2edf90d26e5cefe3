/**
 * History's CSV exports: the top-ups export (its columns are fields of the API's TopUp object) and,
 * when History holds spends, the same columns with the row's kind and a spend's description.
 */
import type { Db } from "@/lib/db/client";
import type { TopUp } from "@/lib/db/schema";
import { csvText } from "@/lib/format";
import { type TopUpJson, toTopUpJson } from "../api/json";
import {
  type HistoryFilters,
  type HistoryItem,
  type HistoryView,
  historyKinds,
  listHistory,
  listTopUps,
} from "./history";

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
  return streamCsvPages(CSV_COLUMNS, async (cursor) => {
    const page = await listTopUps(db, organizationId, { ...filters, cursor, limit: CSV_BATCH_SIZE });
    return { lines: page.topUps.map(toCsvLine), nextCursor: page.nextCursor };
  });
}

/** A header row, then each page's lines as it is pulled, until a page has no next cursor. */
function streamCsvPages(
  columns: readonly string[],
  page: (cursor: string | undefined) => Promise<{ lines: string[]; nextCursor?: string | null }>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`${columns.join(",")}\r\n`));
        return;
      }
      const { lines, nextCursor } = await page(cursor);
      if (lines.length > 0) controller.enqueue(encoder.encode(lines.join("")));
      if (nextCursor) cursor = nextCursor;
      else controller.close();
    },
  });
}

/**
 * History's CSV when it holds spends: the top-ups export's columns in their order, then the row's
 * kind and a spend's description. A spend fills id, reference, points (negative: Points taken),
 * source and created_at; the purchase-only columns stay empty.
 */
export const HISTORY_CSV_COLUMNS = [...CSV_COLUMNS, "kind", "description"] as const;

/**
 * The CSV of what History shows, newest first. A view of top-ups only is the top-ups export itself
 * (streamTopUpsCsv), columns and all; with spends, the rows follow listHistory's order and pages.
 */
export function streamHistoryCsv(db: Db, organizationId: string, view: HistoryView): ReadableStream<Uint8Array> {
  const kinds = historyKinds(view);
  if (!kinds.includes("spend")) return streamTopUpsCsv(db, organizationId, view);
  return streamCsvPages(HISTORY_CSV_COLUMNS, async (cursor) => {
    const page = await listHistory(db, organizationId, { ...view, cursor, limit: CSV_BATCH_SIZE });
    return { lines: page.items.map(toHistoryCsvLine), nextCursor: page.nextCursor };
  });
}

/** One row of History's CSV, a top-up's or a spend's. */
export function toHistoryCsvLine(item: HistoryItem): string {
  if (item.kind === "top_up") return `${toCsvCells(item.topUp).join(",")},top_up,\r\n`;
  const { spend } = item;
  const cells = new Array<string>(CSV_COLUMNS.length).fill("");
  const set = (column: CsvColumn, value: string) => {
    cells[CSV_COLUMNS.indexOf(column)] = value;
  };
  set("id", csvText(spend.id));
  set("reference", csvText(spend.reference));
  set("points", String(-spend.points));
  set("source", csvText(spend.source));
  set("created_at", spend.createdAt.toISOString());
  return `${[...cells, "spend", spend.description === null ? "" : csvText(spend.description)].join(",")}\r\n`;
}

/** One CSV row: the columns are fields of the API's TopUp object, taken from its one serializer. */
export function toCsvLine(topUp: TopUp): string {
  return `${toCsvCells(topUp).join(",")}\r\n`;
}

function toCsvCells(topUp: TopUp): string[] {
  const json = toTopUpJson(topUp);
  const flat: Record<CsvColumn, string | number | null> = {
    ...json,
    dispute_status: json.dispute?.status ?? null,
    dispute_points_state: json.dispute?.points_state ?? null,
  };
  return CSV_COLUMNS.map((column) => {
    const value = flat[column];
    return typeof value === "string" ? csvText(value) : value === null ? "" : String(value);
  });
}
