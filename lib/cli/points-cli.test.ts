import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "@/lib/clock";
import { type Db, openDatabase } from "@/lib/db/client";
import { acquirePgliteLock } from "@/lib/db/pglite-lock";
import { apiKeys, organizations, simCustomers, simPaymentMethods, topUps, users } from "@/lib/db/schema";
import { verifyPassword } from "@/lib/auth/password";
import { authenticateApiKey, authenticateApiRequest } from "@/lib/points/api-keys";
import { PointsError } from "@/lib/points/errors";
import { createOrganization } from "@/lib/points/organizations";
import { listUsablePaymentMethods } from "@/lib/points/payment-methods";
import { purchasePoints } from "@/lib/points/purchase";
import type { Services } from "@/lib/points/services";
import { parseTopUpRequest } from "@/lib/points/top-up-request";
import { type Backend, backends } from "@/lib/testing/harness";
import { type FakeStripe, startFakeStripe } from "@/lib/testing/fake-stripe/server";
import { createScratchDatabase, simulatedServices } from "@/lib/testing/scratch-database";

/*
 * These tests run the real command as an operator would, in a child process, against the same
 * kind of database the app uses, and then look at the database (and at what the REST layer's
 * authentication makes of the printed key) to check that what was printed is what happened.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The environment of the child: the test's own, minus anything that would pick another database. */
function childEnv(database: { DATABASE_URL?: string; PGLITE_DIR?: string }): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.PGLITE_DIR;
  delete env.STRIPE_SECRET_KEY;
  return { ...env, ...database };
}

interface Target {
  backend: Backend;
  env: NodeJS.ProcessEnv;
  /** Opens the database between commands (PGlite allows one process at a time). */
  withDb<T>(use: (services: Services) => Promise<T>): Promise<T>;
  /** Runs several commands: one after another on PGlite (one process at a time), at once on Postgres. */
  runAll(commands: string[][]): Promise<Run[]>;
  dispose(): Promise<void>;
}

function runPoints(env: NodeJS.ProcessEnv, args: string[]): Promise<Run> {
  return run(TSX, ["scripts/points.ts", ...args], env);
}

async function createTarget(backend: Backend): Promise<Target> {
  if (backend === "pglite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-cli-"));
    // The demo's demo.json is written beside the PGlite directory, so that must be inside dir too.
    const pgliteDir = path.join(dir, "pglite");
    const env = childEnv({ PGLITE_DIR: pgliteDir });
    return {
      backend,
      env,
      runAll: async (commands) => {
        const results: Run[] = [];
        for (const args of commands) results.push(await runPoints(env, args));
        return results;
      },
      withDb: async (use) => {
        const database = await openDatabase({ pgliteDir });
        try {
          return await use(simulatedServices(database.db));
        } finally {
          await database.close();
        }
      },
      dispose: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  // Empty on purpose: the command under test migrates it.
  const { url, drop } = await createScratchDatabase(adminUrl, "points_cli", { migrate: false });
  const database = await openDatabase({ url, maxConnections: 2 });
  const env = childEnv({ DATABASE_URL: url });
  return {
    backend,
    env,
    runAll: (commands) => Promise.all(commands.map((args) => runPoints(env, args))),
    withDb: (use) => use(simulatedServices(database.db)),
    dispose: async () => {
      await database.close();
      await drop();
    },
  };
}


/** Everything the operator command can change, to show that a refused command changed none of it. */
async function snapshot(db: Db) {
  return {
    organizations: await db.select().from(organizations).orderBy(organizations.id),
    apiKeys: await db
      .select({ id: apiKeys.id, organizationId: apiKeys.organizationId, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .orderBy(apiKeys.id),
    users: await db
      .select({ id: users.id, email: users.email, role: users.role, organizationId: users.organizationId })
      .from(users)
      .orderBy(users.id),
    simCustomers: await db.select().from(simCustomers).orderBy(simCustomers.id),
    simPaymentMethods: await db.select().from(simPaymentMethods).orderBy(simPaymentMethods.id),
    topUps: await db.select({ id: topUps.id, status: topUps.status }).from(topUps).orderBy(topUps.id),
  };
}

async function organizationRow(db: Db, id: string) {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, id));
  if (!row) throw new Error(`no organisation ${id}`);
  return row;
}

async function outageOf(db: Db, organizationId: string): Promise<boolean> {
  const organization = await organizationRow(db, organizationId);
  const [customer] = await db.select().from(simCustomers).where(eq(simCustomers.id, organization.billingCustomerId));
  return customer?.outage ?? false;
}

/** The error code a call fails with, as the REST layer would answer it. */
async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PointsError) return error.code;
    throw error;
  }
  return "no error";
}

function parseJsonOutput(result: Run): Record<string, unknown> {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  // Nothing but the one JSON object may be on stdout, so that a script can parse it whole.
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

function expectRefused(result: Run | undefined, message: RegExp): void {
  if (!result) throw new Error("the command did not run");
  expect(result.code, result.stderr).not.toBe(0);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).toBe("");
}

const sortedKeys = (value: unknown) => Object.keys(value as object).sort();

// Each check starts a few processes, each loading TypeScript and often PGlite's WebAssembly: on a
// busy machine that can take far longer than the usual 60 s, without anything being wrong.
const SPAWNING_TIMEOUT_MS = 240_000;

describe.each(backends())("npm run points against %s", { concurrent: true, timeout: SPAWNING_TIMEOUT_MS }, (backend) => {
  // The checks below build on one another (one database per backend), so they run in order.
  describe.sequential("provisioning", () => {
    let target: Target;
    const points = (...args: string[]) => runPoints(target.env, args);
    // Set by org create, which the later checks build on.
    let full: { organization_id: string; api_key: string; key_id: string };
    let plain: { id: string; key: string };

    beforeAll(async () => {
      target = await createTarget(backend);
    });
    afterAll(async () => target?.dispose());

    it("db:migrate migrates a new database, says so in one line, and seeds nothing", async () => {
      const result = await run(TSX, ["scripts/db-migrate.ts"], target.env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(
        backend === "pglite"
          ? /^Migrated the embedded database in \S+pglite\.\n$/
          : /^Migrated the Postgres database at postgres:\/\/\S+\.\n$/,
      );
      await target.withDb(async (services) => {
        expect(await services.db.select().from(organizations)).toEqual([]);
      });
    });

    it("org create prints the contract's JSON (or the same facts for a person) and the organisation is as asked", async () => {
      const output = parseJsonOutput(
        await points(
          "org", "create", "--name", "Acme Ltd",
          "--card", "visa", "--card", "declined", "--card=expired", "--default-card", "1",
          "--currency", "GBP", "--api-purchases", "enabled",
          "--max-points-per-top-up", "1000", "--max-points-balance", "5000",
          "--frequency-limit", "3/60", "--daily-points-limit=2500", "--json",
        ),
      );
      expect(sortedKeys(output)).toEqual(["admin", "api_key", "key_id", "organization_id", "payment_methods"]);
      expect(output.organization_id).toMatch(/^org_/);
      expect(output.api_key).toMatch(/^pts_[A-Za-z0-9]{40}$/);
      expect(output.key_id).toMatch(/^key_/);
      const methods = output.payment_methods as Record<string, unknown>[];
      expect(methods.map(sortedKeys)).toEqual(Array(3).fill(["id", "is_default", "kind", "label"]));
      expect(methods.map((method) => [method.kind, method.label, method.is_default])).toEqual([
        ["visa", "Visa •••• 4242", false],
        ["declined", "Visa •••• 0002", true],
        ["expired", "Visa •••• 0069", false],
      ]);
      const admin = output.admin as { email: string; password: string };
      expect(sortedKeys(admin)).toEqual(["email", "password"]);
      full = output as typeof full;

      // Without options: API purchases disabled, available, no limits, no cards.
      const readable = await points("org", "create", "--name", "Plain");
      expect(readable.code, readable.stderr).toBe(0);
      plain = {
        id: /Created organisation (org_\w+)/.exec(readable.stdout)?.[1] ?? "(none printed)",
        key: /pts_[A-Za-z0-9]{40}/.exec(readable.stdout)?.[0] ?? "(none printed)",
      };
      expect(readable.stdout).toMatch(/password:\s+\S{20}/);

      await target.withDb(async (services) => {
        const organization = await authenticateApiRequest(services.db, `Bearer ${full.api_key}`, systemClock);
        expect(organization).toMatchObject({
          id: full.organization_id,
          name: "Acme Ltd",
          currency: "GBP",
          apiPurchasesEnabled: true,
          apiAvailable: true,
          maxPointsPerTopUp: 1000,
          maxPointsBalance: 5000,
          frequencyLimitCount: 3,
          frequencyLimitWindowSeconds: 60,
          dailyPointsLimit: 2500,
        });
        // What GET /v3/points/payment-methods lists: not the expired card, and the default first.
        const usable = await listUsablePaymentMethods(services, organization);
        expect(usable.map((method) => [method.id, method.isDefault])).toEqual([
          [methods[1]?.id, true],
          [methods[0]?.id, false],
        ]);
        const [user] = await services.db.select().from(users).where(eq(users.email, admin.email));
        expect(user?.role).toBe("admin");
        expect(await verifyPassword(admin.password, user?.passwordHash ?? "")).toBe(true);

        expect(await errorCode(authenticateApiRequest(services.db, `Bearer ${plain.key}`, systemClock))).toBe(
          "api_purchases_disabled",
        );
        expect(await organizationRow(services.db, plain.id)).toMatchObject({
          currency: null,
          apiAvailable: true,
          maxPointsPerTopUp: null,
          maxPointsBalance: null,
          frequencyLimitCount: null,
          frequencyLimitWindowSeconds: null,
          dailyPointsLimit: null,
        });
        expect(await outageOf(services.db, plain.id)).toBe(false);
      });
    });

    it("org update sets each option, none clears it, and the REST checks follow", async () => {
      const set = parseJsonOutput(
        await points(
          "org", "update", plain.id,
          "--currency=EUR", "--api-purchases", "enabled", "--available=yes",
          "--max-points-per-top-up", "500", "--max-points-balance=10000",
          "--frequency-limit", "5/30", "--daily-points-limit", "1000", "--simulate-outage", "on", "--json",
        ),
      );
      expect(set).toEqual({ organization_id: plain.id, payment_methods: [] });

      const cleared = parseJsonOutput(
        await points(
          "org", "update", full.organization_id,
          "--currency", "none", "--max-points-per-top-up", "none", "--max-points-balance", "none",
          "--frequency-limit", "none", "--daily-points-limit=none", "--available", "no",
          "--api-purchases", "disabled", "--default-card", "0", "--simulate-outage", "off", "--json",
        ),
      );
      expect(sortedKeys(cleared)).toEqual(["organization_id", "payment_methods"]);
      const methods = cleared.payment_methods as { kind: string; is_default: boolean }[];
      expect(methods.map((method) => [method.kind, method.is_default])).toEqual([
        ["visa", true],
        ["declined", false],
        ["expired", false],
      ]);

      await target.withDb(async (services) => {
        // Enabled now, so the key passes steps 1-3; the outage makes the provider unable to list (502).
        const organization = await authenticateApiRequest(services.db, `Bearer ${plain.key}`, systemClock);
        expect(organization).toMatchObject({
          currency: "EUR",
          apiAvailable: true,
          maxPointsPerTopUp: 500,
          maxPointsBalance: 10000,
          frequencyLimitCount: 5,
          frequencyLimitWindowSeconds: 30,
          dailyPointsLimit: 1000,
        });
        expect(await errorCode(listUsablePaymentMethods(services, organization))).toBe("payment_methods_unavailable");

        expect(await organizationRow(services.db, full.organization_id)).toMatchObject({
          currency: null,
          apiPurchasesEnabled: false,
          apiAvailable: false,
          maxPointsPerTopUp: null,
          maxPointsBalance: null,
          frequencyLimitCount: null,
          frequencyLimitWindowSeconds: null,
          dailyPointsLimit: null,
        });
        // Eligibility is checked before the saved switch: 404 not_available.
        expect(await errorCode(authenticateApiRequest(services.db, `Bearer ${full.api_key}`, systemClock))).toBe(
          "not_available",
        );
        expect(await outageOf(services.db, full.organization_id)).toBe(false);
      });
    });

    it("key create prints a working key once (also through npm run -s) and key revoke stops the old key", async () => {
      // npm run -s adds nothing to stdout, so a script can pipe --json straight into a parser.
      const created = await run(
        "npm",
        ["run", "-s", "points", "--", "key", "create", full.organization_id, "--json"],
        target.env,
      );
      expect(created.code, created.stderr).toBe(0);
      const output = JSON.parse(created.stdout) as Record<string, string>;
      expect(sortedKeys(output)).toEqual(["api_key", "key_id", "organization_id"]);
      expect(output.organization_id).toBe(full.organization_id);

      const revoked = await points("key", "revoke", full.key_id);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toContain(full.key_id);

      await target.withDb(async (services) => {
        expect(await errorCode(authenticateApiKey(services.db, `Bearer ${full.api_key}`, systemClock))).toBe(
          "invalid_api_key",
        );
        const organization = await authenticateApiKey(services.db, `Bearer ${output.api_key}`, systemClock);
        expect(organization.id).toBe(full.organization_id);
      });
    });

    it("user add prints the generated password once, and it signs that user in", async () => {
      const output = parseJsonOutput(
        await points("user", "add", full.organization_id, "--email", " New.Person@Example.COM ", "--role=member", "--json"),
      );
      expect(sortedKeys(output)).toEqual(["email", "password", "role", "user_id"]);
      expect(output).toMatchObject({ email: "new.person@example.com", role: "member" });
      await target.withDb(async (services) => {
        const [user] = await services.db.select().from(users).where(eq(users.id, String(output.user_id)));
        expect(user).toMatchObject({ organizationId: full.organization_id, email: "new.person@example.com", role: "member" });
        expect(await verifyPassword(String(output.password), user?.passwordHash ?? "")).toBe(true);
      });
    });

    it("refuses what only the database can tell is wrong, exits non-zero with the reason, and changes nothing", async () => {
      const before = await target.withDb((services) => snapshot(services.db));
      const results = await target.runAll([
        ["user", "add", plain.id, "--email", "new.person@example.com", "--role", "admin", "--json"],
        ["org", "update", "org_doesnotexist", "--currency", "USD"],
        ["key", "create", "org_doesnotexist", "--json"],
        ["key", "revoke", full.key_id],
        ["org", "create", "--name", "Two cards", "--card", "visa", "--card", "mastercard", "--default-card", "2"],
        // Plain has no saved cards, so no index can name one; the currency must not be saved either.
        ["org", "update", plain.id, "--default-card", "0", "--currency", "USD"],
      ]);
      const expected = [
        /A user with the email new\.person@example\.com already exists/,
        /No organisation org_doesnotexist/,
        /No organisation org_doesnotexist/,
        /No active API key key_\w+: it does not exist or was already revoked/,
        /--default-card must be a 0-based index below 2/,
        /--default-card needs at least one card/,
      ];
      for (const [index, result] of results.entries()) expectRefused(result, expected[index] ?? /never/);
      expect(await target.withDb((services) => snapshot(services.db))).toEqual(before);
    });

    it("reconcile --report lists what has been unresolved for over an hour, and changes nothing", async () => {
      const topUpId = await target.withDb(async (services) => {
        const { organization } = await createOrganization(services, {
          name: "Stuck",
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["processing"],
          defaultCardIndex: 0,
        });
        const request = parseTopUpRequest({ points: 100, reference: "stuck-for-hours" });
        const result = await purchasePoints(services, { organization, request, source: "api" });
        await services.db
          .update(topUps)
          .set({ createdAt: new Date(Date.now() - 3 * 60 * 60 * 1000) })
          .where(eq(topUps.id, result.topUp.id));
        return result.topUp.id;
      });
      const report = parseJsonOutput(await points("reconcile", "--report", "--json"));
      expect(report.needs_attention).toEqual([
        expect.objectContaining({ top_up_id: topUpId, reference: "stuck-for-hours", status: "processing" }),
      ]);
      const text = await points("reconcile", "--report");
      expect(text.stdout).toMatch(/1 purchase has been unresolved for more than an hour/);
      expect(text.stdout).toContain("stuck-for-hours");
      await target.withDb(async (services) => {
        const [row] = await services.db.select().from(topUps).where(eq(topUps.id, topUpId));
        expect(row?.status).toBe("processing");
      });
      // Settled now, it is no longer reported.
      await points("reconcile");
      expect(parseJsonOutput(await points("reconcile", "--report", "--json")).needs_attention).toEqual([]);
    });

    it("reconcile settles a purchase left unresolved and prints it", async () => {
      const topUpId = await target.withDb(async (services) => {
        const { organization } = await createOrganization(services, {
          name: "Unresolved",
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["processing"],
          defaultCardIndex: 0,
        });
        const request = parseTopUpRequest({ points: 100, reference: "left-unresolved" });
        const result = await purchasePoints(services, { organization, request, source: "api" });
        expect(result.outcome).toBe("unresolved");
        return result.topUp.id;
      });
      const output = parseJsonOutput(await points("reconcile", "--json"));
      expect(output.settled).toEqual([
        expect.objectContaining({ top_up_id: topUpId, reference: "left-unresolved", status: "paid" }),
      ]);
      // Nothing is left, and a person is told so.
      const again = await points("reconcile");
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/No unresolved purchases/);
      await target.withDb(async (services) => {
        const [row] = await services.db.select().from(topUps).where(eq(topUps.id, topUpId));
        expect(row?.status).toBe("paid");
        expect((await organizationRow(services.db, row?.organizationId ?? "")).pointsBalance).toBe(100);
      });
    });
  });
});

/*
 * With Stripe (its Stripe-compatible test server), as an operator links an existing customer:
 * one customer backs one organisation, or the second organisation's key would list and buy on
 * the first one's cards.
 */
describe.each(backends())("org create --stripe-customer against %s with Stripe", { timeout: SPAWNING_TIMEOUT_MS }, (backend) => {
  let target: Target;
  let fake: FakeStripe;
  let stripe: Stripe;
  let env: NodeJS.ProcessEnv;
  const secretKey = "sk_test_points_cli";

  beforeAll(async () => {
    target = await createTarget(backend);
    fake = await startFakeStripe({ apiKey: secretKey });
    stripe = new Stripe(secretKey, { host: fake.host, port: fake.port, protocol: "http", maxNetworkRetries: 0 });
    env = { ...target.env, STRIPE_SECRET_KEY: secretKey, STRIPE_API_URL: fake.url };
  });
  afterAll(async () => {
    await fake?.close();
    await target?.dispose();
  });

  const cardIds = async (customer: string) =>
    (await stripe.paymentMethods.list({ customer, type: "card", limit: 100 })).data.map((method) => method.id).sort();

  it("refuses a customer another organisation has: exit 1, one line naming the customer, nothing changed", async () => {
    const owner = parseJsonOutput(
      await runPoints(env, ["org", "create", "--name", "Customer Owner Ltd", "--card", "visa", "--default-card", "0", "--json"]),
    );
    const ownerRow = await target.withDb((services) => organizationRow(services.db, String(owner.organization_id)));
    const customer = ownerRow.billingCustomerId;
    expect(customer).toMatch(/^cus_[A-Za-z0-9]+$/);
    const before = await target.withDb((services) => snapshot(services.db));
    const cardsBefore = await cardIds(customer);

    const result = await runPoints(env, [
      "org", "create", "--name", "Second Claimant", "--card", "mastercard", "--default-card", "0",
      "--stripe-customer", customer, "--json",
    ]);
    expectRefused(result, new RegExp(`^The billing customer ${customer} is already linked to another organisation`));
    const [reason, ...rest] = result.stderr.split("\n");
    expect(rest).toEqual(["Nothing was changed.", ""]);
    expect(reason).toContain(customer);
    // Nothing of the other organisation but that it exists, and no database internals.
    for (const leak of [ownerRow.id, ownerRow.name, "Failed query", "insert into", "params"]) {
      expect(result.stderr).not.toContain(leak);
    }
    expect(await target.withDb((services) => snapshot(services.db))).toEqual(before);
    expect(await cardIds(customer)).toEqual(cardsBefore);
  });
});

describe("npm run points, before any database is opened", { concurrent: true, timeout: SPAWNING_TIMEOUT_MS }, () => {
  const tempDirs: string[] = [];
  /** A PGlite directory that does not exist yet, inside a fresh temporary directory. */
  const freshPgliteDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-cli-"));
    tempDirs.push(dir);
    return path.join(dir, "pglite");
  };
  afterAll(() => {
    for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("help and no arguments print the usage on stdout; an unknown command exits 2 with the usage on stderr", async () => {
    const env = childEnv({ PGLITE_DIR: freshPgliteDir() });
    const [help, none, unknown] = await Promise.all([
      runPoints(env, ["help"]),
      runPoints(env, []),
      runPoints(env, ["org", "delete", "org_1"]),
    ]);
    for (const result of [help, none]) {
      expect(result?.code).toBe(0);
      expect(result?.stdout).toContain("org create --name NAME");
      expect(result?.stdout).toContain("--frequency-limit COUNT/SECONDS");
      expect(result?.stderr).toBe("");
    }
    expectRefused(unknown, /Unknown command "org delete"/);
    expect(unknown?.code).toBe(2);
    expect(unknown?.stderr).toContain("Usage: npm run points");
  });

  it("refuses a wrong command line with exit code 2 without even opening the database", async () => {
    const pgliteDir = freshPgliteDir();
    const env = childEnv({ PGLITE_DIR: pgliteDir });
    const cases: [string[], RegExp][] = [
      [["org", "update", "org_1", "--card", "visa"], /--card works only with "org create"/],
      [["org", "create", "--name", "A", "--colour", "red"], /Unknown option --colour/],
      [["org", "create", "--name", "A", "--max-points-balance"], /--max-points-balance needs a value/],
      [["org", "create", "--name", "A", "--max-points-balance", "0"], /--max-points-balance must be a positive whole number/],
      [["org", "update", "org_1", "--frequency-limit", "10/0"], /--frequency-limit must be COUNT\/SECONDS with both positive/],
    ];
    const results = await Promise.all(cases.map(([args]) => runPoints(env, args)));
    results.forEach((result, index) => {
      expectRefused(result, cases[index]?.[1] ?? /never/);
      expect(result.code).toBe(2);
    });
    // Not a byte was written: the embedded database was never even created.
    expect(fs.existsSync(pgliteDir)).toBe(false);
  });

  it("refuses the embedded database while another process holds it, saying to stop it or set DATABASE_URL", async () => {
    const pgliteDir = freshPgliteDir();
    fs.mkdirSync(pgliteDir, { recursive: true });
    const release = acquirePgliteLock(pgliteDir);
    try {
      const env = childEnv({ PGLITE_DIR: pgliteDir });
      const [create, migrate] = await Promise.all([
        runPoints(env, ["org", "create", "--name", "Locked out", "--json"]),
        run(TSX, ["scripts/db-migrate.ts"], env),
      ]);
      for (const result of [create, migrate]) {
        expectRefused(result, /DATABASE_URL/);
        expect(result?.stderr).toContain(`in use by process ${process.pid}`);
      }
    } finally {
      release();
    }
    // Nothing was written: no database, no demo.json, only the lock, which is now released.
    expect(fs.readdirSync(path.dirname(pgliteDir))).toEqual(["pglite"]);
    expect(fs.readdirSync(pgliteDir)).toEqual([]);
  });
});

describe("the documented form for scripts: npm run -s points -- … --json", { timeout: SPAWNING_TIMEOUT_MS }, () => {
  it("prints only the JSON object on stdout, so it parses as it is", async () => {
    const target = await createTarget("pglite");
    try {
      const result = await run("npm", ["run", "-s", "points", "--", "org", "create", "--name", "Scripted", "--json"], target.env);
      expect(result.code, result.stderr).toBe(0);
      const parsed = JSON.parse(result.stdout) as { organization_id?: string; api_key?: string };
      expect(parsed.organization_id).toMatch(/^org_/);
      expect(parsed.api_key).toMatch(/^pts_/);
    } finally {
      await target.dispose();
    }
  });
});
