import { type APIRequestContext, expect, request as playwrightRequest, test } from "@playwright/test";
import { type ProductionServer, startProduction } from "../production-server";

/*
 * `next start` with no proxy declared (no AUTH_URL, NEXTAUTH_URL or AUTH_TRUST_HOST): every
 * X-Forwarded-* header is the client's own word. Started here, on its own embedded database, so
 * that its log can be read.
 */
const SIGN_IN_MAX_FAILURES_PER_ADDRESS = 50;

let server: ProductionServer;
let api: APIRequestContext;
const output = () => server.output();

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = startProduction(57);
  await server.ready(100_000);
  api = await playwrightRequest.newContext({ baseURL: `http://127.0.0.1:${server.port}` });
});

test.afterAll(async () => {
  await api?.dispose();
  await server?.stop();
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
  const before = output().length;
  const response = await api.post("/api/auth/callback/credentials", {
    headers: { "Content-Type": "application/json" },
    data: "{",
    maxRedirects: 0,
  });
  const logged = () => output().slice(before);
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
  const paused = await postCredentials(
    { email: `direct-${run}-last@example.com`, password: "guess" },
    { "X-Forwarded-For": "192.0.2.1" },
  );
  expect(paused).toMatch(/^Too many failed sign-ins/);
});
