import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./free-port";

/** Where Debian's package puts it; HAPROXY_PATH for another. */
export function haproxyPath(): string | null {
  const candidates = [process.env.HAPROXY_PATH, "/usr/sbin/haproxy", "/usr/bin/haproxy"].filter(Boolean) as string[];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) return null;
  try {
    execFileSync(found, ["-v"], { stdio: "ignore" });
    return found;
  } catch {
    return null;
  }
}

export interface Haproxy {
  port: number;
  url: string;
  /** The configuration it runs, for a report or docs/operations.md. */
  config: string;
  /** The servers' states as HAProxy sees them (its stats CSV): name → UP, DOWN, NOLB… */
  serverStates(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

export interface HaproxyOptions {
  /** Each instance's port on 127.0.0.1. */
  backends: number[];
  /** Health check interval; an instance is marked down after `fall` failed checks. */
  checkIntervalMs?: number;
  fall?: number;
  rise?: number;
}

/** HAProxy's own answers (no instance could take the request) in the API's envelope, as docs/contract.md §1 asks. */
function errorFile(status: number, reason: string, code: string, message: string): string {
  const body = JSON.stringify({ status: "error", error: { code, message, details: {} } });
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "Content-Type: application/json; charset=utf-8",
    "Cache-Control: no-store",
    "Retry-After: 1",
    "Connection: close",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ].join("\r\n");
}

/**
 * The balancer of docs/operations.md ("Behind a balancer and a pooler"): routes by GET /readyz,
 * checked often enough to mark a stopping instance down within POINTS_SHUTDOWN_DELAY_SECONDS;
 * a request whose connection an instance refuses is retried on another (redispatch).
 */
export function haproxyConfig(options: HaproxyOptions & { port: number; statsPort: number; dir: string }): string {
  const inter = options.checkIntervalMs ?? 500;
  return [
    "global",
    "  maxconn 2000",
    "  log stderr format raw local0 warning",
    "defaults",
    "  mode http",
    "  log global",
    "  timeout connect 1s",
    "  timeout client 30s",
    "  timeout server 30s",
    "  timeout http-keep-alive 10s",
    "  option http-buffer-request",
    // A refused or failed connection is retried (on another instance: redispatch), never a request an instance took.
    "  retries 3",
    "  retry-on conn-failure empty-response",
    "  option redispatch 1",
    `  errorfile 502 ${path.join(options.dir, "502.http")}`,
    `  errorfile 503 ${path.join(options.dir, "503.http")}`,
    `  errorfile 504 ${path.join(options.dir, "504.http")}`,
    "frontend api",
    `  bind 127.0.0.1:${options.port}`,
    // The instances advertise their own 65 s; a client believing it reuses a connection the balancer
    // closed at 10 s and fails. Advertise the balancer's own idle timeout instead.
    "  http-response set-header Keep-Alive timeout=10",
    "  default_backend instances",
    "backend instances",
    "  balance roundrobin",
    "  option httpchk GET /readyz",
    "  http-check expect status 200",
    `  default-server check inter ${inter} fastinter ${inter} downinter ${inter} fall ${options.fall ?? 2} rise ${options.rise ?? 2}`,
    ...options.backends.map((port, index) => `  server app${index + 1} 127.0.0.1:${port}`),
    "listen stats",
    `  bind 127.0.0.1:${options.statsPort}`,
    "  stats enable",
    "  stats uri /stats",
    "",
  ].join("\n");
}

export async function startHaproxy(options: HaproxyOptions): Promise<Haproxy> {
  const binary = haproxyPath();
  if (!binary) throw new Error("HAProxy is not installed (apt-get install haproxy, or set HAPROXY_PATH).");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "haproxy-"));
  const port = await freePort();
  const statsPort = await freePort();
  fs.writeFileSync(
    path.join(dir, "502.http"),
    errorFile(
      502,
      "Bad Gateway",
      "upstream_unavailable",
      "No instance answered; retry with the same reference, it is safe.",
    ),
  );
  fs.writeFileSync(
    path.join(dir, "503.http"),
    errorFile(
      503,
      "Service Unavailable",
      "service_unavailable",
      "No instance is ready; retry with the same reference in a few seconds.",
    ),
  );
  fs.writeFileSync(
    path.join(dir, "504.http"),
    errorFile(
      504,
      "Gateway Timeout",
      "upstream_timeout",
      "No instance answered in time; retry with the same reference, it is safe.",
    ),
  );
  const config = haproxyConfig({ ...options, port, statsPort, dir });
  const configFile = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(configFile, config);
  execFileSync(binary, ["-c", "-q", "-f", configFile], { stdio: "pipe" });
  let output = "";
  const child: ChildProcess = spawn(binary, ["-db", "-f", configFile], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const statsUrl = `http://127.0.0.1:${statsPort}/stats;csv`;
  const serverStates = async (): Promise<Record<string, string>> => {
    const csv = await (await fetch(statsUrl)).text();
    const states: Record<string, string> = {};
    for (const line of csv.split("\n")) {
      const [proxy, server, ...rest] = line.split(",");
      if (proxy === "instances" && server && server !== "BACKEND" && server !== "FRONTEND")
        states[server] = rest[15] ?? "";
    }
    return states;
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`HAProxy exited (${child.exitCode}): ${output}`);
    const up = await serverStates().then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`HAProxy did not start within 10 s: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    config,
    serverStates,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
