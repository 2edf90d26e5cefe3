import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./free-port";

/** Where Debian's package puts it; PGBOUNCER_PATH for another. */
export function pgbouncerPath(): string | null {
  const candidates = [process.env.PGBOUNCER_PATH, "/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].filter(
    Boolean,
  ) as string[];
  return candidates.find((candidate) => fs.existsSync(candidate)) ?? null;
}

export interface Pgbouncer {
  port: number;
  /** The same database's URL through the pooler. */
  urlFor(directUrl: string): string;
  /** Stops it (SIGINT: its "safe shutdown" waits for nothing in transaction mode), then forgets its files. */
  stop(): Promise<void>;
  /** Stops it and starts it again on the same port, as an operator's restart does. */
  restart(): Promise<void>;
}

async function listening(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`PgBouncer did not listen on ${port} within ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * PgBouncer in transaction mode in front of the Postgres server at `serverUrl` (trust auth, as the
 * test server has), with a small pool so that one client's consecutive transactions may reach
 * different server connections, as they do under load. Runs as the `postgres` user when started as
 * root (PgBouncer refuses root).
 */
export async function startPgbouncer(
  serverUrl: string,
  options: { poolSize?: number; settings?: Record<string, string | number> } = {},
): Promise<Pgbouncer> {
  const binary = pgbouncerPath();
  if (!binary) throw new Error("PgBouncer is not installed (apt-get install pgbouncer, or set PGBOUNCER_PATH).");
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || "postgres");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pgbouncer-"));
  fs.chmodSync(dir, 0o777);
  const port = await freePort();
  fs.writeFileSync(path.join(dir, "users.txt"), `"${user}" ""\n`);
  fs.writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 3}`,
      "max_client_conn = 500",
      "ignore_startup_parameters = extra_float_digits,options",
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
      ...Object.entries(options.settings ?? {}).map(([name, value]) => `${name} = ${value}`),
      "",
    ].join("\n"),
  );
  for (const file of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, file), 0o666);
  const asRoot = typeof process.getuid === "function" && process.getuid() === 0;
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(binary, [...(asRoot ? ["-u", "postgres"] : []), path.join(dir, "pgbouncer.ini")], {
      stdio: "ignore",
    });
    await listening(port, 10_000);
  };
  const stopChild = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGINT");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (running.exitCode === null) running.kill("SIGKILL");
  };
  await start();
  return {
    port,
    urlFor(directUrl) {
      const url = new URL(directUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    async stop() {
      await stopChild();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stopChild();
      await start();
    },
  };
}

/** Whether this machine can run the pooler's tests. */
export function hasPgbouncer(): boolean {
  const binary = pgbouncerPath();
  if (!binary) return false;
  try {
    execFileSync(binary, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
