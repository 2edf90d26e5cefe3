import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * The three append-only tables the invariants rest on, and the lots beside the ledger, each have
 * one writer: their insert is written once, as a SQL fragment beside its TypeScript writer, and
 * every statement that writes the table embeds that fragment. Product code only: tests and
 * lib/testing may write rows directly.
 */
const OWNERS = {
  events: { file: "lib/points/events/events.ts", sql: "events", drizzle: "events" },
  points_ledger: { file: "lib/points/balance/ledger.ts", sql: "points_ledger", drizzle: "pointsLedger" },
  audit_log: { file: "lib/points/audit.ts", sql: "audit_log", drizzle: "auditLog" },
  point_lots: { file: "lib/points/balance/ledger.ts", sql: "point_lots", drizzle: "pointLots" },
} as const;

const ROOT = path.resolve(__dirname, "..", "..");

function productFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (file !== "lib/testing") found.push(...productFiles(file));
    } else if (/\.(ts|tsx|mjs)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) found.push(file);
  }
  return found;
}

describe("one writer for each append-only table", () => {
  const files = ["lib", "app", "components"].flatMap(productFiles);
  const sources = files.map((file) => ({ file, text: fs.readFileSync(path.join(ROOT, file), "utf8") }));

  it.each(Object.values(OWNERS))("inserts into $sql only in $file", (owner) => {
    const insert = new RegExp(`insert\\s+into\\s+"?${owner.sql}"?[\\s(]`, "i");
    const drizzleInsert = new RegExp(`\\.insert\\(\\s*${owner.drizzle}\\s*\\)`);
    const writers = sources.filter(({ text }) => insert.test(text) || drizzleInsert.test(text)).map(({ file }) => file);
    expect(writers).toEqual([owner.file]);
  });

  it("finds the fragment's users: the spend, the purchase's outcome, and the owners themselves", () => {
    const using = (name: string) =>
      sources.filter(({ text }) => new RegExp(`\\b${name}\\(`).test(text)).map(({ file }) => file);
    expect(using("insertEventsSql")).toEqual(
      expect.arrayContaining([
        "lib/points/events/events.ts",
        "lib/points/purchase/settle.ts",
        "lib/points/spends/spends.ts",
      ]),
    );
    expect(using("insertLedgerSql")).toEqual(
      expect.arrayContaining(["lib/points/balance/ledger.ts", "lib/points/spends/spends.ts"]),
    );
    expect(using("insertAuditSql")).toEqual(
      expect.arrayContaining(["lib/points/audit.ts", "lib/points/spends/spends.ts"]),
    );
  });
});
