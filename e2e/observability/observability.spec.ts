import fs from "node:fs";
import type { APIRequestContext } from "@playwright/test";
import { account, postCredentials, signInError } from "../api/sign-in-helpers";
import type { E2eFixtures } from "../fixture-types";
import { expect, readFixtures, test } from "../fixtures";
import { runBlock, shellBlockAfter } from "../readme";
import { bearer, cardOf, postTopUp, uniqueRef } from "../utils";

/*
 * Issue 17, items 2 and 3, against the production build the whole run used: GET /metrics behind
 * its token, and the server's log (teed to a file by e2e/serve.ts). This project runs after every
 * other one on the same server (playwright.config.ts), so the log it searches for secrets is the
 * whole run's.
 */
test.describe.configure({ mode: "serial" });

const fx = readFixtures();
const observability = fx.observability ?? { logFile: "", metricsToken: "", authSecret: "" };
const org = fx.organizations.observability;
const stripe = fx.stripe !== undefined;
const provider = stripe ? "stripe" : "simulated";

type Line = Record<string, unknown>;

function logLines(): Line[] {
  return fs
    .readFileSync(observability.logFile, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line);
}

async function scrape(request: APIRequestContext): Promise<string> {
  const response = await request.get("/metrics", {
    headers: { Authorization: `Bearer ${observability.metricsToken}` },
  });
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("text/plain");
  expect(response.headers()["cache-control"]).toBe("no-store");
  return response.text();
}

/** The value of one sample: its name and exactly these labels among its own (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const own = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => own[key] === value)) return Number(match[3]);
  }
  return 0;
}

function purchaseCount(text: string, outcome: string): number {
  return sample(text, "points_purchases_total", { source: "api", outcome });
}

test("the run's server logs to a file and has a metrics token", () => {
  expect(fx.observability, "e2e/serve.ts wrote the observability fixtures").toBeDefined();
  expect(fs.existsSync(observability.logFile)).toBe(true);
});

test("GET /metrics answers 401 without its token or with another, and never caches", async ({ request }) => {
  const attempts: Record<string, string>[] = [
    {},
    { Authorization: "Bearer not-the-token" },
    { Authorization: observability.metricsToken },
  ];
  for (const headers of attempts) {
    const response = await request.get("/metrics", { headers });
    expect(response.status()).toBe(401);
    expect(response.headers()["cache-control"]).toBe("no-store");
    expect(await response.text()).not.toContain("points_");
  }
});

test("docs/operations.md's metrics example answers as written: 401 without the token, 200 with it", () => {
  const block = shellBlockAfter("docs/operations.md", "`GET /metrics` serves");
  expect(runBlock(block, fx.baseUrl, { METRICS_TOKEN: observability.metricsToken })).toEqual([401, 200]);
});

test("purchases move the metrics: latency by route template and status, outcomes, provider calls, open purchases", async ({
  request,
}) => {
  const before = await scrape(request);
  const paid = await postTopUp(request, org, { points: 100, reference: uniqueRef("obs-paid") });
  expect(paid.status()).toBe(201);
  const { data } = (await paid.json()) as { data: { top_up: { id: string } } };
  const declined = await postTopUp(request, org, {
    points: 100,
    reference: uniqueRef("obs-declined"),
    payment_source_id: cardOf(org, "declined").id,
  });
  expect(declined.status()).toBe(402);
  const awaiting = await postTopUp(request, org, {
    points: 100,
    reference: uniqueRef("obs-awaiting"),
    payment_source_id: cardOf(org, "authentication_required").id,
  });
  expect(awaiting.status()).toBe(402);
  const read = await request.get(`/v3/points/top-ups/${data.top_up.id}`, { headers: bearer(org) });
  expect(read.status()).toBe(200);

  const after = await scrape(request);
  expect(purchaseCount(after, "paid_now")).toBe(purchaseCount(before, "paid_now") + 1);
  expect(purchaseCount(after, "failed")).toBe(purchaseCount(before, "failed") + 1);
  expect(purchaseCount(after, "awaiting_payment")).toBe(purchaseCount(before, "awaiting_payment") + 1);

  const latency = (route: string, method: string, status: string) =>
    sample(after, "points_http_request_duration_seconds_count", { route, method, status });
  expect(latency("/v3/points/top-ups", "POST", "201")).toBeGreaterThanOrEqual(1);
  expect(latency("/v3/points/top-ups", "POST", "402")).toBeGreaterThanOrEqual(2);
  expect(latency("/v3/points/top-ups/{id}", "GET", "200")).toBeGreaterThanOrEqual(1);
  expect(
    sample(after, "points_http_request_duration_seconds_bucket", {
      route: "/v3/points/top-ups",
      status: "201",
      le: "+Inf",
    }),
  ).toBeGreaterThanOrEqual(1);
  // Routes are templates: no purchase id in any label.
  expect(after).not.toContain(data.top_up.id);

  const charges = (text: string) =>
    sample(text, "points_provider_call_duration_seconds_count", { provider, operation: "charge", outcome: "ok" });
  expect(charges(after)).toBeGreaterThanOrEqual(charges(before) + 3);
  expect(sample(after, "points_purchases_open", { state: "awaiting_payment" })).toBeGreaterThanOrEqual(1);
  expect(sample(after, "points_purchases_oldest_open_age_seconds", { state: "awaiting_payment" })).toBeGreaterThan(0);
  expect(after).toMatch(/^points_purchases_open\{state="unresolved"\} \d+$/m);
  expect(sample(after, "points_purchase_transitions_total", { from: "processing", to: "paid" })).toBeGreaterThanOrEqual(
    1,
  );

  // The pool the server opened on Postgres, and what it has in use (at least this scrape's own query, once done: 0 or more).
  if (fx.database === "postgres") expect(sample(after, "points_db_pool_connections_max")).toBe(10);
  expect(after).toMatch(/^points_db_pool_connections_in_use \d+$/m);
  expect(after).toMatch(/^points_billing_events_pending \d+$/m);
  expect(after).toMatch(/^points_billing_events_oldest_pending_age_seconds [\d.e+-]+$/m);
});

test("an unresolved purchase is counted as open until a retry settles it", async ({ request }) => {
  const body = { points: 100, reference: uniqueRef("obs-unresolved"), payment_source_id: cardOf(org, "processing").id };
  expect((await postTopUp(request, org, body)).status()).toBe(409);
  const open = await scrape(request);
  expect(sample(open, "points_purchases_open", { state: "unresolved" })).toBeGreaterThanOrEqual(1);
  expect(sample(open, "points_purchases_oldest_open_age_seconds", { state: "unresolved" })).toBeGreaterThan(0);
  expect(purchaseCount(open, "unresolved")).toBeGreaterThanOrEqual(1);
  expect((await postTopUp(request, org, body)).status()).toBe(201);
});

test("the reconciler's runs are counted and logged", async ({ request }) => {
  // It runs once a minute on every instance: the whole suite has usually seen one by now.
  test.setTimeout(120_000);
  await expect
    .poll(async () => sample(await scrape(request), "points_reconciler_runs_total", { result: "ok" }), {
      timeout: 100_000,
      intervals: [2_000],
    })
    .toBeGreaterThanOrEqual(1);
  const runs = logLines().filter((line) => line.event === "reconciler_run");
  expect(runs.length).toBeGreaterThanOrEqual(1);
  expect(runs[0]).toMatchObject({
    level: "info",
    due: expect.any(Number),
    duration_ms: expect.any(Number),
    results: expect.any(Object),
  });
});

test("one JSON line per request, lines for a purchase's phases and its provider calls", async ({ request }) => {
  const requestId = `obs-${Date.now().toString(36)}`;
  const reference = uniqueRef("obs-log");
  const response = await postTopUp(request, org, { points: 250, reference }, { "X-Request-Id": requestId });
  expect(response.status()).toBe(201);
  const { data } = (await response.json()) as { data: { top_up: { id: string } } };

  await expect
    .poll(() => logLines().filter((line) => line.request_id === requestId && line.event === "request").length)
    .toBe(1);
  const lines = logLines().filter((line) => line.request_id === requestId);
  const [line] = lines.filter((candidate) => candidate.event === "request");
  expect(line).toMatchObject({
    level: "info",
    method: "POST",
    route: "/v3/points/top-ups",
    status: 201,
    organization_id: org.id,
    api_key_id: org.keyId,
    duration_ms: expect.any(Number),
    time: expect.stringMatching(/Z$/),
  });

  const phases = lines.filter(
    (candidate) => candidate.event === "purchase_phase" && candidate.top_up_id === data.top_up.id,
  );
  // Recorded `processing` at once (issue 18): recording it and marking the charge sent are one commit.
  expect(phases.map((phase) => `${phase.from}->${phase.to}`)).toEqual(["null->processing", "processing->paid"]);
  const charge = lines.find((candidate) => candidate.event === "provider_call" && candidate.operation === "charge");
  expect(charge).toMatchObject({
    provider,
    outcome: "ok",
    payment_status: "succeeded",
    duration_ms: expect.any(Number),
    organization_id: org.id,
  });
  if (stripe) expect(charge?.provider_request_id).toEqual(expect.stringMatching(/^req_/));

  // Every request under /v3 the whole run made has its line, and each line names its route by template.
  const requests = logLines().filter((candidate) => candidate.event === "request");
  expect(requests.length).toBeGreaterThan(5);
  for (const candidate of requests) {
    expect(candidate).toEqual(
      expect.objectContaining({
        request_id: expect.any(String),
        method: expect.any(String),
        status: expect.any(Number),
        duration_ms: expect.any(Number),
      }),
    );
    expect(String(candidate.route)).not.toMatch(/tu_/);
  }
});

/** Every secret this run handed out: API keys, passwords, Stripe's key and webhook secret, tokens. */
function secretsOf(fixtures: E2eFixtures): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, key: string) => {
    if (typeof value === "string") {
      if (
        /(?:^|[a-z])(?:key|Key)$|password|secret|Secret|token|Token/.test(key) &&
        !/Id$/.test(key) &&
        value.length >= 8
      )
        found.add(value);
      if (/^pts_[A-Za-z0-9]{40}$/.test(value)) found.add(value);
      return;
    }
    if (value && typeof value === "object") {
      for (const [name, item] of Object.entries(value)) walk(item, Array.isArray(value) ? key : name);
    }
  };
  walk(fixtures, "");
  return [...found];
}

test("no secret the run used is in the server's log", async ({ request }) => {
  // A session cookie of this run too: sign in, and use it once.
  const signedIn = await postCredentials(request, account.signin.admin);
  expect(await signInError(signedIn)).toBeNull();
  const cookie = signedIn
    .headersArray()
    .filter((header) => header.name.toLowerCase() === "set-cookie")
    .map((header) => header.value.split(";")[0] ?? "")
    .find((value) => /session-token=/.test(value));
  const sessionToken = cookie?.split("=").slice(1).join("=") ?? "";
  expect(sessionToken.length).toBeGreaterThan(20);
  expect((await request.get("/dashboard", { headers: { Cookie: cookie ?? "" }, maxRedirects: 0 })).status()).toBe(200);

  // A client that sends its key where an id goes: X-Request-Id is logged (and answered), the key is not.
  const misplaced = await request.get("/v3/points/balance", {
    headers: { ...bearer(org), "X-Request-Id": org.apiKey },
  });
  expect(misplaced.status()).toBe(200);
  await expect
    .poll(() =>
      logLines().some(
        (line) => line.event === "request" && line.route === "/v3/points/balance" && line.request_id === "[redacted]",
      ),
    )
    .toBe(true);

  const secrets = [...secretsOf(fx), observability.authSecret, observability.metricsToken, sessionToken];
  expect(secrets.filter((secret) => secret.startsWith("pts_")).length).toBeGreaterThan(20);
  expect(secrets.filter((secret) => secret.length >= 8).length).toBe(secrets.length);
  if (stripe) {
    expect(secrets).toContain(fx.stripe?.secretKey);
    expect(secrets).toContain(fx.stripe?.webhookSecret);
  }
  const log = fs.readFileSync(observability.logFile, "utf8");
  expect(log.length).toBeGreaterThan(1000);
  const leaked = secrets.filter((secret) => log.includes(secret));
  expect(leaked, "secrets found in the server's log").toEqual([]);
});
