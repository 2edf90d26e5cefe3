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
import { openDatabase } from "@/lib/db/client";
import { migratePglite } from "@/lib/db/migrate";
import { randomString } from "@/lib/ids";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { type FakeStripe, startFakeStripe } from "@/lib/testing/fake-stripe/server";
import { createScratchDatabase, type ScratchDatabase } from "@/lib/testing/scratch-database";
import { startProduction } from "../production-server";

/*
 * `npm start`'s process (node scripts/next.mjs start) stopped with SIGTERM while 50 purchases it has
 * just been sent are under way, several times over, on a production server of this spec's own
 * (beside E2E_PORT, offset 85), on Postgres when TEST_DATABASE_URL is set, billing through the
 * Stripe test server so that some charges outlast the delay. What a client (or a balancer) sees:
 * readiness turns 503 at once while the listener stays open for POINTS_SHUTDOWN_DELAY_SECONDS and
 * serves what arrives; then new connections are refused; and every request the server accepted is
 * answered, never reset.
 */

const ROUNDS = 3;
const PURCHASES = 50;
/** Charges the provider answers only after the listener has closed: those purchases end in the drain. */
const SLOW_CHARGES = 15;
const DELAY_SECONDS = 2;
const DRAIN_SECONDS = 15;

interface Answer {
  status: number;
  connection: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field below.
  body: any;
  /** Milliseconds after SIGTERM was sent that the answer had arrived. */
  at: number;
}
type Outcome = Answer | { error: string };

test.describe
  .serial("SIGTERM with purchases arriving: the delay, then the drain", () => {
    let fake: FakeStripe;
    let scratch: ScratchDatabase | null = null;
    let pgliteDir: string | null = null;
    let org: { apiKey: string; customerId: string };
    const secretKey = `sk_test_${randomString(24)}`;

    test.beforeAll(async () => {
      test.setTimeout(120_000);
      fake = await startFakeStripe({ apiKey: secretKey });
      const stripe = createStripeClient({ secretKey, apiUrl: fake.url });
      await setupStripePrices(stripe, SIMULATED_PRICES);
      const adminUrl = process.env.TEST_DATABASE_URL;
      if (adminUrl) scratch = await createScratchDatabase(adminUrl, "points_shutdown_delay");
      else pgliteDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "points-shutdown-delay-")), "pglite");
      const database = await openDatabase(scratch ? { url: scratch.url } : { pgliteDir: pgliteDir ?? "" });
      try {
        if (database.kind === "pglite") await migratePglite(database.db);
        const services = {
          db: database.db,
          provider: new StripeBillingProvider(stripe, systemClock, true),
          clock: systemClock,
        };
        const created = await createOrganization(services, {
          name: "Shutdown delay",
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["visa"],
          defaultCardIndex: 0,
        });
        org = { apiKey: created.apiKey.apiKey, customerId: created.organization.billingCustomerId };
      } finally {
        // PGlite opens in one process at a time: each server must find it closed.
        await database.close();
      }
    });

    test.afterAll(async () => {
      await fake?.close();
      await scratch?.drop();
      if (pgliteDir) fs.rmSync(path.dirname(pgliteDir), { recursive: true, force: true });
    });

    for (let round = 1; round <= ROUNDS; round += 1) {
      test(`round ${round}: 50 purchases sent just before SIGTERM are all answered, none reset; readiness is 503 during the delay`, async () => {
        test.setTimeout(120_000);
        const server = startProduction(85, {
          ...(scratch ? { DATABASE_URL: scratch.url, PGLITE_DIR: undefined } : { PGLITE_DIR: pgliteDir ?? "" }),
          STRIPE_SECRET_KEY: secretKey,
          STRIPE_API_URL: fake.url,
          POINTS_SHUTDOWN_DELAY_SECONDS: String(DELAY_SECONDS),
          POINTS_DRAIN_SECONDS: String(DRAIN_SECONDS),
        });
        // Kept-alive connections, as a balancer keeps them: the server, not the client, decides when one closes.
        const agent = new http.Agent({ keepAlive: true });
        try {
          await server.ready();
          const base = { host: "127.0.0.1", port: server.port, agent };
          let signalled = 0;
          const send = (method: string, pathname: string, headers: http.OutgoingHttpHeaders, body?: string) =>
            new Promise<Outcome>((resolve) => {
              const request = http.request({ ...base, method, path: pathname, headers }, (response) => {
                let text = "";
                response.setEncoding("utf8");
                response.on("data", (chunk: string) => {
                  text += chunk;
                });
                response.on("end", () =>
                  resolve({
                    status: response.statusCode ?? 0,
                    connection: response.headers.connection,
                    body: JSON.parse(text),
                    at: performance.now() - signalled,
                  }),
                );
                response.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
              });
              request.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
              request.end(body);
            });
          const purchase = (reference: string) =>
            send(
              "POST",
              "/v3/points/top-ups",
              { Authorization: `Bearer ${org.apiKey}`, "Content-Type": "application/json" },
              JSON.stringify({ points: 100, reference }),
            );

          fake.control.fault({
            method: "POST",
            path: "/v1/payment_intents",
            kind: "delay",
            delayMs: (DELAY_SECONDS + 1) * 1000,
            times: SLOW_CHARGES,
          });
          const outcomes = Array.from({ length: PURCHASES }, (_, index) => purchase(`round-${round}-${index}`));
          await new Promise((resolve) => setTimeout(resolve, 150));
          signalled = performance.now();
          server.child.kill("SIGTERM");
          await expect.poll(() => server.output(), { timeout: 5_000, intervals: [20] }).toContain("Shutting down");

          // During the delay: readiness says 503 on a new connection, and a purchase sent now is served.
          const readiness = await send("GET", "/readyz", {});
          expect(readiness).toMatchObject({ status: 503, connection: "close", body: { status: "shutting_down" } });
          const late = purchase(`round-${round}-late`);

          // Once the delay is over, a new connection is refused at connect.
          const refusedAt = await firstRefusal(server.port, signalled);
          expect(refusedAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000);
          expect(await late).toMatchObject({
            status: 201,
            connection: "close",
            body: { data: { top_up: { status: "paid" } } },
          });

          const settled = await Promise.all(outcomes);
          expect(await server.exited(DRAIN_SECONDS * 1000 + 10_000)).toBe(0);
          expect(server.output()).toContain("Shutdown complete.");

          // Every purchase the server accepted is answered, and paid: no reset, no hang-up.
          expect(settled.filter((outcome) => "error" in outcome)).toEqual([]);
          const answers = settled as Answer[];
          expect(answers.map((answer) => [answer.status, answer.body.data?.top_up?.status])).toEqual(
            answers.map(() => [201, "paid"]),
          );
          // Those answered after the listener closed (in the drain) said the connection ends with them.
          const inDrain = answers.filter((answer) => answer.at > refusedAt);
          expect(inDrain.length).toBeGreaterThan(0);
          expect(inDrain.map((answer) => answer.connection)).toEqual(inDrain.map(() => "close"));
          const charged = fake.control
            .paymentIntents({ customer: org.customerId })
            .filter((intent) => intent.status === "succeeded");
          expect(charged).toHaveLength(round * (PURCHASES + 1));
        } finally {
          fake.control.clearFaults();
          agent.destroy();
          await server.stop();
        }
      });
    }
  });

/** Milliseconds after `since` that a new connection to the port was first refused (ECONNREFUSED). */
async function firstRefusal(port: number, since: number): Promise<number> {
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const result = await new Promise<string>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve("connected");
      });
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    });
    if (result === "ECONNREFUSED") return performance.now() - since;
    expect(result).toBe("connected");
    // Further apart than the listener's quiet period (lib/server/http-servers.ts), which each connection restarts.
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("The server still accepted connections 30 s after SIGTERM.");
}
