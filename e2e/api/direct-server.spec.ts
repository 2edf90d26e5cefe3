import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type APIRequestContext, expect, request as playwrightRequest, test } from "@playwright/test";

/*
 * `next start` with no proxy declared (no AUTH_URL, NEXTAUTH_URL or AUTH_TRUST_HOST): every
 * X-Forwarded-* header is the client's own word. Started here, on its own embedded database, so
 * that its log can be read.
 */
const PORT = Number(process.env.E2E_PORT ?? 3100) + 57;
const BASE_URL = `http://127.0.0.1:${PORT}`;
const SIGN_IN_MAX_FAILURES_PER_ADDRESS = 50;

let child: ChildProcess | undefined;
let dir = "";
let output = "";
let api: APIRequestContext;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-direct-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PGLITE_DIR: path.join(dir, "pglite"),
    AUTH_SECRET: randomBytes(32).toString("base64"),
    POINTS_RECONCILE: "off",
  };
  for (const name of ["AUTH_URL", "NEXTAUTH_URL", "AUTH_TRUST_HOST", "DATABASE_URL", "TEST_DATABASE_URL", "STRIPE_SECRET_KEY"]) {
    delete env[name];
  }
  child = spawn(process.execPath, [path.join(process.cwd(), "scripts", "next.mjs"), "start", "-p", String(PORT)], { env });
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  api = await playwrightRequest.newContext({ baseURL: BASE_URL });
  const deadline = Date.now() + 100_000;
  for (;;) {
    const status = await api
      .get("/v3/points/payment-methods")
      .then((response) => response.status())
      .catch(() => 0);
    if (status === 403) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`The server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
});

test.afterAll(async () => {
  await api?.dispose();
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.on("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function postCredentials(fields: { email: string; password: string }, headers: Record<string, string> = {}) {
  const csrf = await api.get("/api/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await api.post("/api/auth/callback/credentials", {
    form: { ...fields, csrfToken, json: "true" },
    headers,
    maxRedirects: 0,
  });
  const { url } = (await response.json()) as { url: string };
  return new URL(url).searchParams.get("error");
}

test("a broken JSON sign-in is refused with 415, and the log has no stack trace", async () => {
  const before = output.length;
  const response = await api.post("/api/auth/callback/credentials", {
    headers: { "Content-Type": "application/json" },
    data: "{",
    maxRedirects: 0,
  });
  const logged = () => output.slice(before);
  expect(response.status(), logged()).toBe(415);
  expect(await response.json()).toMatchObject({ status: "error", error: { code: "unsupported_media_type" } });
  // Anything the request logged has arrived by the time a later request is answered.
  await api.get("/api/auth/csrf");
  expect(logged()).not.toMatch(/^\s+at /m);
  expect(logged()).not.toMatch(/SyntaxError|JSON/);
});

test("without a trusted proxy the limit keys on the socket's address: a forged X-Forwarded-For escapes nothing", async () => {
  // Fifty-one sign-ins, each a production-cost scrypt hash.
  test.setTimeout(240_000);
  const run = Date.now().toString(36);
  for (let i = 0; i < SIGN_IN_MAX_FAILURES_PER_ADDRESS; i += 1) {
    const error = await postCredentials(
      { email: `direct-${run}-${i}@example.com`, password: "guess" },
      { "X-Forwarded-For": `203.0.113.${i + 1}` },
    );
    expect(error).toBe("CredentialsSignin");
  }
  const paused = await postCredentials({ email: `direct-${run}-last@example.com`, password: "guess" }, { "X-Forwarded-For": "192.0.2.1" });
  expect(paused).toMatch(/^Too many failed sign-ins/);
});
