import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * What patches/postgres+3.4.9.patch leaves in each build of postgres.js it mends (patches/README.md):
 * without the patch a transaction's BEGIN can go out unreserved under load, and the transaction fails
 * (UNSAFE_TRANSACTION, a 500) or runs other requests' queries inside it.
 */
export const DRIVER_PATCH_MARK = "/* points: patched */";

/** The package's builds: ESM, CommonJS and Cloudflare's. A deployment's traced copy holds only the one it loads. */
const BUILDS = ["src", "cjs/src", "cf/src"] as const;

const HOW_TO_APPLY =
  "Run `npm ci` with its scripts (its postinstall runs patch-package), or `npx patch-package` after `npm ci --ignore-scripts`.";

/**
 * The installed postgres package's folder, as Node finds it from `from` (the working directory: the
 * app's root, and the standalone server's own folder). The node_modules folders are searched by hand:
 * the package's exports name neither its package.json nor, in a standalone layout, a build that is there.
 */
export function postgresPackageRoot(from: string = /* turbopackIgnore: true */ process.cwd()): string {
  const folders = createRequire(path.join(from, "package.json")).resolve.paths("postgres") ?? [];
  for (const folder of folders) {
    const root = path.join(folder, "postgres");
    if (fs.existsSync(/* turbopackIgnore: true */ path.join(root, "package.json"))) return root;
  }
  throw new Error(`postgres.js is not installed (no node_modules/postgres from ${from}). ${HOW_TO_APPLY}`);
}

/**
 * Refuses, with what to run, unless every build of postgres.js present under `root` carries the
 * patch. The server checks at startup and the operator command before it opens the database
 * (lib/server/runtime.ts), on PGlite too: the package is installed, and patched, in every install.
 */
export function assertDriverPatched(root: string = postgresPackageRoot()): void {
  const files = BUILDS.map((build) => path.join(root, build, "connection.js")).filter((file) =>
    fs.existsSync(/* turbopackIgnore: true */ file),
  );
  if (files.length === 0) {
    throw new Error(`postgres.js at ${root} has no connection.js to check for its patch. ${HOW_TO_APPLY}`);
  }
  const unpatched = files.filter(
    (file) => !fs.readFileSync(/* turbopackIgnore: true */ file, "utf8").includes(DRIVER_PATCH_MARK),
  );
  if (unpatched.length > 0) {
    const version = packageVersion(root);
    throw new Error(
      `The postgres.js patch is not applied (patches/postgres+${version}.patch): ${unpatched.join(", ")} ` +
        `${unpatched.length === 1 ? "lacks" : "lack"} ${DRIVER_PATCH_MARK}, so transactions can fail or mix under load. ${HOW_TO_APPLY}`,
    );
  }
}

function packageVersion(root: string): string {
  try {
    return (
      (
        JSON.parse(fs.readFileSync(/* turbopackIgnore: true */ path.join(root, "package.json"), "utf8")) as {
          version?: string;
        }
      ).version ?? "?"
    );
  } catch {
    return "?";
  }
}
