import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migratePglite, migrationsFolder } from "@/lib/db/migrate";

/**
 * A migrated, empty PGlite data directory as a tarball, made once per set of migrations and kept
 * in the system's temporary directory: an in-memory database loaded from it starts in about a
 * second, where a fresh one runs initdb and every migration (several seconds on two busy cores).
 * The file's name carries a hash of the migrations and of PGlite's version, so a changed
 * migration or an upgrade makes a new one; it is written under a temporary name and renamed, so
 * test processes making it at once never read half a file.
 */
export async function migratedPgliteTemplate(): Promise<Blob> {
  const file = path.join(os.tmpdir(), `points-pglite-template-${await templateKey()}.tar`);
  if (!fs.existsSync(file)) await makeTemplate(file);
  return new Blob([fs.readFileSync(file)]);
}

let cachedKey: Promise<string> | undefined;

function templateKey(): Promise<string> {
  cachedKey ??= (async () => {
    const hash = createHash("sha256");
    const { PGlite } = await import("@electric-sql/pglite");
    hash.update(PGlite.name);
    const pglitePackage = path.join(process.cwd(), "node_modules", "@electric-sql", "pglite", "package.json");
    if (fs.existsSync(pglitePackage)) hash.update(fs.readFileSync(pglitePackage));
    const folder = migrationsFolder();
    for (const name of [...fs.readdirSync(folder)].sort()) {
      if (name.endsWith(".sql")) hash.update(name).update(fs.readFileSync(path.join(folder, name)));
    }
    hash.update(fs.readFileSync(path.join(folder, "meta", "_journal.json")));
    return hash.digest("hex").slice(0, 16);
  })();
  return cachedKey;
}

async function makeTemplate(file: string): Promise<void> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const client = await PGlite.create("memory://");
  try {
    await migratePglite(drizzle(client));
    const dump = await client.dumpDataDir("none");
    const partial = `${file}.${process.pid}.${Date.now()}`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
  } finally {
    await client.close();
  }
}
