/**
 * Reads a Node --cpu-prof profile and says where the busy time went: by package (next, drizzle-orm,
 * postgres, zod, node:zlib, ...) and by function, so "the app is slower" becomes "this is slow".
 */
import fs from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  busyMs: number;
  idleMs: number;
  byPackage: Array<{ name: string; ms: number }>;
  byFunction: Array<{ name: string; ms: number }>;
}

/** The package (or Node built-in, or app file) a frame belongs to. */
function packageOf(url: string, functionName: string): string {
  if (!url) return functionName ? `(${functionName.replace(/^\(|\)$/g, "")})` : "(native)";
  const inModules = url.lastIndexOf("node_modules/");
  if (inModules >= 0) {
    const rest = url.slice(inModules + "node_modules/".length).split("/");
    const name = rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1] ?? ""}` : (rest[0] ?? url);
    // Next.js bundles its own copies of libraries under next/dist/compiled.
    return name === "next" && rest[2] === "compiled" ? `next (compiled ${rest[3] ?? ""})` : name;
  }
  if (url.startsWith("node:")) return url;
  const chunk = /\/\.next\/server\/chunks\/node_modules_([^/]+)$/.exec(url)?.[1];
  if (chunk) {
    // Turbopack names a library's chunk node_modules_<package>_<hash>: the package, bundled.
    const parts = chunk.split("_");
    const name = parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1] ?? ""}` : (parts[0] ?? chunk);
    return `${name} (bundled)`;
  }
  if (url.includes("/.next/")) return "app bundle (.next)";
  return url.replace(/^file:\/\//, "");
}

export function summarizeCpuProfile(file: string, top = 12): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  for (const [index, id] of profile.samples.entries()) {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) continue;
    if (frame.functionName === "(idle)") {
      idle += us;
      continue;
    }
    busy += us;
    const pkg = packageOf(frame.url, frame.functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
    const fn = `${frame.functionName || "(anonymous)"} ${pkg}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const sorted = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000) }));
  return {
    file,
    busyMs: Math.round(busy / 1000),
    idleMs: Math.round(idle / 1000),
    byPackage: sorted(byPackage),
    byFunction: sorted(byFunction),
  };
}

/** The newest profile in a directory, or null. */
export function newestProfile(dir: string): string | null {
  if (!fs.existsSync(dir)) return null;
  const files = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => path.join(dir, name))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return files[0] ?? null;
}

export function printProfileSummary(summary: ProfileSummary): void {
  const share = (ms: number) => `${((ms / Math.max(1, summary.busyMs)) * 100).toFixed(1)}%`.padStart(6);
  console.log(
    `\napp CPU profile (${path.relative(process.cwd(), summary.file)}): ${summary.busyMs} ms busy, ${summary.idleMs} ms idle`,
  );
  console.log("  self time by package:");
  for (const row of summary.byPackage)
    console.log(`    ${share(row.ms)} ${String(row.ms).padStart(6)} ms  ${row.name}`);
  console.log("  self time by function:");
  for (const row of summary.byFunction)
    console.log(`    ${share(row.ms)} ${String(row.ms).padStart(6)} ms  ${row.name}`);
}
