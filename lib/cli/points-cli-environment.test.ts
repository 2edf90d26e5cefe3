import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquirePgliteLock } from "@/lib/db/pglite-lock";
import { type FakeStripe, startFakeStripe } from "@/lib/testing/fake-stripe/server";
import { backends } from "@/lib/testing/harness";
import {
  childEnv,
  createTarget,
  expectRefused,
  organizationRow,
  parseJsonOutput,
  run,
  runPoints,
  SPAWNING_TIMEOUT_MS,
  snapshot,
  sortedKeys,
  type Target,
  TSX,
} from "@/lib/testing/points-cli-fixture";

/*
 * Every command in this file runs as a process (Target.spawn, runPoints, npm), to check what only a
 * process shows. The other files run most commands in the test's own process (Target.points), which
 * sees what the command writes but not what else reaches a process's stdout and stderr: the
 * service's log lines (on stderr, at warn: after-payment-cli.test.ts checks one), or anything a
 * module or PGlite prints. First, on each backend, on the simulated provider: a first command on a
 * new database (which it migrates, and on PGlite seeds) prints its one JSON object and nothing else,
 * and a refusal its reason alone. Then with Stripe (its Stripe-compatible test server: the STRIPE_*
 * variables in the process's environment), as an operator links an existing customer: one customer
 * backs one organisation, or the second organisation's key would list and buy on the first one's cards.
 */
describe.each(backends())(
  "npm run points as a process against %s, on the simulated provider and with Stripe",
  { timeout: SPAWNING_TIMEOUT_MS },
  (backend) => {
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

    it("prints only the JSON object on stdout and nothing on stderr; a refusal, only its reason on stderr", async () => {
      const args = ["org", "create", "--name", "As A Process", "--card", "visa", "--default-card", "0", "--json"];
      const created = parseJsonOutput(await target.spawn(args));
      expect(sortedKeys(created)).toEqual(["admin", "api_key", "key_id", "organization_id", "payment_methods"]);
      const before = await target.withDb((services) => snapshot(services.db));
      const refused = await target.spawn(["key", "revoke", "key_doesnotexist"]);
      expectRefused(refused, /No active API key key_doesnotexist/);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        "No active API key key_doesnotexist: it does not exist or was already revoked.\nNothing was changed.\n",
      );
      expect(await target.withDb((services) => snapshot(services.db))).toEqual(before);
    });

    it("refuses a customer another organisation has: exit 1, one line naming the customer, nothing changed", async () => {
      const owner = parseJsonOutput(
        await target.spawn(
          ["org", "create", "--name", "Customer Owner Ltd", "--card", "visa", "--default-card", "0", "--json"],
          env,
        ),
      );
      const ownerRow = await target.withDb((services) => organizationRow(services.db, String(owner.organization_id)));
      const customer = ownerRow.billingCustomerId;
      expect(customer).toMatch(/^cus_[A-Za-z0-9]+$/);
      const before = await target.withDb((services) => snapshot(services.db));
      const cardsBefore = await cardIds(customer);

      const result = await target.spawn(
        [
          "org",
          "create",
          "--name",
          "Second Claimant",
          "--card",
          "mastercard",
          "--default-card",
          "0",
          "--stripe-customer",
          customer,
          "--json",
        ],
        env,
      );
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
  },
);

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
      [
        ["org", "create", "--name", "A", "--max-points-balance", "0"],
        /--max-points-balance must be a positive whole number/,
      ],
      [
        ["org", "update", "org_1", "--frequency-limit", "10/0"],
        /--frequency-limit must be COUNT\/SECONDS with both positive/,
      ],
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
      const result = await run(
        "npm",
        ["run", "-s", "points", "--", "org", "create", "--name", "Scripted", "--json"],
        target.env,
      );
      expect(result.code, result.stderr).toBe(0);
      const parsed = JSON.parse(result.stdout) as { organization_id?: string; api_key?: string };
      expect(parsed.organization_id).toMatch(/^org_/);
      expect(parsed.api_key).toMatch(/^pts_/);
    } finally {
      await target.dispose();
    }
  });
});
