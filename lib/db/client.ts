import fs from "node:fs";
import path from "node:path";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { env, STRIPE_API_ORIGIN } from "@/lib/env";
import { registerPool, trackInFlight } from "@/lib/observability/db-pool";
import { acquirePgliteLock } from "./pglite-lock";
import * as schema from "./schema";

export type Schema = typeof schema;
/** A database or a transaction: helpers that take `Db` work inside and outside a transaction. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export interface Database {
  db: Db;
  /**
   * DATABASE_READ_URL's pool (a replica), for the reads that may lag the primary a moment: lists,
   * History and its export. Absent when unset: those reads go to `db`.
   */
  readDb?: Db;
  kind: "postgres" | "pglite";
  /** Where it lives, for messages: a URL without its password, or the PGlite directory. */
  location: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A Postgres URL; when absent the embedded PGlite is used. */
  url?: string;
  /** With `url`: a replica's URL, opened as `readDb` with a pool of its own. */
  readUrl?: string;
  /** PGlite's data directory, or "memory://" for a throwaway database. */
  pgliteDir?: string;
  /** Connections in the postgres.js pool. */
  maxConnections?: number;
  /** With `url`: prepare every query (false behind a transaction-mode pooler); DATABASE_PREPARE by default. */
  prepare?: boolean;
  /** A PGlite data directory's tarball to start from (dumpDataDir), instead of an empty database. */
  pgliteDataDir?: Blob;
}

/** What the service's Postgres connections call themselves (pg_stat_activity.application_name). */
export const APPLICATION_NAME = "points-purchase";
/** What the connections to DATABASE_READ_URL call themselves. */
export const READ_APPLICATION_NAME = "points-purchase-read";

/** Seconds a new connection may take to open before its queries fail (postgres.js waits 30 s by default). */
export const CONNECT_TIMEOUT_SECONDS = 5;

/**
 * The pool's options besides its size and `prepare` (below). `fetch_types: false`: postgres.js otherwise asks every new
 * connection for the array types, from a promise nobody awaits, so a connection cut at that moment
 * (a pooler or Postgres restarting) is an unhandled rejection and fails the first query after it;
 * the schema has no array columns to parse. A connection that cannot open in
 * CONNECT_TIMEOUT_SECONDS fails its queries (502 database_unavailable) instead of holding them.
 */
export const POSTGRES_OPTIONS = {
  onnotice: () => {},
  connection: { application_name: APPLICATION_NAME },
  fetch_types: false,
  connect_timeout: CONNECT_TIMEOUT_SECONDS,
} as const;

/**
 * Behind a transaction-mode pooler (`prepare` false), one query at a time per connection. postgres.js
 * otherwise sends a queued query on a connection still waiting for the previous one's answer. A
 * pooler that hands the server connection back at the first query's end (PgBouncer 1.18 does) then
 * drops the second one's answer, and its caller waits for ever: under load every connection of the
 * pool ends up waiting so. (`max_pipeline` is the driver's option; its types omit it.)
 */
function pipelining(prepare: boolean): { max_pipeline?: number } {
  return prepare ? {} : { max_pipeline: 0 };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const { default: postgres } = await import("postgres");
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const prepare = options.prepare ?? env().DATABASE_PREPARE !== "false";
    // The pool's own `prepare` too: postgres.js otherwise prepares its COMMIT, ROLLBACK and SAVEPOINT
    // whatever the queries ask. Behind a transaction-mode pooler such a COMMIT can reach a server
    // connection that lacks it, and the driver's retry commits a transaction the failure aborted,
    // which Postgres ends as a rollback with no error: the caller believes committed what was lost.
    // Direct to Postgres a statement lives as long as its connection, and preparing is what makes
    // a parameterised query one round trip instead of two.
    const client = postgres(options.url, {
      max: options.maxConnections ?? 10,
      ...POSTGRES_OPTIONS,
      prepare,
      ...pipelining(prepare),
    });
    const max = options.maxConnections ?? 10;
    registerPool(max);
    const counted = counting(client);
    const replica = options.readUrl
      ? postgres(options.readUrl, {
          max,
          ...POSTGRES_OPTIONS,
          prepare,
          ...pipelining(prepare),
          connection: { application_name: READ_APPLICATION_NAME },
        })
      : null;
    return {
      db: drizzle(prepare ? preparing(counted) : counted, { schema }) as unknown as Db,
      readDb: replica ? (drizzle(prepare ? preparing(replica) : replica, { schema }) as unknown as Db) : undefined,
      kind: "postgres",
      location: redactUrl(options.url),
      close: async () => {
        await Promise.all([client.end({ timeout: 5 }), replica?.end({ timeout: 5 })]);
      },
    };
  }
  const dir = options.pgliteDir ?? defaultPgliteDir();
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  let releaseLock = () => {};
  if (!dir.startsWith("memory://")) {
    fs.mkdirSync(dir, { recursive: true });
    releaseLock = acquirePgliteLock(dir);
  }
  try {
    const client = await PGlite.create(dir, options.pgliteDataDir ? { loadDataDir: options.pgliteDataDir } : {});
    return {
      db: drizzle(client, { schema }) as unknown as Db,
      kind: "pglite",
      location: dir,
      close: async () => {
        await client.close();
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/**
 * The embedded database's directory. Data, not code: `turbopackIgnore` keeps `next build` from
 * tracing every file of a developer's database into the server's output (and a deployment).
 */
export function defaultPgliteDir(): string {
  return embeddedDatabaseDir(env(), /* turbopackIgnore: true */ process.cwd());
}

/**
 * Where the embedded database lives: PGLITE_DIR when set; else under `.data/`, one per billing
 * provider, since an organisation's customer and payments exist only at the provider that made
 * them: `.data/pglite` for the simulated provider, `.data/stripe/pglite` for Stripe's own API, and
 * `.data/stripe-test-server/pglite` for a Stripe-compatible test server (STRIPE_API_URL). The demo
 * organisation's file (demo.json) sits beside each, so each has its own demo.
 */
export function embeddedDatabaseDir(
  settings: { PGLITE_DIR?: string; STRIPE_SECRET_KEY?: string; STRIPE_API_URL?: string },
  cwd: string,
): string {
  if (settings.PGLITE_DIR) return settings.PGLITE_DIR;
  const data = path.join(/* turbopackIgnore: true */ cwd, ".data");
  if (!settings.STRIPE_SECRET_KEY) return path.join(data, "pglite");
  const testServer =
    settings.STRIPE_API_URL !== undefined && new URL(settings.STRIPE_API_URL).origin !== STRIPE_API_ORIGIN;
  return path.join(data, testServer ? "stripe-test-server" : "stripe", "pglite");
}

/** A database URL fit for messages: the password masked. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}

/** The two methods of a postgres.js sql object (or transaction) that drizzle calls. */
interface SqlLike {
  unsafe(query: string, params?: unknown[], options?: object): unknown;
  begin?(...args: unknown[]): unknown;
}

/**
 * drizzle asks postgres.js to prepare only queries given a name, so every other query is parsed
 * and described afresh: two round trips instead of one. Its query texts are fixed per call site,
 * so preparing all of them (postgres.js caches them per connection by text) is bounded and halves
 * the round trips. Transaction-mode poolers (PgBouncer) cannot keep prepared statements: there,
 * set DATABASE_PREPARE=false.
 */
function preparing<T extends object>(sql: T): T {
  const target = sql as T & SqlLike;
  return new Proxy(target, {
    get(object, property, receiver) {
      if (property === "unsafe") {
        return (query: string, params?: unknown[], options?: object) =>
          object.unsafe(query, params, { ...options, prepare: true });
      }
      if (property === "begin" && object.begin) {
        const begin = object.begin.bind(object);
        // Transactions hand drizzle another sql object: prepare inside them too.
        return (...args: unknown[]) => {
          const callback = args[args.length - 1] as (tx: object) => unknown;
          return begin(...args.slice(0, -1), (tx: object) => callback(preparing(tx)));
        };
      }
      const value: unknown = Reflect.get(object, property, receiver);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

/**
 * Counts what holds a connection of the pool (a query outside a transaction, or a whole
 * transaction) while it is under way, for the pool-in-use metric (lib/observability/db-pool.ts).
 * Queries inside a transaction run on its connection and are not counted again.
 */
function counting<T extends object>(sql: T): T {
  const target = sql as T & SqlLike;
  return new Proxy(target, {
    get(object, property, receiver) {
      if (property === "unsafe") {
        // postgres.js sends a query a tick after it is first awaited: drizzle's `.values()` still applies.
        return (query: string, params?: unknown[], options?: object) =>
          trackInFlight(object.unsafe(query, params, options));
      }
      if (property === "begin" && object.begin) {
        const begin = object.begin.bind(object);
        return (...args: unknown[]) => trackInFlight(begin(...args));
      }
      const value: unknown = Reflect.get(object, property, receiver);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
