import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { migrationsFolder } from "@/lib/db/migrate";

/*
 * For tests of one migration on the data an older database holds: a database migrated up to just
 * before it, and the migration's statements to apply when the test has written that data.
 */

/** A migration's statements, as drizzle's migrator splits them. */
export function migrationStatements(tag: string): string[] {
  const text = fs.readFileSync(path.join(migrationsFolder(), `${tag}.sql`), "utf8");
  return text
    .split("--> statement-breakpoint")
    .map((part) => part.trim())
    .filter(Boolean);
}

/** A new in-memory PGlite with every migration before `tag` (in the journal's order) applied. */
export async function pgliteBefore(tag: string): Promise<PGlite> {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  const tags = journal.entries.map((entry) => entry.tag);
  if (!tags.includes(tag)) throw new Error(`No migration ${tag} in the journal.`);
  const db = new PGlite();
  for (const earlier of tags.slice(0, tags.indexOf(tag))) {
    for (const statement of migrationStatements(earlier)) await db.exec(statement);
  }
  return db;
}

/** Applies the migration `tag` to a database pgliteBefore(tag) made. */
export async function applyMigration(db: PGlite, tag: string): Promise<void> {
  for (const statement of migrationStatements(tag)) await db.exec(statement);
}
