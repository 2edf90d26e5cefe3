import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./free-port";

/**
 * A Postgres cluster of a test's own (initdb into a temporary directory, its own port, trust auth
 * on loopback), for tests that restart Postgres: the machine's shared server is never touched.
 * Runs as the `postgres` user when started as root (Postgres refuses root).
 */
export interface PostgresCluster {
  port: number;
  /** The admin URL (user postgres, database postgres). */
  url: string;
  /** A fast restart, as an operator's `pg_ctl restart -m fast`: every session is ended (57P01). */
  restart(): Promise<void>;
  /** Stops it at once and removes its directory. */
  remove(): Promise<void>;
}

/** The newest Postgres server binaries: Debian's /usr/lib/postgresql/<version>/bin, or POSTGRES_BIN. */
export function postgresBinDir(): string | null {
  if (process.env.POSTGRES_BIN)
    return fs.existsSync(path.join(process.env.POSTGRES_BIN, "initdb")) ? process.env.POSTGRES_BIN : null;
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return null;
  const versions = fs
    .readdirSync(base)
    .filter((version) => fs.existsSync(path.join(base, version, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], "bin") : null;
}

function postgresUser(): { uid: number; gid: number } | null {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return null;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

export async function startPostgresCluster(options: { maxConnections?: number } = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("No Postgres server binaries (initdb) found under /usr/lib/postgresql; set POSTGRES_BIN.");
  const owner = postgresUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-pg-"));
  const data = path.join(dir, "data");
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  const port = await freePort();
  const run = (binary: string, args: string[]) => {
    const result = spawnSync(path.join(bin, binary), args, {
      encoding: "utf8",
      cwd: dir,
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
      env: { ...process.env, LC_ALL: "C" },
    });
    if (result.status !== 0) {
      throw new Error(`${binary} ${args.join(" ")} failed (${result.status}): ${result.stderr || result.stdout}`);
    }
  };
  run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    `-c max_connections=${options.maxConnections ?? 100}`,
    // A throwaway cluster: durability is not what is tested.
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
  ].join(" ");
  const pgCtl = (...args: string[]) =>
    run("pg_ctl", ["-D", data, "-l", path.join(dir, "postgres.log"), "-o", serverOptions, "-w", "-t", "30", ...args]);
  pgCtl("start");
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      pgCtl("restart", "-m", "fast");
    },
    async remove() {
      try {
        pgCtl("stop", "-m", "immediate");
      } catch {
        // Already stopped.
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
