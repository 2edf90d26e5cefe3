/**
 * CPU time per process from /proc (Linux only), so the bench can say where the time went: the
 * app's Node process, the Postgres backends serving it, or the load generator itself.
 */
import fs from "node:fs";

const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of one process, or 0 when it is gone or /proc is missing. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces; the fields after its closing parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const utime = Number(fields[11] ?? 0);
    const stime = Number(fields[12] ?? 0);
    return (utime + stime) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The process and all of its descendants (next start may run its server in a child). */
export function processTree(root: number): number[] {
  const parents = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [root];
  }
  for (const name of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const children = parents.get(ppid) ?? [];
      children.push(Number(name));
      parents.set(ppid, children);
    } catch {
      // The process exited while we looked.
    }
  }
  const tree: number[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    tree.push(pid);
    queue.push(...(parents.get(pid) ?? []));
  }
  return tree;
}

export function cpuSecondsOfAll(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
}

/** Busy and total CPU seconds of the whole machine (all cores) since boot, from /proc/stat. */
export function machineCpuSeconds(): { busy: number; total: number } {
  try {
    const line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((sum, value) => sum + value, 0);
    // idle and iowait are the not-busy columns.
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
  } catch {
    return { busy: 0, total: 0 };
  }
}
