import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { runPointsCli } from "@/lib/cli/points";
import { type Database, type Db, openDatabase } from "@/lib/db/client";
import { migratePostgres } from "@/lib/db/migrate";
import { apiKeys, organizations, simCustomers, simPaymentMethods, topUps, users } from "@/lib/db/schema";
import { PointsError } from "@/lib/points/errors";
import type { Services } from "@/lib/points/services";
import { type Runtime, runtimeOver } from "@/lib/server/runtime";
import type { Backend } from "@/lib/testing/harness";
import { pointsCliBundle } from "@/lib/testing/points-cli-bundle";
import { type Run, run, TSX } from "@/lib/testing/run-command";
import { createScratchDatabase, simulatedServices } from "@/lib/testing/scratch-database";

export { type Run, run, TSX };

/*
 * The shared setup of the `npm run points` tests (points-cli, after-payment-cli, webhook-cli and
 * points-cli-environment .test.ts): the database a command runs against, the command run on it in
 * this process (Target.points: most checks, a fraction of a second each) or as a real process
 * (runPoints, Target.spawn: what only a process shows, about 1 to 4 s each: the environment it
 * reads, its log lines on stderr, npm and tsx), and what to look at after.
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
  /** The environment of the command's process: childEnv, on the target's database. */
  env: NodeJS.ProcessEnv;
  /**
   * Runs the command in this process (runPointsCli), on the target's database, over the runtime the
   * command would make of it (commandRuntime, below): its exit code and what it writes to stdout and
   * stderr, as its process would show them, less what only a process shows: the service's log lines,
   * which the process prints on stderr, and anything printed other than through the command's io.
   */
  points(args: string[]): Promise<Run>;
  /** Runs the command as a process (runPoints), in env (the target's unless given); on PGlite, after release(). */
  spawn(args: string[], env?: NodeJS.ProcessEnv): Promise<Run>;
  /**
   * Closes this process's handle on the PGlite directory, so that another process (the command, db:migrate)
   * can open it; the next use opens it again. Nothing to do on Postgres.
   */
  release(): Promise<void>;
  /** The services on the target's database, on the simulated provider: the handle the commands run on. */
  withDb<T>(use: (services: Services) => Promise<T>): Promise<T>;
  /** Runs several commands in this process: one after another on PGlite (as its processes had to), at once on Postgres. */
  runAll(commands: string[][]): Promise<Run[]>;
  dispose(): Promise<void>;
}

/** The operator command, compiled once (points-cli-bundle.ts), with args, in env. */
export async function runPoints(env: NodeJS.ProcessEnv, args: string[]): Promise<Run> {
  return run(process.execPath, [await pointsCliBundle(), ...args], env);
}

/**
 * The runtime the command's own createRuntime makes over an open database (runtimeOver): PGlite
 * migrated and its demo seeded, as on the command's first run, and the simulated provider, as
 * childEnv (without STRIPE_SECRET_KEY) asks. The command closes its runtime's database when it ends:
 * this one stays open, for the next command and for withDb.
 */
function commandRuntime(database: Database): Promise<Runtime> {
  return runtimeOver({ ...database, close: async () => {} }, { stripe: null });
}

/** The operator command in this process (runPointsCli), with what it prints captured as a process's would be. */
function inProcess(openRuntime: () => Promise<Runtime>) {
  return async (args: string[]): Promise<Run> => {
    let stdout = "";
    let stderr = "";
    const io = {
      stdout: (text: string) => {
        stdout += text;
      },
      stderr: (text: string) => {
        stderr += text;
      },
    };
    const code = await runPointsCli(args, io, { openRuntime });
    return { code, stdout, stderr };
  };
}

export async function createTarget(backend: Backend): Promise<Target> {
  if (backend === "pglite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-cli-"));
    // The demo's demo.json is written beside the PGlite directory, so that must be inside dir too.
    const pgliteDir = path.join(dir, "pglite");
    const env = childEnv({ PGLITE_DIR: pgliteDir });
    // One handle for this process (PGlite allows one process), opened when first needed.
    let opened: Promise<Database> | undefined;
    const open = () => {
      opened ??= openDatabase({ pgliteDir }).catch((error: unknown) => {
        opened = undefined;
        throw error;
      });
      return opened;
    };
    const release = async () => {
      const closing = opened;
      opened = undefined;
      if (closing) await (await closing).close();
    };
    const points = inProcess(async () => commandRuntime(await open()));
    return {
      backend,
      env,
      points,
      spawn: async (args, environment = env) => {
        await release();
        return runPoints(environment, args);
      },
      release,
      runAll: async (commands) => {
        const results: Run[] = [];
        for (const args of commands) results.push(await points(args));
        return results;
      },
      withDb: async (use) => use(simulatedServices((await open()).db)),
      dispose: async () => {
        await release();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  // Empty on purpose: the command under test migrates it.
  const { url, drop } = await createScratchDatabase(adminUrl, "points_cli", { migrate: false });
  // One pool for the commands and withDb, with room for the commands runAll runs at once to overlap.
  const database = await openDatabase({ url, maxConnections: 4 });
  const env = childEnv({ DATABASE_URL: url });
  const points = inProcess(async () => {
    // As the command does on every start, before it opens its pool (createRuntime).
    await migratePostgres(url);
    return commandRuntime(database);
  });
  return {
    backend,
    env,
    points,
    spawn: (args, environment = env) => runPoints(environment, args),
    release: async () => {},
    runAll: (commands) => Promise.all(commands.map(points)),
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
