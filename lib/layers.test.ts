import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * lib/ is a stack. Each folder is one layer and may import only its own layer and the ones below;
 * the files directly in lib/ (catalog.ts, body.ts, ids.ts…) are the leaves at the bottom.
 * lib/testing sits on top of everything and nothing else in lib/ imports it.
 *
 * Bottom to top (docs/architecture.md's "The layers of lib/" shows the same stack, top to bottom):
 */
const LAYERS = [
  "(leaves)",
  "observability",
  "db",
  "auth",
  "billing",
  "points",
  "webhooks",
  "openapi",
  "server",
  "http",
  "dashboard",
  "cli",
  "testing",
] as const;

/**
 * lib/points is a stack of rooms in the same way, bottom to top; its leaves (errors.ts, services.ts,
 * audit.ts) are at the bottom. docs/architecture.md's "lib/points by subject" draws the same order.
 */
const POINTS_ROOMS = [
  "(leaves)",
  "events",
  "limits",
  "balance",
  "accounts",
  "cards",
  "api",
  "purchase",
  "recharge",
  "spends",
  "grants",
  "expiry",
  "after-payment",
  "intake",
  "views",
] as const;

const ROOT = path.resolve(__dirname, "..");
const SOURCE = /\.(ts|tsx|mjs)$/;
const TEST = /\.test\.tsx?$/;

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...sourceFiles(file));
    else if (SOURCE.test(entry.name) && !TEST.test(entry.name) && !entry.name.endsWith(".d.mts")) found.push(file);
  }
  return found;
}

const IMPORT =
  /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]*?\s*from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The specifiers a file imports, static and dynamic, comments left out. */
function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(IMPORT)].map((match) => (match[1] ?? match[2]) as string);
}

const EXTENSIONS = ["", ".ts", ".tsx", ".mjs", "/index.ts", "/index.tsx"];

/** The repository file an import names, or null for a package. */
function resolve(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  else return null;
  for (const extension of EXTENSIONS) {
    const file = base + extension;
    if (fs.existsSync(path.join(ROOT, file)) && fs.statSync(path.join(ROOT, file)).isFile()) return file;
  }
  return base;
}

function layerOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] !== "lib") return parts[0] as string;
  return parts.length === 2 ? "(leaves)" : (parts[1] as string);
}

function rank(layer: string): number {
  const index = (LAYERS as readonly string[]).indexOf(layer);
  return index === -1 ? Number.POSITIVE_INFINITY : index;
}

const libFiles = sourceFiles("lib");
const graph = new Map(
  libFiles.map((file) => [
    file,
    importsOf(fs.readFileSync(path.join(ROOT, file), "utf8"))
      .map((specifier) => ({ specifier, target: resolve(file, specifier) }))
      .filter((edge): edge is { specifier: string; target: string } => edge.target !== null),
  ]),
);

describe("lib/ layers", () => {
  it("parses static, re-exported and dynamic imports", () => {
    expect(
      importsOf(
        'import { a } from "@/lib/a";\nimport type { B } from "./b";\nexport { c } from "../c";\n' +
          'import "./side";\nconst d = await import("@/lib/d");\nexport * from "./e";\n// import { x } from "@/lib/x";',
      ).sort(),
    ).toEqual(["../c", "./b", "./e", "./side", "@/lib/a", "@/lib/d"]);
  });

  it("names a layer for every folder of lib/", () => {
    const folders = fs
      .readdirSync(path.join(ROOT, "lib"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => rank(folder) === Number.POSITIVE_INFINITY)).toEqual([]);
  });

  it("no lower layer imports a higher one", () => {
    const upward: string[] = [];
    for (const [file, edges] of graph) {
      for (const { specifier, target } of edges) {
        if (!target.startsWith("lib/")) continue;
        if (rank(layerOf(target)) > rank(layerOf(file))) {
          upward.push(`${file} (${layerOf(file)}) imports ${specifier} (${layerOf(target)})`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it("no two folders import each other", () => {
    const pairs = new Set<string>();
    for (const [file, edges] of graph) {
      for (const { target } of edges) {
        if (target.startsWith("lib/") && layerOf(target) !== layerOf(file))
          pairs.add(`${layerOf(file)} -> ${layerOf(target)}`);
      }
    }
    const both = [...pairs].filter((pair) => pairs.has(pair.split(" -> ").reverse().join(" -> ")));
    expect(both).toEqual([]);
  });

  it("product code outside lib/ imports no test helper from lib/testing", () => {
    const offenders: string[] = [];
    for (const dir of ["app", "components"]) {
      for (const file of sourceFiles(dir)) {
        for (const specifier of importsOf(fs.readFileSync(path.join(ROOT, file), "utf8"))) {
          if (resolve(file, specifier)?.startsWith("lib/testing/")) offenders.push(`${file} imports ${specifier}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it("names a room for every folder of lib/points", () => {
    const folders = fs
      .readdirSync(path.join(ROOT, "lib/points"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !(POINTS_ROOMS as readonly string[]).includes(folder))).toEqual([]);
  });

  it("no room of lib/points imports a room above it", () => {
    const roomOf = (file: string) => {
      const parts = file.split("/");
      return parts.length === 3 ? "(leaves)" : (parts[2] as string);
    };
    const roomRank = (file: string) => (POINTS_ROOMS as readonly string[]).indexOf(roomOf(file));
    const upward: string[] = [];
    for (const [file, edges] of graph) {
      if (!file.startsWith("lib/points/")) continue;
      for (const { specifier, target } of edges) {
        if (target.startsWith("lib/points/") && roomRank(target) > roomRank(file)) {
          upward.push(`${file} (${roomOf(file)}) imports ${specifier} (${roomOf(target)})`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it("no two files of lib/points import each other, directly or round a circle", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, "open");
      stack.push(file);
      for (const { target } of graph.get(file) ?? []) {
        if (!graph.has(target) || !target.startsWith("lib/points/")) continue;
        if (state.get(target) === "open") cycles.push([...stack.slice(stack.indexOf(target)), target].join(" -> "));
        else if (!state.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, "done");
    };
    for (const file of graph.keys()) if (file.startsWith("lib/points/") && !state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
