import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import Stripe from "stripe";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import { randomString } from "@/lib/ids";
import { type FakeStripe, startFakeStripe } from "@/lib/testing/fake-stripe/server";
import { type Run, run, TSX } from "@/lib/testing/run-command";
import { type ProductionServer, startProduction } from "../production-server";

/*
 * When Stripe no longer knows an organisation's customer (deleted in Stripe's dashboard, keys moved
 * from test to live) or refuses the service's key, as an operator meets it: a `next start` of its
 * own (offsets 70-79 from E2E_PORT) on an embedded database of its own, provisioned and mended
 * with the real `npm run points` command while the server is stopped (PGlite allows one process,
 * as the README says), against a Stripe-compatible test server of its own, so the server's whole
 * console can be read.
 */

interface Setup {
  fake: FakeStripe;
  stripe: Stripe;
  secretKey: string;
  dir: string;
  stripeEnv: Record<string, string>;
}

async function setUp(): Promise<Setup> {
  const secretKey = `sk_test_${randomString(24)}`;
  const fake = await startFakeStripe({ apiKey: secretKey });
  const stripe = new Stripe(secretKey, { host: fake.host, port: fake.port, protocol: "http", maxNetworkRetries: 0 });
  await setupStripePrices(stripe, SIMULATED_PRICES);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-customer-gone-"));
  return { fake, stripe, secretKey, dir, stripeEnv: { STRIPE_SECRET_KEY: secretKey, STRIPE_API_URL: fake.url } };
}

/** `npm run points -- …` as the operator runs it, on the test's embedded database and test server. */
function points(setup: Setup, args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...setup.stripeEnv, PGLITE_DIR: path.join(setup.dir, "pglite") };
  for (const name of ["DATABASE_URL", "TEST_DATABASE_URL", "STRIPE_WEBHOOK_SECRET"]) delete env[name];
  return run(TSX, ["scripts/points.ts", ...args], env);
}

/**
 * Lists and buys three times: each answers 409 with the code and no Retry-After (retrying will not
 * help), and no purchase is made. Answers the purchases' responses.
 */
async function expectRefusedThrice(server: ProductionServer, apiKey: string, code: string, prefix: string) {
  const purchases = [];
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const listed = await api(server, apiKey, "GET");
    expect(listed.status).toBe(409);
    expect(listed.json.error?.code).toBe(code);
    expect(listed.retryAfter).toBeNull();
    const bought = await api(server, apiKey, "POST", { points: 100, reference: `${prefix}-${attempt}` });
    expect(bought.status).toBe(409);
    expect(bought.json.error?.code).toBe(code);
    purchases.push(bought);
  }
  return purchases;
}

async function createOrganization(setup: Setup) {
  const created = await points(setup, [
    "org",
    "create",
    "--name",
    "Customer gone",
    "--currency",
    "USD",
    "--api-purchases",
    "enabled",
    "--card",
    "visa",
    "--default-card",
    "0",
    "--json",
  ]);
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as {
    organization_id: string;
    api_key: string;
    admin: { email: string; password: string };
  };
}

function serve(setup: Setup, offset: number, env: Record<string, string> = setup.stripeEnv): ProductionServer {
  return startProduction(offset, { ...env, PGLITE_DIR: path.join(setup.dir, "pglite") });
}

async function api(server: ProductionServer, key: string, method: "GET" | "POST", body?: unknown) {
  const url = `http://127.0.0.1:${server.port}/v3/points/${method === "GET" ? "payment-methods" : "top-ups"}`;
  const response = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as {
    error?: { code: string; message: string };
    data?: { top_up?: { status: string } };
  };
  return { status: response.status, retryAfter: response.headers.get("retry-after"), json };
}

async function signIn(page: Page, server: ProductionServer, user: { email: string; password: string }): Promise<void> {
  await page.goto(`http://127.0.0.1:${server.port}/signin`);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard$/);
}

/** The server's lines matching `pattern`: a JSON log line by its message, any other line as it is. */
const lines = (output: string, pattern: RegExp) =>
  output
    .split("\n")
    .map((line) => {
      if (!line.startsWith("{")) return line;
      try {
        return String((JSON.parse(line) as { msg?: unknown }).msg ?? "");
      } catch {
        return line;
      }
    })
    .filter((line) => pattern.test(line));

test("a customer deleted at Stripe: 409, the dashboard tells admins to contact support, the log tells the operator, relinking restores purchases", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const setup = await setUp();
  let server: ProductionServer | undefined;
  try {
    const org = await createOrganization(setup);
    const [customer] = (
      await setup.stripe.customers.search({ query: `metadata['organization_id']:'${org.organization_id}'` })
    ).data;
    if (!customer) throw new Error("org create made no customer");
    await setup.stripe.customers.del(customer.id);

    server = serve(setup, 70);
    await server.ready();
    for (const bought of await expectRefusedThrice(server, org.api_key, "billing_customer_missing", "gone")) {
      expect(bought.json.error?.message).not.toContain(customer.id);
    }

    await signIn(page, server, org.admin);
    const notice = page.getByTestId("billing-problem");
    for (const pathname of ["/dashboard", "/dashboard/buy", "/dashboard/payment-details", "/dashboard/settings"]) {
      await page.goto(`http://127.0.0.1:${server.port}${pathname}`);
      await expect(notice, pathname).toContainText("Payments are unavailable right now");
      await expect(notice, pathname).toContainText("Stripe no longer knows this organisation's customer account");
      await expect(notice, pathname).toContainText("Contact support");
      // A shell command, or a setting, is the operator's: never on a page an admin sees.
      for (const operatorOnly of ["npm run", "--stripe-customer", "STRIPE_SECRET_KEY"]) {
        await expect(page.locator("body"), pathname).not.toContainText(operatorOnly);
      }
    }
    // The last page was Settings; Payment details offers no card to add to a customer Stripe does not know.
    await page.goto(`http://127.0.0.1:${server.port}/dashboard/payment-details`);
    await expect(notice).toBeVisible();
    await expect(page.getByRole("button", { name: "Add a card with Stripe Checkout" })).toHaveCount(0);
    await expect(page.getByText("Buying is unavailable for a moment")).toHaveCount(0);

    const logged = lines(server.output(), /^billing: Stripe has no customer/);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(
      new RegExp(
        `^billing: Stripe has no customer ${customer.id} \\(organisation ${org.organization_id}\\): (resource_missing|customer_deleted), request req_\\w+\\. Relink it: npm run points -- org update ${org.organization_id} --stripe-customer cus_… or --new-stripe-customer$`,
      ),
    );
    expect(server.output()).not.toContain(setup.secretKey);

    // The operator restores a customer with a card, and relinks it with the server stopped.
    const restored = await setup.stripe.customers.create({ name: "Customer gone, restored" });
    const card = await setup.stripe.paymentMethods.attach("pm_card_visa", { customer: restored.id });
    await setup.stripe.customers.update(restored.id, { invoice_settings: { default_payment_method: card.id } });
    await server.stop({ keepDir: true });
    const relinked = await points(setup, [
      "org",
      "update",
      org.organization_id,
      "--stripe-customer",
      restored.id,
      "--json",
    ]);
    expect(relinked.code, relinked.stderr).toBe(0);
    expect(JSON.parse(relinked.stdout)).toEqual({
      organization_id: org.organization_id,
      // A card attached outside the service is still known by the test card behind it.
      payment_methods: [{ id: card.id, label: "Visa •••• 4242", kind: "visa", is_default: true }],
    });

    server = serve(setup, 71);
    await server.ready();
    const bought = await api(server, org.api_key, "POST", { points: 100, reference: "after-relink" });
    expect(bought.status).toBe(201);
    expect(bought.json.data?.top_up?.status).toBe("paid");
  } finally {
    await server?.stop({ keepDir: true });
    await setup.fake.close();
    fs.rmSync(setup.dir, { recursive: true, force: true });
  }
});

test("a refused key: the startup check says so, the API answers 409 billing_credentials_refused, one log line", async () => {
  test.setTimeout(180_000);
  const setup = await setUp();
  let server: ProductionServer | undefined;
  try {
    const org = await createOrganization(setup);
    const wrongKey = `sk_test_${randomString(24)}`;
    server = serve(setup, 72, { STRIPE_SECRET_KEY: wrongKey, STRIPE_API_URL: setup.fake.url });
    await server.ready();
    const refusal =
      /^billing: Stripe refused the API key \(authentication_error, request req_\w+\): check STRIPE_SECRET_KEY$/;
    await expect.poll(() => lines(server?.output() ?? "", refusal).length, { timeout: 15_000 }).toBe(1);

    await expectRefusedThrice(server, org.api_key, "billing_credentials_refused", "refused");
    // One line for the operator, however many requests met the refusal (each provider call still has
    // its own JSON `provider_call` record).
    expect(lines(server.output(), /^billing: .*refused the API key/)).toHaveLength(1);
    expect(server.output()).not.toContain(wrongKey.slice(8));
  } finally {
    await server?.stop();
    await setup.fake.close();
    fs.rmSync(setup.dir, { recursive: true, force: true });
  }
});
