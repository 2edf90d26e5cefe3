import { getTableColumns, type InferSelectModel, type SQL, sql, type Table } from "drizzle-orm";
import type { Db } from "./client";

/** A row as the driver returns it: columns by their database names. */
export type RawRow = Record<string, unknown>;

interface PostgresJsClient {
  unsafe(query: string, params: unknown[], options?: { prepare?: boolean }): Promise<RawRow[]>;
}

interface PgliteClient {
  query(query: string, params: unknown[]): Promise<{ rows: RawRow[] }>;
}

/**
 * Runs one fixed SQL text with its parameters on the database's own client, outside any
 * transaction, and returns its rows by column name. For the few statements every purchase and
 * every API request makes: drizzle rebuilds a query's text and its row mapping on every call,
 * which cost more CPU than the rest of a purchase together. A fixed text is prepared once per
 * connection by postgres.js (lib/db/client.ts), so Postgres does not parse or plan it again.
 * Parameters are plain values: pass a Date as an ISO string (sqlTime).
 */
export async function hotQuery(db: Db, text: string, params: unknown[]): Promise<RawRow[]> {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client && typeof (client as PostgresJsClient).unsafe === "function") {
    return (client as PostgresJsClient).unsafe(text, params);
  }
  if (client && typeof (client as PgliteClient).query === "function") {
    return (await (client as PgliteClient).query(text, params)).rows;
  }
  throw new Error("hotQuery needs the database itself, not a transaction.");
}

/** A timestamp parameter, as both drivers take it. */
export function sqlTime(date: Date): string {
  return date.toISOString();
}

/**
 * Reads a table's row out of a raw row, the way drizzle would (its columns' own conversions:
 * timestamps to Date, bigint to number), from columns named `<prefix><column>`.
 */
export function rowReader<T extends Table>(table: T, prefix = ""): (row: RawRow) => InferSelectModel<T> {
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({
    key,
    name: `${prefix}${column.name}`,
    column,
  }));
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const { key, name, column } of columns) {
      const value = row[name];
      out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return out as InferSelectModel<T>;
  };
}

/** The columns of a table as `alias.column as <prefix>column`, for a select that reads it with rowReader. */
export function selectColumns(table: Table, alias: string, prefix = ""): string {
  return Object.values(getTableColumns(table))
    .map((column) => `${alias}."${column.name}" as "${prefix}${column.name}"`)
    .join(", ");
}

/**
 * A statement written as text with `$1`, `$2`… placeholders, as drizzle SQL with those values as
 * its parameters: so a fragment written once as text (an append-only table's one insert) runs in a
 * transaction too, where hotQuery cannot.
 */
export function textSql(text: string, params: readonly unknown[]): SQL {
  const chunks: SQL[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    const index = Number(match[1]) - 1;
    if (index < 0 || index >= params.length) throw new Error(`textSql: no parameter ${match[0]}.`);
    chunks.push(sql.raw(text.slice(last, match.index)), sql`${params[index]}`);
    last = (match.index ?? 0) + match[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return sql.join(chunks);
}
