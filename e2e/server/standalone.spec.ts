import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { sql } from "drizzle-orm";
import { openDatabase } from "@/lib/db/client";
import { DRIVER_PATCH_MARK } from "@/lib/db/driver-patch";
import { migratePglite } from "@/lib/db/migrate";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { createScratchDatabase, type ScratchDatabase, simulatedServices } from "@/lib/testing/scratch-database";
import { type ProductionServer, startProduction } from "../production-server";

/*
 * Issue 17, item 6: the deployable build. The files the Docker image holds, laid out from this
 * run's build by the script the Dockerfile runs (scripts/standalone-layout.mjs); the image's
 * separate migrate command run there against a new database; then the image's CMD started there
 * (beside E2E_PORT, offset 95), the HTTP suite's smoke journeys through it, and SIGTERM; last, the
 * same layout with its postgres.js unpatched, which refuses to start (issue 38, item 5).
 * On Postgres when TEST_DATABASE_URL is set (as in CI), else on the embedded database.
 */

const OFFSET = 95;

test.describe
  .serial("the standalone server, as the Docker image runs it", () => {
    let root: string;
    let layout: string;
    let scratch: ScratchDatabase | null = null;
    let pgliteDir: string | null = null;
    let server: ProductionServer | undefined;
    let base: string;
    let apiKey: string;

    test.beforeAll(() => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), "points-standalone-"));
      layout = path.join(root, "app");
    });

    test.afterAll(async () => {
      await server?.stop();
      await scratch?.drop();
      if (root) fs.rmSync(root, { recursive: true, force: true });
    });

    /** `node <layout>/scripts/<file>` with only the image's variables and the given ones, as in a container. */
    function runInLayout(file: string, env: Record<string, string>) {
      return spawnSync(process.execPath, [path.join(layout, "scripts", file)], {
        cwd: layout,
        env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env },
        encoding: "utf8",
        timeout: 60_000,
      });
    }

    test("lays out the server, its assets and migrations, and no dev dependency or local data", () => {
      const result = spawnSync(process.execPath, [path.join("scripts", "standalone-layout.mjs"), layout], {
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(result.status, result.stderr).toBe(0);
      for (const file of [
        "server.js",
        "scripts/standalone-server.mjs",
        "scripts/migrate.mjs",
        "drizzle/meta/_journal.json",
        "public/favicon.ico",
      ]) {
        expect(fs.existsSync(path.join(layout, file)), file).toBe(true);
      }
      expect(fs.readdirSync(path.join(layout, ".next", "static")).length).toBeGreaterThan(0);
      // What the migrate command imports came with it; what only development needs did not.
      for (const dependency of ["drizzle-orm", "postgres"])
        expect(fs.existsSync(path.join(layout, "node_modules", dependency)), dependency).toBe(true);
      for (const dependency of ["tsx", "typescript", "vitest", "drizzle-kit", "@playwright", "@biomejs"]) {
        expect(fs.existsSync(path.join(layout, "node_modules", dependency)), dependency).toBe(false);
      }
      const files = fs.readdirSync(layout, { recursive: true, encoding: "utf8" });
      expect(files.filter((file) => file.split(path.sep).includes(".data"))).toEqual([]);

      // A second layout over the first is refused: the directory is the whole of what ships.
      const again = spawnSync(process.execPath, [path.join("scripts", "standalone-layout.mjs"), layout], {
        encoding: "utf8",
      });
      expect(again.status).toBe(1);
      expect(again.stderr).toContain("is not empty");
    });

    test("the migrate command migrates Postgres, twice without harm, and refuses without DATABASE_URL", async () => {
      test.setTimeout(120_000);
      const refused = runInLayout("migrate.mjs", {});
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain("DATABASE_URL is not set");

      const adminUrl = process.env.TEST_DATABASE_URL;
      if (!adminUrl) {
        // No Postgres here: the server migrates its embedded database when it starts (below).
        pgliteDir = path.join(root, "pglite");
        return;
      }
      scratch = await createScratchDatabase(adminUrl, "points_standalone", { migrate: false });
      for (let run = 0; run < 2; run += 1) {
        const migrated = runInLayout("migrate.mjs", { DATABASE_URL: scratch.url });
        expect(migrated.status, migrated.stderr).toBe(0);
        expect(migrated.stdout).toContain("Migrated the Postgres database");
      }
      const journal = JSON.parse(fs.readFileSync(path.join(layout, "drizzle", "meta", "_journal.json"), "utf8")) as {
        entries: unknown[];
      };
      const database = await openDatabase({ url: scratch.url });
      try {
        const [row] = (await database.db.execute(
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        )) as unknown as { n: number }[];
        expect(row?.n).toBe(journal.entries.length);
      } finally {
        await database.close();
      }
    });

    test("starts as the image's CMD does and answers the smoke journeys", async () => {
      test.setTimeout(180_000);
      // An organisation as an operator provisions one (`npm run points -- org create`).
      const database = await openDatabase(scratch ? { url: scratch.url } : { pgliteDir: pgliteDir ?? "" });
      try {
        if (database.kind === "pglite") await migratePglite(database.db);
        const created = await createOrganization(simulatedServices(database.db), {
          name: "Standalone",
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["visa"],
          defaultCardIndex: 0,
        });
        apiKey = created.apiKey.apiKey;
      } finally {
        // PGlite opens in one process at a time: the server must find it closed.
        await database.close();
      }

      server = startProduction(
        OFFSET,
        scratch ? { DATABASE_URL: scratch.url, PGLITE_DIR: undefined } : { PGLITE_DIR: pgliteDir ?? "" },
        { standaloneDir: layout },
      );
      await server.ready();
      base = `http://127.0.0.1:${server.port}`;
      const auth = { Authorization: `Bearer ${apiKey}` };

      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      // The process's own HTTP server was adopted (scripts/graceful-shutdown.mjs, lib/server/http-servers.ts).
      expect(health.headers.get("keep-alive")).toBe("timeout=65");
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: "ready", migrations: { status: "current" } });

      const openapi = await fetch(`${base}/v3/openapi.json`);
      expect(openapi.status).toBe(200);
      expect(await openapi.json()).toMatchObject({ openapi: "3.1.0", paths: { "/v3/points/top-ups": {} } });
      // Paths under /v3 are exact here too (scripts/api-paths.mjs is laid out and loaded): no redirect.
      const inexact = await fetch(`${base}/v3/points/top-ups/`, {
        headers: { "X-Request-Id": "standalone-slash" },
        redirect: "manual",
      });
      expect(inexact.status).toBe(404);
      expect(inexact.headers.get("x-request-id")).toBe("standalone-slash");
      expect(await inexact.json()).toMatchObject({ status: "error", error: { code: "not_found" } });

      const methods = await fetch(`${base}/v3/points/payment-methods`, { headers: auth });
      expect(methods.status).toBe(200);
      const listed = (await methods.json()).data.payment_methods as { id: string; is_default: boolean }[];
      expect(listed).toHaveLength(1);
      expect(listed[0]?.is_default).toBe(true);

      const purchase = () =>
        fetch(`${base}/v3/points/top-ups`, {
          method: "POST",
          headers: { ...auth, "Content-Type": "application/json" },
          body: JSON.stringify({ points: 100, reference: "standalone-1" }),
        });
      const paid = await purchase();
      expect(paid.status).toBe(201);
      const body = await paid.json();
      expect(body.data).toMatchObject({
        top_up: { status: "paid", points: 100, currency: "USD" },
        points_balance: 100,
      });
      const replayed = await purchase();
      expect(replayed.status).toBe(200);
      expect(replayed.headers.get("idempotent-replayed")).toBe("true");
      expect((await replayed.json()).data.top_up.id).toBe(body.data.top_up.id);

      const read = await fetch(`${base}/v3/points/top-ups/${body.data.top_up.id}`, { headers: auth });
      expect(read.status).toBe(200);
      expect((await read.json()).data.top_up).toMatchObject({
        id: body.data.top_up.id,
        reference: "standalone-1",
        status: "paid",
      });

      const signin = await fetch(`${base}/signin`);
      expect(signin.status).toBe(200);
      const page = await signin.text();
      expect(page).toContain("Sign in to Points");
      // The page's script and style files: .next/static was laid out beside the server.
      const assets = [...new Set(page.match(/\/_next\/static\/[^"'\s)]+/g) ?? [])];
      expect(assets.length).toBeGreaterThan(0);
      for (const asset of assets) expect((await fetch(`${base}${asset}`)).status, asset).toBe(200);
      expect((await fetch(`${base}/favicon.ico`)).status).toBe(200);

      const docs = await fetch(`${base}/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain("Points purchase API");
      const guide = await fetch(`${base}/docs/guide`);
      expect(guide.status).toBe(200);
    });

    test("drains on SIGTERM and exits 0", async () => {
      test.setTimeout(60_000);
      const running = server;
      if (!running) throw new Error("The server did not start.");
      running.child.kill("SIGTERM");
      expect(await running.exited(30_000), running.output()).toBe(0);
      expect(running.output()).toContain("Shutdown complete.");
    });

    test("refuses to start when the layout's postgres.js lacks its patch, and says how to apply it", async () => {
      test.setTimeout(60_000);
      // The layout's traced copy of the driver (its ESM build only), as an install with
      // `npm ci --ignore-scripts` would have left it: lib/db/driver-patch.ts finds it there.
      const file = path.join(layout, "node_modules", "postgres", "src", "connection.js");
      const text = fs.readFileSync(file, "utf8");
      expect(text).toContain(DRIVER_PATCH_MARK);
      fs.writeFileSync(file, text.replace(DRIVER_PATCH_MARK, ""));
      const refused = startProduction(
        OFFSET,
        { PGLITE_DIR: path.join(root, "pglite-unpatched") },
        { standaloneDir: layout },
      );
      const code = await refused.exited(45_000);
      const output = refused.output();
      await refused.stop();
      expect(code, output).not.toBeNull();
      expect(code, output).not.toBe(0);
      expect(output).toContain("The postgres.js patch is not applied");
      expect(output).toContain("npx patch-package");
    });
  });
