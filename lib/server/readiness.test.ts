import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ProviderRefusedError, ProviderUnavailableError } from "@/lib/billing/provider";
import { type Database, openDatabase } from "@/lib/db/client";
import { migratePglite, migrationsFolder } from "@/lib/db/migrate";
import { resetLifecycleForTests, shutdown } from "./lifecycle";
import { BILLING_CHECK_EVERY_MS, checkReadiness, lastReadinessReport } from "./readiness";

const simulated = { name: "simulated" as const };
const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), "meta", "_journal.json"), "utf8")) as {
  entries: { tag: string; when: number }[];
};
const newest = journal.entries.at(-1)?.tag;

let database: Database;

beforeAll(async () => {
  database = await openDatabase({ pgliteDir: "memory://" });
  await migratePglite(database.db);
});

afterAll(async () => {
  await database.close();
});

afterEach(() => {
  resetLifecycleForTests();
});

describe("readiness", () => {
  it("is ready when the database answers and has every migration of this build", async () => {
    const report = await checkReadiness({ db: database.db, provider: simulated });
    expect(report).toEqual({
      status: "ready",
      database: { status: "ok" },
      migrations: { status: "current", latest: newest, applied: newest },
      billing: { provider: "simulated", status: "reachable", checked_at: null },
    });
    expect(lastReadinessReport()).toEqual(report);
  });

  it("is not ready when this build has a migration the database has not applied", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "points-migrations-"));
    try {
      fs.mkdirSync(path.join(folder, "meta"));
      const ahead = {
        ...journal,
        entries: [...journal.entries, { idx: 99, version: "7", when: Date.now(), tag: "0099_next", breakpoints: true }],
      };
      fs.writeFileSync(path.join(folder, "meta", "_journal.json"), JSON.stringify(ahead));
      const report = await checkReadiness({ db: database.db, provider: simulated, migrationsFolder: folder });
      expect(report.status).toBe("not_ready");
      expect(report.database).toEqual({ status: "ok" });
      expect(report.migrations).toEqual({ status: "behind", latest: "0099_next", applied: newest });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("is not ready on a database that was never migrated", async () => {
    const empty = await openDatabase({ pgliteDir: "memory://" });
    try {
      const report = await checkReadiness({ db: empty.db, provider: simulated });
      expect(report.status).toBe("not_ready");
      expect(report.migrations).toEqual({ status: "behind", latest: newest, applied: null });
    } finally {
      await empty.close();
    }
  });

  it("is not ready, and says nothing of why in the report, when the database does not answer", async () => {
    const closed = await openDatabase({ pgliteDir: "memory://" });
    await migratePglite(closed.db);
    await closed.close();
    const report = await checkReadiness({ db: closed.db, provider: simulated });
    expect(report.status).toBe("not_ready");
    expect(report.database).toEqual({ status: "unavailable" });
    expect(JSON.stringify(report)).not.toMatch(/closed|error|pglite/i);
  });

  it("stays ready while the billing provider cannot be reached, and reports it", async () => {
    const down = {
      name: "stripe" as const,
      checkCredentials: async () => {
        throw new ProviderUnavailableError("Stripe could not be reached.");
      },
    };
    const report = await checkReadiness({ db: database.db, provider: down });
    expect(report.status).toBe("ready");
    expect(report.billing).toMatchObject({ provider: "stripe", status: "unreachable" });
  });

  it("stays ready when the provider refuses the key, and reports that apart from an outage", async () => {
    const refusing = {
      name: "stripe" as const,
      checkCredentials: async () => {
        throw new ProviderRefusedError("credentials_refused");
      },
    };
    const report = await checkReadiness({ db: database.db, provider: refusing });
    expect([report.status, report.billing.status]).toEqual(["ready", "refused"]);
  });

  it("asks the provider at most every 30 s, however often it is probed", async () => {
    let now = Date.parse("2026-11-25T00:00:00Z");
    let calls = 0;
    let up = true;
    const provider = {
      name: "stripe" as const,
      checkCredentials: async () => {
        calls += 1;
        if (!up) throw new ProviderUnavailableError();
      },
    };
    const probe = () => checkReadiness({ db: database.db, provider, now: () => now });
    const first = await Promise.all([probe(), probe(), probe()]);
    expect(calls).toBe(1);
    expect(first.map((report) => report.billing.status)).toEqual(["reachable", "reachable", "reachable"]);
    up = false;
    now += BILLING_CHECK_EVERY_MS - 1;
    expect((await probe()).billing).toEqual({
      provider: "stripe",
      status: "reachable",
      checked_at: "2026-11-25T00:00:00.000Z",
    });
    expect(calls).toBe(1);
    now += 1;
    expect((await probe()).billing.status).toBe("unreachable");
    expect(calls).toBe(2);
  });

  it("answers shutting down from the moment a shutdown begins", async () => {
    await shutdown({ drainMs: 1_000, servers: [], log: () => {} });
    const report = await checkReadiness({ db: database.db, provider: simulated });
    expect(report.status).toBe("shutting_down");
  });
});
