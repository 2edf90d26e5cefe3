import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { type Db, openDatabase } from "@/lib/db/client";
import { apiKeys, organizations, simCustomers, simPaymentMethods, topUps, users } from "@/lib/db/schema";
import { PointsError } from "@/lib/points/errors";
import type { Services } from "@/lib/points/services";
import type { Backend } from "@/lib/testing/harness";
import { pointsCliBundle } from "@/lib/testing/points-cli-bundle";
import { type Run, run, TSX } from "@/lib/testing/run-command";
import { createScratchDatabase, simulatedServices } from "@/lib/testing/scratch-database";

export { type Run, run, TSX };

/*
 * The shared setup of the `npm run points` tests (points-cli.test.ts, points-cli-environment.test.ts):
 * running the real command in a child process, the database it runs against, and what to look at after.
 */

/** The environment of the child: the test's own, minus anything that would pick another database or silence its log. */
export function childEnv(database: { DATABASE_URL?: string; PGLITE_DIR?: string }): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.PGLITE_DIR;
  delete env.STRIPE_SECRET_KEY;
  // The test runner silences its own logger (vitest.config.ts); the command logs its warnings to
  // stderr at its own default level, as an operator sees them.
  delete env.LOG_LEVEL;
  return { ...env, ...database };
}

export interface Target {
  backend: Backend;
  env: NodeJS.ProcessEnv;
  /** Opens the database between commands (PGlite allows one process at a time). */
  withDb<T>(use: (services: Services) => Promise<T>): Promise<T>;
  /** Runs several commands: one after another on PGlite (one process at a time), at once on Postgres. */
  runAll(commands: string[][]): Promise<Run[]>;
  dispose(): Promise<void>;
}

/** The operator command, compiled once (points-cli-bundle.ts), with args, in env. */
export async function runPoints(env: NodeJS.ProcessEnv, args: string[]): Promise<Run> {
  return run(process.execPath, [await pointsCliBundle(), ...args], env);
}

export async function createTarget(backend: Backend): Promise<Target> {
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
export async function snapshot(db: Db) {
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

export async function organizationRow(db: Db, id: string) {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, id));
  if (!row) throw new Error(`no organisation ${id}`);
  return row;
}

export async function outageOf(db: Db, organizationId: string): Promise<boolean> {
  const organization = await organizationRow(db, organizationId);
  const [customer] = await db.select().from(simCustomers).where(eq(simCustomers.id, organization.billingCustomerId));
  return customer?.outage ?? false;
}

/** The error code a call fails with, as the REST layer would answer it. */
export async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PointsError) return error.code;
    throw error;
  }
  return "no error";
}

export function parseJsonOutput(result: Run): Record<string, unknown> {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  // Nothing but the one JSON object may be on stdout, so that a script can parse it whole.
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

export function expectRefused(result: Run | undefined, message: RegExp): void {
  if (!result) throw new Error("the command did not run");
  expect(result.code, result.stderr).not.toBe(0);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).toBe("");
}

export const sortedKeys = (value: unknown) => Object.keys(value as object).sort();

// Each check starts a few processes, each loading TypeScript and often PGlite's WebAssembly: on a
// busy machine that can take far longer than the usual 60 s, without anything being wrong.
export const SPAWNING_TIMEOUT_MS = 240_000;
