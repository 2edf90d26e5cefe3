import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedBillingProvider } from "@/lib/billing/simulated/provider";
import { systemClock } from "@/lib/clock";
import { type Database, openDatabase, READ_APPLICATION_NAME } from "@/lib/db/client";
import { rowsOf } from "@/lib/db/rows";
import { createOrganization } from "@/lib/points/accounts/organizations";
import type { Runtime } from "@/lib/server/runtime";
import { createScratchDatabase, type ScratchDatabase } from "@/lib/testing/scratch-database";
import { GET as listEvents } from "../events/route";
import { GET as getTopUp } from "./[id]/route";
import { POST as buy, GET as listTopUps } from "./route";

/*
 * DATABASE_READ_URL: the lists may be read from a replica, which can lag the primary; a purchase,
 * its replay and a top-up by id are answered from the primary. The "replica" here is a second
 * database on the same server that never receives the primary's rows: what the lists answer shows
 * which connection string they read.
 */
const runtimeSlot = globalThis as unknown as { pointsRuntime?: Promise<Runtime> };

describe("a read replica (DATABASE_READ_URL) behind the API", () => {
  let primary: ScratchDatabase;
  let replica: ScratchDatabase;
  let database: Database;
  let apiKey: string;

  beforeAll(async () => {
    const adminUrl = process.env.TEST_DATABASE_URL as string;
    primary = await createScratchDatabase(adminUrl, "points_primary");
    replica = await createScratchDatabase(adminUrl, "points_replica");
    database = await openDatabase({ url: primary.url, readUrl: replica.url, maxConnections: 2 });
    const services = {
      db: database.db,
      readDb: database.readDb,
      provider: new SimulatedBillingProvider(database.db, systemClock),
      clock: systemClock,
    };
    runtimeSlot.pointsRuntime = Promise.resolve({ ...services, database, demo: null, leaseMs: 90_000 });
    const created = await createOrganization(services, {
      name: "Replica Ltd",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    apiKey = created.apiKey.apiKey;
  });

  afterAll(async () => {
    delete runtimeSlot.pointsRuntime;
    await database?.close();
    await primary?.drop();
    await replica?.drop();
  });

  const call = (path: string, init: RequestInit = {}) =>
    new Request(`http://points.test${path}`, {
      ...init,
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    });

  it("buys and replays on the primary, and lists and reads the feed from the replica", async () => {
    const body = JSON.stringify({ points: 100, reference: "replica-1" });
    const bought = await buy(call("/v3/points/top-ups", { method: "POST", body }));
    expect(bought.status).toBe(201);
    const topUp = ((await bought.json()) as { data: { top_up: { id: string } } }).data.top_up;

    // The replay must see the purchase it replays: the primary's.
    const replayed = await buy(call("/v3/points/top-ups", { method: "POST", body }));
    expect(replayed.status).toBe(200);
    expect(((await replayed.json()) as { data: { top_up: { id: string } } }).data.top_up.id).toBe(topUp.id);

    const one = await getTopUp(call(`/v3/points/top-ups/${topUp.id}`), { params: Promise.resolve({ id: topUp.id }) });
    expect(one.status).toBe(200);

    // The replica has not (here: never) received it: the list was read there.
    const listed = await listTopUps(call("/v3/points/top-ups"));
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { data: { top_ups: unknown[] } }).data.top_ups).toEqual([]);
    // So was the feed: the purchase's top_up.paid is on the primary only.
    const primaryEvents = rowsOf<{ type: string }>(
      await database.db.execute(sql`select type from events where data -> 'top_up' ->> 'id' = ${topUp.id}`),
    );
    expect(primaryEvents.map((row) => row.type)).toContain("top_up.paid");
    const feed = await listEvents(call("/v3/points/events"));
    expect(feed.status).toBe(200);
    expect(((await feed.json()) as { data: { events: unknown[] } }).data.events).toEqual([]);
  });

  it("opens its own pool to the replica, named apart from the primary's", async () => {
    const names = rowsOf<{ application_name: string }>(
      await database.db.execute(
        sql`select distinct application_name from pg_stat_activity where datname = ${new URL(replica.url).pathname.slice(1)}`,
      ),
    ).map((row) => row.application_name);
    expect(names).toContain(READ_APPLICATION_NAME);
  });
});
