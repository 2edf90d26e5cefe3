import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { sql } from "drizzle-orm";
import { openDatabase } from "@/lib/db/client";
import { organizations } from "@/lib/db/schema";
import { PAYMENT_METHODS } from "../utils";

/*
 * `next start` on the embedded database, as someone trying the production build without
 * DATABASE_URL would run it: the demo organisation and its secrets are for `npm run dev` only.
 * A production console goes to log collectors, and a demo admin with a printed password is a
 * way in to anyone who reads them.
 */

/** Beside the Playwright server's port, so that two checkouts running their suites do not collide. */
const PORT = Number(process.env.E2E_PORT ?? 3100) + 93;

function startProduction(pgliteDir: string): { child: ChildProcess; output: () => string } {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PGLITE_DIR: pgliteDir,
    AUTH_SECRET: randomBytes(32).toString("base64"),
    PORT: String(PORT),
    POINTS_RECONCILE: "off",
  };
  for (const name of ["DATABASE_URL", "TEST_DATABASE_URL", "NEXTAUTH_SECRET", "STRIPE_SECRET_KEY", "STRIPE_API_URL"]) {
    delete env[name];
  }
  const child = spawn(process.execPath, [path.join(process.cwd(), "scripts", "next.mjs"), "start", "-p", String(PORT)], {
    env,
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

test.describe("starting in production on the embedded database", () => {
  test("seeds no demo organisation and prints no key or password, but still says where it runs", async ({ request }) => {
    test.setTimeout(120_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-prodstart-"));
    const pgliteDir = path.join(dir, "pglite");
    const server = startProduction(pgliteDir);
    try {
      // Up once the API answers (403 without a key): startup, and so the banner, is done by then.
      await expect
        .poll(
          async () => {
            if (server.child.exitCode !== null) return `exited ${server.child.exitCode}: ${server.output()}`;
            const response = await request.get(`http://127.0.0.1:${PORT}${PAYMENT_METHODS}`).catch(() => null);
            return response?.status() ?? "no answer";
          },
          { timeout: 90_000, intervals: [500] },
        )
        .toBe(403);
      const output = server.output();
      expect(output).toContain(`Points service on http://localhost:${PORT}`);
      expect(output).toContain(`database: embedded PGlite (${pgliteDir})`);
      expect(output).toContain("billing:  simulated");
      for (const secret of [/\bpts_/, /\bsk_/, /API key/i, /password/i, /demo organisation/i, /admin@demo/]) {
        expect(output, "the production console").not.toMatch(secret);
      }
      // The dev seed keeps its key and password beside the database: nothing was written there.
      expect(fs.existsSync(path.join(dir, "demo.json"))).toBe(false);
    } finally {
      await stop(server.child);
    }
    try {
      // Stopped, the directory is free to open: no organisation at all, the demo included.
      const database = await openDatabase({ pgliteDir });
      try {
        const [row] = await database.db.select({ n: sql<number>`count(*)::int` }).from(organizations);
        expect(row?.n).toBe(0);
      } finally {
        await database.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
