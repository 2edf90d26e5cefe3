import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { sql } from "drizzle-orm";
import { openDatabase } from "@/lib/db/client";
import { organizations } from "@/lib/db/schema";
import { startProduction } from "../production-server";

/*
 * `next start` on the embedded database, as someone trying the production build without
 * DATABASE_URL would run it: the demo organisation and its secrets are for `npm run dev` only.
 * A production console goes to log collectors, and a demo admin with a printed password is a
 * way in to anyone who reads them.
 */

test.describe("starting in production on the embedded database", () => {
  test("seeds no demo organisation and prints no key or password, but still says where it runs", async () => {
    test.setTimeout(120_000);
    const server = startProduction(93);
    const { dir, pgliteDir, port: PORT } = server;
    try {
      await server.ready();
      const output = server.output();
      expect(output).toContain(`Points service on http://localhost:${PORT}`);
      expect(output).toContain(`database: embedded PGlite (${pgliteDir})`);
      expect(output).toContain("billing:  simulated");
      // The build is also the standalone server's (next.config.ts): `npm start` serves it without Next's warning.
      expect(output).not.toContain("output: standalone");
      // The simulated provider has no key to check: the startup check says nothing.
      expect(output).not.toMatch(/^billing: |"msg":"billing: /m);
      for (const secret of [/\bpts_/, /\bsk_/, /API key/i, /password/i, /demo organisation/i, /admin@demo/]) {
        expect(output, "the production console").not.toMatch(secret);
      }
      // The dev seed keeps its key and password beside the database: nothing was written there.
      expect(fs.existsSync(path.join(dir, "demo.json"))).toBe(false);
      // The sign-in page's hint about the demo credentials is `npm run dev`'s alone.
      const signin = await (await fetch(`http://127.0.0.1:${PORT}/signin`)).text();
      expect(signin).toContain("Sign in");
      expect(signin).not.toContain("dev-sign-in-hint");
      expect(signin).not.toMatch(/demo\.json|demo admin/i);
    } finally {
      await server.stop({ keepDir: true });
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
