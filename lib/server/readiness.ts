import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { withDeadline } from "@/lib/billing/deadline";
import { type BillingProvider, ProviderRefusedError } from "@/lib/billing/provider";
import type { Db } from "@/lib/db/client";
import { migrationsFolder as defaultMigrationsFolder } from "@/lib/db/migrate";
import { rowsOf } from "@/lib/db/rows";
import { stripeEnv } from "@/lib/env";
import { log } from "@/lib/observability/log";
import { isShuttingDown } from "./lifecycle";

/** A database that takes longer than this to answer one query is not one to send traffic to. */
export const DATABASE_CHECK_MS = 3_000;
/** Load balancers poll every few seconds on every instance: the provider is asked at most this often. */
export const BILLING_CHECK_EVERY_MS = 30_000;
export const BILLING_CHECK_MS = 3_000;

/** `unknown`: not asked yet (a report made without checks, before the first probe). */
export type BillingReachability = "reachable" | "unreachable" | "refused" | "unknown";

/**
 * GET /readyz's body, and what metrics report: ready means the database answers and its migrations
 * are current, and the instance is not shutting down. The billing provider is reported, never
 * decisive: a provider outage must not take every instance out of the balancer.
 */
export interface ReadinessReport {
  status: "ready" | "not_ready" | "shutting_down";
  database: { status: "ok" | "unavailable" };
  migrations: {
    status: "current" | "behind" | "unknown";
    /** The newest migration in drizzle/ (this build's), and the newest the database has applied. */
    latest: string | null;
    applied: string | null;
  };
  billing: { provider: BillingProvider["name"]; status: BillingReachability; checked_at: string | null };
}

export interface ReadinessDeps {
  db: Db;
  provider: Pick<BillingProvider, "name" | "checkCredentials">;
  migrationsFolder?: string;
  now?: () => number;
}

const STATE = Symbol.for("points.readiness");

interface ReadinessState {
  last: ReadinessReport | null;
  billing: WeakMap<object, { at: number; status: BillingReachability; pending?: Promise<BillingReachability> }>;
  journals: Map<string, JournalEntry[]>;
}

function state(): ReadinessState {
  const holder = globalThis as unknown as { [STATE]?: ReadinessState };
  holder[STATE] ??= { last: null, billing: new WeakMap(), journals: new Map() };
  return holder[STATE];
}

/** The last report /readyz made, or null before the first probe. */
export function lastReadinessReport(): ReadinessReport | null {
  return state().last;
}

/** The checks behind GET /readyz. Never throws: whatever fails is reported as not ready. */
export async function checkReadiness(deps: ReadinessDeps): Promise<ReadinessReport> {
  const folder = deps.migrationsFolder ?? defaultMigrationsFolder();
  const [databaseAndMigrations, billing] = await Promise.all([checkDatabase(deps.db, folder), checkBilling(deps)]);
  const { database, migrations } = databaseAndMigrations;
  const healthy = database.status === "ok" && migrations.status === "current";
  const report: ReadinessReport = {
    status: isShuttingDown() ? "shutting_down" : healthy ? "ready" : "not_ready",
    database,
    migrations,
    billing,
  };
  const previous = state().last;
  if (previous?.database.status !== "unavailable" && database.status === "unavailable") {
    log().error(
      { event: "readiness_database_down" },
      "readiness: the database did not answer; this instance reports not ready until it does.",
    );
  }
  state().last = report;
  return report;
}

/**
 * A report made without asking anything, from the last one: what a shutting-down instance answers
 * without touching the database it is closing, or one whose services could not start.
 */
export function uncheckedReport(status: "shutting_down" | "not_ready"): ReadinessReport {
  const last = state().last;
  return {
    status,
    database: last?.database ?? { status: "ok" },
    migrations: last?.migrations ?? { status: "unknown", latest: null, applied: null },
    billing: last?.billing ?? { provider: stripeEnv() ? "stripe" : "simulated", status: "unknown", checked_at: null },
  };
}

interface JournalEntry {
  tag: string;
  when: number;
}

/** drizzle/meta/_journal.json: the build's migrations, read once per folder. */
function journal(folder: string): JournalEntry[] {
  const journals = state().journals;
  const known = journals.get(folder);
  if (known) return known;
  const parsed = JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as {
    entries: JournalEntry[];
  };
  const entries = parsed.entries.map(({ tag, when }) => ({ tag, when }));
  journals.set(folder, entries);
  return entries;
}

/**
 * drizzle's migrator records each applied migration in drizzle.__drizzle_migrations with its
 * journal timestamp (`created_at`), on Postgres and PGlite alike, and applies every migration newer
 * than the newest recorded. So the database is current when that newest timestamp has reached the
 * journal's last entry.
 */
async function checkDatabase(db: Db, folder: string): Promise<Pick<ReadinessReport, "database" | "migrations">> {
  let entries: JournalEntry[];
  try {
    entries = journal(folder);
  } catch (error) {
    log().error(
      { event: "readiness_journal_unreadable" },
      `readiness: cannot read the migrations journal: ${error instanceof Error ? error.message : String(error)}`,
    );
    entries = [];
  }
  const latest = entries.at(-1) ?? null;
  let appliedAt: number | null;
  try {
    appliedAt = await withDeadline(newestAppliedMigration(db), DATABASE_CHECK_MS);
  } catch {
    return {
      database: { status: "unavailable" },
      migrations: { status: "unknown", latest: latest?.tag ?? null, applied: null },
    };
  }
  const applied = appliedAt === null ? null : (entries.findLast((entry) => entry.when <= appliedAt)?.tag ?? null);
  const current = latest !== null && appliedAt !== null && appliedAt >= latest.when;
  return {
    database: { status: "ok" },
    migrations: {
      status: latest === null ? "unknown" : current ? "current" : "behind",
      latest: latest?.tag ?? null,
      applied,
    },
  };
}

async function newestAppliedMigration(db: Db): Promise<number | null> {
  const table = rowsOf<{ present: boolean }>(
    await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`),
  );
  if (!table[0]?.present) return null;
  const newest = rowsOf<{ created_at: string | number | null }>(
    await db.execute(sql`select max(created_at) as created_at from drizzle.__drizzle_migrations`),
  );
  const value = newest[0]?.created_at;
  return value === null || value === undefined ? null : Number(value);
}

/**
 * Asks the provider whether it answers (and accepts the service's key) at most every 30 s, sharing
 * one question among concurrent probes. A provider with nothing to reach (the simulated one, in the
 * app's own database) is reachable.
 */
async function checkBilling(deps: ReadinessDeps): Promise<ReadinessReport["billing"]> {
  const { provider } = deps;
  const now = deps.now ?? Date.now;
  const check = provider.checkCredentials?.bind(provider);
  if (!check) return { provider: provider.name, status: "reachable", checked_at: null };
  const cache = state().billing;
  let entry = cache.get(provider);
  if (!entry || (now() - entry.at >= BILLING_CHECK_EVERY_MS && !entry.pending)) {
    const pending = withDeadline(check(BILLING_CHECK_MS), BILLING_CHECK_MS + 500).then(
      (): BillingReachability => "reachable",
      (error: unknown): BillingReachability => (error instanceof ProviderRefusedError ? "refused" : "unreachable"),
    );
    entry = { at: entry?.at ?? 0, status: entry?.status ?? "unreachable", pending };
    cache.set(provider, entry);
    const settled = entry;
    void pending.then((status) => {
      settled.status = status;
      settled.at = now();
      settled.pending = undefined;
    });
  }
  if (entry.pending) await entry.pending;
  return { provider: provider.name, status: entry.status, checked_at: new Date(entry.at).toISOString() };
}
