import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { createStripeClient } from "@/lib/billing/stripe/client";
import { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import { systemClock } from "@/lib/clock";
import { type Database, openDatabase } from "@/lib/db/client";
import { migratePglite } from "@/lib/db/migrate";
import { randomString } from "@/lib/ids";
import { createOrganization, getOrganization } from "@/lib/points/accounts/organizations";
import { parseTopUpRequest } from "@/lib/points/api/top-up-request";
import { purchasePoints } from "@/lib/points/purchase";
import type { Services } from "@/lib/points/services";
import { type FakeStripe, startFakeStripe } from "@/lib/testing/fake-stripe/server";
import { ledgerState } from "@/lib/testing/invariants";
import { createScratchDatabase, type ScratchDatabase } from "@/lib/testing/scratch-database";
import { type ProductionServer, startProduction } from "../production-server";

/*
 * Issue 17, items 4 and 5, on a production server of this spec's own (beside E2E_PORT, offset 84),
 * on Postgres when TEST_DATABASE_URL is set, billing through the Stripe test server so that its
 * charges can be held in flight: the configured keep-alive, then SIGTERM with 50 purchases in
 * flight. Each purchase ends answered, or paid exactly once by a retry with its reference.
 */

const PURCHASES = 50;
/** Charges answered a few seconds after the signal, well within the drain. */
const ANSWERED_IN_DRAIN = 40;
const DRAIN_SECONDS = 8;

interface Answered {
  reference: string;
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field below.
  body: any;
}
type Outcome = Answered | { reference: string; error: string };

test.describe
  .serial("a production server stopped with SIGTERM", () => {
    let fake: FakeStripe;
    let scratch: ScratchDatabase | null = null;
    let pgliteDir: string | null = null;
    let server: ProductionServer;
    let services: (clock?: Services["clock"]) => Promise<{ database: Database; services: Services }>;
    let org: { id: string; apiKey: string; customerId: string };

    test.beforeAll(async () => {
      test.setTimeout(180_000);
      const secretKey = `sk_test_${randomString(24)}`;
      fake = await startFakeStripe({ apiKey: secretKey });
      const stripe = createStripeClient({ secretKey, apiUrl: fake.url });
      await setupStripePrices(stripe, SIMULATED_PRICES);
      const adminUrl = process.env.TEST_DATABASE_URL;
      if (adminUrl) scratch = await createScratchDatabase(adminUrl, "points_shutdown");
      else pgliteDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "points-shutdown-")), "pglite");
      services = async (clock = systemClock) => {
        const database = await openDatabase(scratch ? { url: scratch.url } : { pgliteDir: pgliteDir ?? "" });
        if (database.kind === "pglite") await migratePglite(database.db);
        return {
          database,
          services: { db: database.db, provider: new StripeBillingProvider(stripe, clock, true), clock },
        };
      };

      const provisioning = await services();
      try {
        const created = await createOrganization(provisioning.services, {
          name: "Shutdown",
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["visa"],
          defaultCardIndex: 0,
        });
        org = {
          id: created.organization.id,
          apiKey: created.apiKey.apiKey,
          customerId: created.organization.billingCustomerId,
        };
      } finally {
        // PGlite opens in one process at a time: the server must find it closed.
        await provisioning.database.close();
      }

      server = startProduction(84, {
        ...(scratch ? { DATABASE_URL: scratch.url, PGLITE_DIR: undefined } : { PGLITE_DIR: pgliteDir ?? "" }),
        STRIPE_SECRET_KEY: secretKey,
        STRIPE_API_URL: fake.url,
        POINTS_DRAIN_SECONDS: String(DRAIN_SECONDS),
        POINTS_SHUTDOWN_DELAY_SECONDS: "0",
        POINTS_KEEP_ALIVE_SECONDS: "2",
        POINTS_HEADERS_TIMEOUT_SECONDS: "30",
      });
      await server.ready();
    });

    test.afterAll(async () => {
      await server?.stop();
      await fake?.close();
      await scratch?.drop();
      if (pgliteDir) fs.rmSync(path.dirname(pgliteDir), { recursive: true, force: true });
    });

    test("keeps an idle connection open as long as POINTS_KEEP_ALIVE_SECONDS says, then closes it", async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const { headers, socket } = await new Promise<{ headers: http.IncomingHttpHeaders; socket: net.Socket }>(
          (resolve, reject) => {
            const request = http.get(`http://127.0.0.1:${server.port}/healthz`, { agent }, (response) => {
              response.resume();
              response.on("end", () => resolve({ headers: response.headers, socket: request.socket as net.Socket }));
            });
            request.on("error", reject);
          },
        );
        const idleSince = performance.now();
        expect(headers["keep-alive"]).toBe("timeout=2");
        await new Promise((resolve) => socket.once("close", resolve));
        const idleMs = performance.now() - idleSince;
        expect(idleMs).toBeGreaterThan(1_500);
        expect(idleMs).toBeLessThan(5_000);
      } finally {
        agent.destroy();
      }
    });

    test("drains 50 purchases in flight: each is answered, or paid once by a retry; exit 0", async () => {
      test.setTimeout(180_000);
      const base = `http://127.0.0.1:${server.port}`;
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect((await ready.json()).billing).toMatchObject({ provider: "stripe", status: "reachable" });

      // The first charges take 3 s at the provider; the rest are held there until after the exit.
      fake.control.fault({
        method: "POST",
        path: "/v1/payment_intents",
        kind: "delay",
        delayMs: 3_000,
        times: ANSWERED_IN_DRAIN,
      });
      fake.control.fault({
        method: "POST",
        path: "/v1/payment_intents",
        kind: "hold",
        times: Number.POSITIVE_INFINITY,
      });

      // A connection with a request half sent is in use: the shutdown leaves it open, and it finishes
      // that request after the signal, as a balancer's health check under way would.
      const probe = net.connect(server.port, "127.0.0.1");
      await new Promise((resolve) => probe.once("connect", resolve));
      probe.write("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n");

      const references = Array.from({ length: PURCHASES }, (_, index) => `drain-${index}`);
      const outcomes = references.map(
        (reference): Promise<Outcome> =>
          fetch(`${base}/v3/points/top-ups`, {
            method: "POST",
            headers: { Authorization: `Bearer ${org.apiKey}`, "Content-Type": "application/json" },
            body: JSON.stringify({ points: 100, reference }),
          }).then(
            async (response) => ({ reference, status: response.status, body: await response.json() }),
            (error: unknown) => ({ reference, error: String(error) }),
          ),
      );
      await expect.poll(() => fake.control.heldCount(), { timeout: 60_000 }).toBe(PURCHASES - ANSWERED_IN_DRAIN);

      server.child.kill("SIGTERM");
      await expect.poll(() => server.output(), { timeout: 10_000 }).toContain("Shutting down");

      // No new connection is taken once those already queued are (no delay here: POINTS_SHUTDOWN_DELAY_SECONDS is 0).
      const connect = () =>
        new Promise<string>((resolve) => {
          const socket = net.connect(server.port, "127.0.0.1");
          socket.once("connect", () => {
            socket.destroy();
            resolve("connected");
          });
          socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
        });
      await expect.poll(connect, { timeout: 5_000, intervals: [250] }).toBe("ECONNREFUSED");

      // Readiness, asked on the connection already open, says 503 and that the connection ends.
      let probeAnswer = "";
      probe.on("data", (chunk) => {
        probeAnswer += chunk;
      });
      const probeClosed = new Promise((resolve) => probe.once("close", resolve));
      probe.write("\r\n");
      await probeClosed;
      expect(probeAnswer).toMatch(/^HTTP\/1\.1 503 /);
      expect(probeAnswer).toMatch(/\r\nConnection: close\r\n/i);
      expect(probeAnswer).toContain('"status":"shutting_down"');

      const settled = await Promise.all(outcomes);
      expect(await server.exited(30_000)).toBe(0);
      expect(server.output()).toContain("Shutdown complete.");

      const answered = settled.filter((outcome): outcome is Answered => "status" in outcome);
      // Those the provider answered within the drain were answered; the held ones were cut at its deadline.
      const paidAtOnce = answered.filter(
        (outcome) => outcome.status === 201 && outcome.body.data.top_up.status === "paid",
      );
      expect(paidAtOnce.length).toBeGreaterThanOrEqual(ANSWERED_IN_DRAIN - 5);
      expect(answered.length).toBeLessThanOrEqual(ANSWERED_IN_DRAIN);
      // Any other answer is one the contract tells the client to retry with the same reference.
      for (const outcome of answered.filter((outcome) => !paidAtOnce.includes(outcome))) {
        expect([outcome.reference, outcome.status, outcome.body.error.code]).toEqual([
          outcome.reference,
          409,
          "payment_unresolved",
        ]);
      }
      const abandoned = Number(/Drain deadline reached with (\d+) purchases in flight/.exec(server.output())?.[1]);
      expect(abandoned).toBeGreaterThanOrEqual(PURCHASES - ANSWERED_IN_DRAIN);
      expect(abandoned).toBeLessThanOrEqual(PURCHASES - answered.length);

      // The held charges now reach the provider, whose answers nobody is left to hear.
      fake.control.clearFaults();
      fake.control.releaseHeld();

      // Every client retries with its reference once the leases of the cut requests have run out.
      const later = { now: () => new Date(Date.now() + 10 * 60_000) };
      const { database, services: retrying } = await services(later);
      try {
        const organization = await getOrganization(database.db, org.id);
        if (!organization) throw new Error("The organisation is gone.");
        for (const reference of references) {
          const result = await purchasePoints(retrying, {
            organization,
            request: parseTopUpRequest({ points: 100, reference }),
            source: "api",
          });
          expect([reference, result.topUp.status]).toEqual([reference, "paid"]);
          const first = answered.find((outcome) => outcome.reference === reference);
          if (first?.status === 201) expect(result.topUp.id).toBe(first.body.data.top_up.id);
        }

        // One succeeded charge per purchase, one credit per paid purchase, and the books balance.
        const intents = fake.control.paymentIntents({ customer: org.customerId });
        expect(intents.filter((intent) => intent.status === "succeeded")).toHaveLength(PURCHASES);
        expect(new Set(intents.map((intent) => intent.metadata.top_up_id)).size).toBe(PURCHASES);
        const books = await ledgerState(database.db, org.id, { countPayments: async () => intents.length });
        expect(books).toEqual({
          balance: PURCHASES * 100,
          ledgerSum: PURCHASES * 100,
          paidTopUps: PURCHASES,
          credits: PURCHASES,
          strayCredits: 0,
          miscredited: 0,
          charges: PURCHASES,
        });
      } finally {
        await database.close();
      }
    });
  });
