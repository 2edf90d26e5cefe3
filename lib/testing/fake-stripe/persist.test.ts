import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import Stripe from "stripe";
import { afterEach, describe, expect, it } from "vitest";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import { type FakeStripe, startFakeStripe } from "./server";

/*
 * `npm run stripe:fake` keeps its state in a directory, so that stopping and starting it changes
 * nothing for the app: the same keys, customers, cards, prices, payments and idempotency keys.
 */

const dirs: string[] = [];
const servers: FakeStripe[] = [];

function stateDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-stripe-state-"));
  dirs.push(dir);
  return path.join(dir, "state");
}

async function start(options: Parameters<typeof startFakeStripe>[0]): Promise<FakeStripe> {
  const fake = await startFakeStripe(options);
  servers.push(fake);
  return fake;
}

function client(fake: FakeStripe): Stripe {
  return new Stripe(fake.apiKey ?? "sk_test_any", {
    host: fake.host,
    port: fake.port,
    protocol: "http",
    maxNetworkRetries: 0,
  });
}

afterEach(async () => {
  for (const fake of servers.splice(0)) await fake.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a state directory", () => {
  it("gives a restarted server the same keys, objects, prices, payments and idempotency keys", async () => {
    const dir = stateDir();
    const first = await start({ stateDir: dir });
    expect(first.apiKey).toMatch(/^sk_test_/);
    expect(first.restored).toBe(false);
    const stripe = client(first);
    await setupStripePrices(stripe, SIMULATED_PRICES);
    const customer = await stripe.customers.create({ name: "Acme" });
    const card = await stripe.paymentMethods.attach("pm_card_authenticationRequired", { customer: customer.id });
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: card.id } });
    const params = {
      amount: 1000,
      currency: "usd",
      customer: customer.id,
      payment_method: card.id,
      off_session: true,
      confirm: true,
    };
    const pending = await stripe.paymentIntents
      .create(params, { idempotencyKey: "purchase-1" })
      .catch((error: Stripe.errors.StripeError) => error);
    const intentId = (pending as Stripe.errors.StripeError).payment_intent?.id ?? "";
    expect(intentId).toMatch(/^pi_/);
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    const second = await start({ stateDir: dir, apiKey: "sk_test_another_key_is_not_used" });
    expect(second.restored).toBe(true);
    expect([second.apiKey, second.webhookSecret]).toEqual([first.apiKey, first.webhookSecret]);
    const again = client(second);
    expect((await again.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({
      invoice_settings: { default_payment_method: card.id },
    });
    expect(
      (await again.paymentMethods.list({ customer: customer.id, type: "card" })).data.map((method) => method.id),
    ).toEqual([card.id]);
    const prices = await setupStripePrices(again, SIMULATED_PRICES);
    expect(prices.prices.every((row) => row.status === "unchanged")).toBe(true);
    expect((await again.prices.list({ limit: 100 })).data).toHaveLength(prices.prices.length);

    // The same idempotency key replays the first answer rather than charging again.
    const replay = await fetch(`${second.url}/v1/payment_intents`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${second.apiKey}`,
        "Idempotency-Key": "purchase-1",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams(Object.entries(params).map(([name, value]) => [name, String(value)])).toString(),
    });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(((await replay.json()) as { error: { payment_intent: { id: string } } }).error.payment_intent.id).toBe(
      intentId,
    );

    // The payment that awaits its cardholder can still be confirmed, authenticated and read.
    const confirmed = await again.paymentIntents.confirm(intentId, {
      payment_method: card.id,
      return_url: "http://127.0.0.1/return",
    });
    expect(confirmed.status).toBe("requires_action");
    second.control.completeAuthentication(intentId, true);
    expect((await again.paymentIntents.retrieve(intentId)).status).toBe("succeeded");
    expect(second.control.paymentIntents({ customer: customer.id })).toHaveLength(1);
  });

  it("keeps charges, refunds and disputes: a restarted server refunds only what is left and decides the open dispute", async () => {
    const dir = stateDir();
    const first = await start({ stateDir: dir });
    const stripe = client(first);
    const customer = await stripe.customers.create({ name: "Acme" });
    const pay = async (token: string) => {
      const card = await stripe.paymentMethods.attach(token, { customer: customer.id });
      return stripe.paymentIntents.create({
        amount: 1000,
        currency: "usd",
        customer: customer.id,
        payment_method: card.id,
        off_session: true,
        confirm: true,
      });
    };
    const refunded = await pay("pm_card_visa");
    const refund = await stripe.refunds.create(
      { payment_intent: refunded.id, amount: 600 },
      { idempotencyKey: "refund_rf_1" },
    );
    const disputed = await pay("pm_card_createDispute");
    const [dispute] = first.control.disputes({ paymentIntent: disputed.id });
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    const second = await start({ stateDir: dir });
    const again = client(second);
    expect((await again.charges.retrieve(String(refunded.latest_charge))).amount_refunded).toBe(600);
    expect((await again.refunds.list({ payment_intent: refunded.id })).data.map((kept) => kept.id)).toEqual([
      refund.id,
    ]);
    const replay = await again.refunds.create(
      { payment_intent: refunded.id, amount: 600 },
      { idempotencyKey: "refund_rf_1" },
    );
    expect(replay.id).toBe(refund.id);
    await expect(again.refunds.create({ payment_intent: refunded.id, amount: 500 })).rejects.toMatchObject({
      code: "amount_too_large",
    });
    const won = await again.disputes.update(dispute?.id ?? "", {
      evidence: { uncategorized_text: "winning_evidence" },
      submit: true,
    });
    expect(won.status).toBe("won");
  });

  it("reads a state file from before refunds and disputes as having none", async () => {
    const dir = stateDir();
    const fake = await start({ stateDir: dir });
    const stripe = client(fake);
    const customer = await stripe.customers.create({ name: "Acme" });
    const card = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    await stripe.paymentIntents.create({
      amount: 500,
      currency: "usd",
      customer: customer.id,
      payment_method: card.id,
      off_session: true,
      confirm: true,
    });
    await fake.close();
    servers.splice(servers.indexOf(fake), 1);
    const file = path.join(dir, "state.json");
    const {
      charges: _charges,
      refunds: _refunds,
      disputes: _disputes,
      ...older
    } = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify(older));
    const restarted = await start({ stateDir: dir });
    expect(restarted.restored).toBe(true);
    expect(restarted.control.refunds()).toEqual([]);
    // A payment made then names a Charge the file never held: it can still be refunded.
    const intent = restarted.control.paymentIntents()[0];
    expect(intent?.latest_charge).toMatch(/^ch_/);
    const refund = await client(restarted).refunds.create({ payment_intent: intent?.id ?? "", amount: 100 });
    expect([refund.status, refund.charge]).toEqual(["succeeded", intent?.latest_charge]);
  });

  it("has each answered change on disk before the answer, a payment settled by a read included", async () => {
    const dir = stateDir();
    const fake = await start({ stateDir: dir });
    const stripe = client(fake);
    const customer = await stripe.customers.create({ name: "Acme" });
    const card = await stripe.paymentMethods.attach("pm_card_fake_processing", { customer: customer.id });
    const intent = await stripe.paymentIntents.create({
      amount: 500,
      currency: "usd",
      customer: customer.id,
      payment_method: card.id,
      off_session: true,
      confirm: true,
    });
    expect(intent.status).toBe("processing");
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe("succeeded");
    // A second server reads the directory while the first still runs, as after a crash.
    const copy = await start({ stateDir: dir });
    expect(copy.control.paymentIntents().map((kept) => kept.status)).toEqual(["succeeded"]);
  });

  it("writes whole files only: no temporary file is left beside the state", async () => {
    const dir = stateDir();
    const fake = await start({ stateDir: dir });
    const stripe = client(fake);
    await Promise.all(Array.from({ length: 20 }, (_, i) => stripe.customers.create({ name: `c${i}` })));
    const state = JSON.parse(fs.readFileSync(path.join(dir, "state.json"), "utf8")) as { customers: unknown[] };
    expect(state.customers).toHaveLength(20);
    expect(fs.readdirSync(dir)).toEqual(["state.json"]);
  });

  it("refuses a state file it cannot read, says which and what to do, and leaves it as it was", async () => {
    for (const content of [
      '{"version":1,"secretKey":"sk_te',
      JSON.stringify({ version: 1, secretKey: "sk_test_x", webhookSecret: "whsec_x", clockOffsetMs: 0 }),
    ]) {
      const dir = stateDir();
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "state.json"), content);
      await expect(start({ stateDir: dir })).rejects.toThrow(
        /state\.json cannot be read \(.+\)\. Move it away to start empty, or start with --in-memory\./,
      );
      expect(fs.readFileSync(path.join(dir, "state.json"), "utf8")).toBe(content);
    }
  });

  it("without one, a restarted server starts empty", async () => {
    const first = await start({ apiKey: "sk_test_in_memory" });
    const customer = await client(first).customers.create({ name: "Acme" });
    const second = await start({ apiKey: "sk_test_in_memory" });
    expect(second.restored).toBe(false);
    await expect(client(second).customers.retrieve(customer.id)).rejects.toMatchObject({ code: "resource_missing" });
  });
});

describe("the log", () => {
  it("has one line per request and per webhook delivery, with no secret in it", async () => {
    const endpoint = http.createServer((_request, response) => {
      response.writeHead(204);
      response.end();
    });
    await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
    const lines: string[] = [];
    const fake = await start({
      stateDir: stateDir(),
      webhookUrl: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/api/stripe/webhook`,
      log: (line) => lines.push(line),
    });
    try {
      const stripe = client(fake);
      await stripe.customers.create({ name: "Acme" }, { idempotencyKey: "k-1" });
      await stripe.customers.create({ name: "Acme" }, { idempotencyKey: "k-1" });
      await fake.control.settled();
      await fetch(`${fake.url}/v1/customers`, { headers: { Authorization: "Bearer sk_test_wrong" } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lines.filter((line) => !line.startsWith("webhook"))).toEqual([
        "POST /v1/customers 200 idempotency-key=k-1",
        "POST /v1/customers 200 idempotency-key=k-1 (replayed)",
        "GET /v1/customers 401",
      ]);
      expect(lines.filter((line) => line.startsWith("webhook"))).toEqual([
        expect.stringMatching(/^webhook customer\.created evt_\w+ -> 204$/),
      ]);
      for (const secret of [fake.apiKey ?? "", fake.webhookSecret ?? "", "sk_test_wrong"]) {
        expect(lines.join("\n")).not.toContain(secret);
      }
    } finally {
      endpoint.close();
    }
  });

  it("serves the app's icon at /favicon.ico", async () => {
    const fake = await start({});
    const response = await fetch(`${fake.url}/favicon.ico`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(await response.text()).toBe(fs.readFileSync(path.join(process.cwd(), "app", "icon.svg"), "utf8"));
  });
});
