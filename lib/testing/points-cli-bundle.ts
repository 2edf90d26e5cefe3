import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./run-command";

/**
 * `scripts/points.ts` compiled into one JavaScript file, for the tests that run the operator
 * command many times: `npm run points` starts it through tsx, which compiles and resolves each of
 * its modules on every start (about 1.9 s of two cores' time a command); the bundle starts in
 * about 0.5 s. The same compiler (esbuild, which tsx runs) turns the same sources into it, with
 * the packages left to node_modules as tsx leaves them (so it lives under node_modules/.cache, from
 * where they resolve). It is made once per state of the sources (the file's name carries a hash of
 * lib/, scripts/points.ts and the lock file), under a temporary name then renamed, so processes
 * making it at once never run half a file. points-cli-environment.test.ts runs `npm run points`.
 */
export async function pointsCliBundle(): Promise<string> {
  const dir = path.join(ROOT, "node_modules", ".cache", "points-cli");
  const file = path.join(dir, `points-${sourcesKey()}.mjs`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true });
    await build(file);
  }
  return file;
}

let cachedKey: string | undefined;

function sourcesKey(): string {
  if (cachedKey) return cachedKey;
  const hash = createHash("sha256");
  const files = [
    path.join(ROOT, "scripts", "points.ts"),
    path.join(ROOT, "package-lock.json"),
    path.join(ROOT, "tsconfig.json"),
  ];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|tsx|mjs|js|json)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) files.push(full);
    }
  };
  walk(path.join(ROOT, "lib"));
  for (const file of files.sort()) hash.update(file).update(fs.readFileSync(file));
  cachedKey = hash.digest("hex").slice(0, 16);
  return cachedKey;
}

async function build(file: string): Promise<void> {
  const { build: esbuild } = await import("esbuild");
  const partial = `${file}.${process.pid}.${Date.now()}.mjs`;
  await esbuild({
    entryPoints: [path.join(ROOT, "scripts", "points.ts")],
    absWorkingDir: ROOT,
    tsconfig: path.join(ROOT, "tsconfig.json"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile: partial,
    logLevel: "warning",
  });
  fs.renameSync(partial, file);
}
