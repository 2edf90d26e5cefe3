import fs from "node:fs";
import path from "node:path";

export class PgliteLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The embedded database in ${dir} is in use by process ${pid}. ` +
        "Stop that process (the dev server, say) or set DATABASE_URL to a Postgres server that both can share.",
    );
    this.name = "PgliteLockedError";
  }
}

/**
 * PGlite allows one process per data directory; a second one corrupts it. A lock file holding
 * the owner's pid makes a second process refuse clearly, and a lock left by a dead process is
 * taken over. Returns the release function.
 */
export function acquirePgliteLock(dir: string): () => void {
  const lockPath = path.join(dir, "points.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      const release = () => {
        process.off("exit", release);
        try {
          if (fs.readFileSync(lockPath, "utf8").trim() === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          // Already gone: nothing to release.
        }
      };
      process.once("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number.parseInt(readOrEmpty(lockPath), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new PgliteLockedError(dir, owner);
      }
      // A stale lock from a process that is gone (or our own, after a hot reload): take it over.
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock the embedded database directory ${dir}.`);
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
