import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { type ProductionServer, startProduction } from "../production-server";
import { runPasteBlock, type StripeFakeProcess, startStripeFake } from "../stripe-fake-process";

/*
 * `npm run stripe:fake` stopped and started again in the middle of a session: the app, still
 * running with the variables of the first start, goes on as if nothing happened. The same keys,
 * the organisation's customer and cards, its paid purchase (replayed, not charged again), and a
 * payment that was awaiting its cardholder, completed after the restart and credited once.
 */

const BASE = Number(process.env.E2E_PORT ?? 3100);

interface Answer {
  status: number;
  replayed: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field below.
  body: any;
}

test("the app keeps working across a restart of the test server", async () => {
  test.setTimeout(180_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-fake-restart-"));
  const appPort = BASE + 62;
  const args = [
    "--port",
    String(BASE + 63),
    "--state-dir",
    path.join(dir, "stripe-fake"),
    "--forward-to",
    `http://127.0.0.1:${appPort}/api/stripe/webhook`,
  ];
  let fake: StripeFakeProcess | undefined;
  let app: ProductionServer | undefined;
  try {
    fake = await startStripeFake(args);
    const pgliteDir = path.join(dir, "pglite");
    runPasteBlock(fake, pgliteDir, path.join(dir, ".data"));
    const org = JSON.parse(fs.readFileSync(path.join(dir, ".data", "stripe-org.json"), "utf8")) as {
      api_key: string;
      payment_methods: { id: string; kind: string }[];
    };
    const authCard = org.payment_methods.find((method) => method.kind === "authentication_required")?.id;
    app = startProduction(62, { ...fake.exports, PGLITE_DIR: pgliteDir });
    await app.ready();

    const call = async (pathname: string, body?: unknown): Promise<Answer> => {
      const response = await fetch(`http://127.0.0.1:${appPort}${pathname}`, {
        method: body ? "POST" : "GET",
        headers: { Authorization: `Bearer ${org.api_key}`, "Content-Type": "application/json" },
        body: body ? JSON.stringify(body) : undefined,
      });
      return {
        status: response.status,
        replayed: response.headers.get("idempotent-replayed"),
        body: await response.json(),
      };
    };
    const methodIds = async () =>
      ((await call("/v3/points/payment-methods")).body.data.payment_methods as { id: string }[]).map(
        (method) => method.id,
      );

    const cards = await methodIds();
    expect(cards).toHaveLength(2);
    const paid = await call("/v3/points/top-ups", { points: 100, reference: "before-restart" });
    expect([paid.status, paid.body.data.points_balance]).toEqual([201, 100]);
    const waiting = await call("/v3/points/top-ups", {
      points: 500,
      payment_source_id: authCard,
      reference: "needs-auth",
    });
    expect([waiting.status, waiting.body.error.code]).toEqual([402, "payment_action_required"]);

    const firstExports = fake.exports;
    await fake.stop();
    fake = await startStripeFake(args);
    expect(fake.output()).toContain("(restored)");
    expect(fake.exports).toEqual(firstExports);

    expect(await methodIds()).toEqual(cards);
    const replay = await call("/v3/points/top-ups", { points: 100, reference: "before-restart" });
    expect([replay.status, replay.replayed, replay.body.data.top_up.id, replay.body.data.points_balance]).toEqual([
      200,
      "true",
      paid.body.data.top_up.id,
      100,
    ]);
    const after = await call("/v3/points/top-ups", { points: 100, reference: "after-restart" });
    expect([after.status, after.body.data.points_balance]).toEqual([201, 200]);
    await expect.poll(() => fake?.output()).toMatch(/POST \/v1\/payment_intents 200 idempotency-key=\S+/);

    // The cardholder completes the payment that was waiting before the restart, as the bank's page
    // would; the restarted server's webhook credits it, and the retry answers it paid, once.
    const stripe = async (pathname: string, form?: Record<string, string>) => {
      const response = await fetch(`${fake?.url}${pathname}`, {
        method: form ? "POST" : "GET",
        headers: {
          Authorization: `Bearer ${fake?.exports.STRIPE_SECRET_KEY}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: form ? new URLSearchParams(form).toString() : undefined,
      });
      return (await response.json()) as {
        id: string;
        status: string;
        data: { id: string; metadata: Record<string, string> }[];
      };
    };
    const topUpId = waiting.body.data.top_up.id;
    const intent = (await stripe("/v1/payment_intents?limit=100")).data.find(
      (candidate) => candidate.metadata.top_up_id === topUpId,
    );
    expect(intent, `a PaymentIntent for ${topUpId}`).toBeDefined();
    const confirmed = await stripe(`/v1/payment_intents/${intent?.id}/confirm`, {
      return_url: `http://127.0.0.1:${appPort}/return`,
    });
    expect(confirmed.status).toBe("requires_action");
    await fetch(`${fake.url}/_test/authenticate`, {
      method: "POST",
      body: JSON.stringify({ id: intent?.id, succeed: true }),
    });
    await expect
      .poll(async () => {
        const retry = await call("/v3/points/top-ups", {
          points: 500,
          payment_source_id: authCard,
          reference: "needs-auth",
        });
        return [retry.status, retry.body.data?.top_up?.status, retry.body.data?.points_balance];
      })
      .toEqual([200, "paid", 700]);
  } finally {
    await app?.stop();
    await fake?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
