import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A `next start` of the build under test, apart from the Playwright server: on its own port (beside
 * E2E_PORT, so two checkouts do not collide) and its own embedded database, with exactly the
 * environment a test gives it. For what production does at startup: what it refuses, what it prints.
 */
export interface ProductionServer {
  child: ChildProcess;
  port: number;
  /** The embedded database's directory (inside `dir`, which stop() removes unless kept). */
  pgliteDir: string;
  dir: string;
  output(): string;
  /** Resolves with the exit code, or null when it was still running after `ms`. */
  exited(ms: number): Promise<number | null>;
  /** Resolves once the API answers (403 without a key: startup, banner included, is done); throws if it exits first. */
  ready(timeoutMs?: number): Promise<void>;
  stop(options?: { keepDir?: boolean }): Promise<void>;
}

/** Variables a test run may carry that would point the server elsewhere; each test sets its own. */
const INHERITED = [
  "DATABASE_URL",
  "TEST_DATABASE_URL",
  "PGLITE_DIR",
  "AUTH_SECRET",
  "NEXTAUTH_SECRET",
  "AUTH_URL",
  "NEXTAUTH_URL",
  "AUTH_TRUST_HOST",
  "AUTH_TRUSTED_PROXY_HOPS",
  "STRIPE_SECRET_KEY",
  "STRIPE_API_URL",
  "STRIPE_WEBHOOK_SECRET",
];

export interface ProductionOptions {
  /**
   * A directory laid out by scripts/standalone-layout.mjs: the standalone server is started there,
   * as the Docker image starts it, instead of `npm start` in this checkout.
   */
  standaloneDir?: string;
  /** Started as a person or a container command would: `npm start`, so the signals go to npm. */
  viaNpm?: boolean;
}

export function startProduction(
  offset: number,
  env: Record<string, string | undefined> = {},
  options: ProductionOptions = {},
): ProductionServer {
  const port = Number(process.env.E2E_PORT ?? 3100) + offset;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-prod-"));
  const pgliteDir = path.join(dir, "pglite");
  // No balancer stands in front of a test's server: its SIGTERM need not wait before closing the
  // listener (a spec that tests the delay sets one).
  const merged: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    POINTS_RECONCILE: "off",
    POINTS_SHUTDOWN_DELAY_SECONDS: "0",
  };
  for (const name of INHERITED) delete merged[name];
  Object.assign(merged, { PGLITE_DIR: pgliteDir, AUTH_SECRET: randomBytes(32).toString("base64") }, env);
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
  const { standaloneDir } = options;
  // The standalone server listens on HOSTNAME, which a shell or a container may have set to its own name.
  if (standaloneDir) merged.HOSTNAME = "127.0.0.1";
  const child = standaloneDir
    ? spawn(process.execPath, [path.join(standaloneDir, "scripts", "standalone-server.mjs")], {
        env: merged,
        cwd: standaloneDir,
      })
    : options.viaNpm
      ? spawn("npm", ["start", "--", "-p", String(port)], { env: merged })
      : spawn(process.execPath, [path.join(process.cwd(), "scripts", "next.mjs"), "start", "-p", String(port)], {
          env: merged,
        });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    port,
    pgliteDir,
    dir,
    output: () => output,
    exited: (ms) => Promise.race([exit, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms))]),
    async ready(timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}:\n${output}`);
        const status = await fetch(`http://127.0.0.1:${port}/v3/points/payment-methods`).then(
          (response) => response.status,
          () => null,
        );
        if (status === 403) return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      throw new Error(`next start did not answer within ${timeoutMs} ms:\n${output}`);
    },
    async stop(options = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        await exit;
        clearTimeout(timer);
      }
      if (!options.keepDir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
