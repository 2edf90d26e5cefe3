import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assertDriverPatched, DRIVER_PATCH_MARK, postgresPackageRoot } from "./driver-patch";

/*
 * Issue 38, item 5: postgres.js is mended at install (patches/postgres+3.4.9.patch, applied by
 * patch-package), and an install that skipped it (`npm ci --ignore-scripts`) refuses to start
 * instead of running transactions that can fail or mix under load.
 */
describe("the postgres.js patch check", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the installed package's package.json and the given builds' connection.js, as `edit` leaves them. */
  function copyOfPackage(builds: string[], edit: (text: string) => string = (text) => text): string {
    const installed = postgresPackageRoot();
    const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "points-driver-patch-")), "postgres");
    made.push(path.dirname(root));
    fs.mkdirSync(root);
    fs.copyFileSync(path.join(installed, "package.json"), path.join(root, "package.json"));
    for (const build of builds) {
      fs.mkdirSync(path.join(root, build), { recursive: true });
      const text = fs.readFileSync(path.join(installed, build, "connection.js"), "utf8");
      fs.writeFileSync(path.join(root, build, "connection.js"), edit(text));
    }
    return root;
  }

  it("passes on the installed tree, whose every build carries the mark", () => {
    const root = postgresPackageRoot();
    expect(fs.existsSync(path.join(root, "cjs", "src", "connection.js"))).toBe(true);
    expect(() => assertDriverPatched()).not.toThrow();
    expect(() => assertDriverPatched(root)).not.toThrow();
  });

  it("passes on a deployment's traced copy, which holds only the ESM build", () => {
    expect(() => assertDriverPatched(copyOfPackage(["src"]))).not.toThrow();
  });

  it("refuses a build without the mark, naming it and saying how to apply the patch", () => {
    const root = copyOfPackage(["src", "cjs/src"], (text) => text.replace(DRIVER_PATCH_MARK, ""));
    expect(() => assertDriverPatched(root)).toThrow(/^The postgres.js patch is not applied/);
    expect(() => assertDriverPatched(root)).toThrow(path.join(root, "cjs", "src", "connection.js"));
    expect(() => assertDriverPatched(root)).toThrow("npx patch-package");
    expect(() => assertDriverPatched(root)).toThrow("--ignore-scripts");
  });

  it("refuses when only one build lacks it", () => {
    const root = copyOfPackage(["src", "cjs/src"]);
    const cjs = path.join(root, "cjs", "src", "connection.js");
    fs.writeFileSync(cjs, fs.readFileSync(cjs, "utf8").replace(DRIVER_PATCH_MARK, ""));
    expect(() => assertDriverPatched(root)).toThrow(`not applied (patches/postgres+3.4.9.patch): ${cjs} lacks`);
  });

  it("refuses a package with no connection.js to check", () => {
    expect(() => assertDriverPatched(copyOfPackage([]))).toThrow("has no connection.js to check");
  });

  it("finds the package from a folder below the app's root, and refuses where there is none", () => {
    expect(postgresPackageRoot(path.join(process.cwd(), "lib", "db"))).toBe(postgresPackageRoot());
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "points-no-postgres-"));
    made.push(empty);
    // Node's search goes up to the filesystem's root and the global folders: none holds postgres here.
    expect(() => postgresPackageRoot(empty)).toThrow("postgres.js is not installed");
  });
});
