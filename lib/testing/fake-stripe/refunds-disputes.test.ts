import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeStripe, startFakeStripe } from "./server";

/*
 * Refunds and disputes on the test server, as the official SDK sees them: what Stripe's test mode
 * does with a refund, with pm_card_createDispute and with its magic dispute evidence.
 */

let fake: FakeStripe;
let stripe: Stripe;

function client(options: { timeout?: number } = {}): Stripe {
  return new Stripe("sk_test_refunds_disputes", {
    host: fake.host,
    port: fake.port,
    protocol: "http",
    maxNetworkRetries: 0,
    timeout: options.timeout ?? 5_000,
  });
}

beforeAll(async () => {
  fake = await startFakeStripe();
  stripe = client();
});
afterAll(async () => fake?.close());
beforeEach(() => fake.control.clearFaults());

/** A paid PaymentIntent of `amount` on a card saved from `token`. */
async function paid(token = "pm_card_visa", amount = 1000): Promise<Stripe.PaymentIntent> {
  const customer = await stripe.customers.create({ name: "Acme" });
  const method = await stripe.paymentMethods.attach(token, { customer: customer.id });
  return stripe.paymentIntents.create({
    amount,
    currency: "usd",
    customer: customer.id,
    payment_method: method.id,
    off_session: true,
    confirm: true,
    metadata: { top_up_id: "tu_1" },
  });
}

async function thrown(run: () => Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await run();
  } catch (error) {
    return error as Stripe.errors.StripeError;
  }
  throw new Error("expected the call to fail");
}

/** The types of the events emitted since `since` events, in order. */
function typesSince(since: number): string[] {
  return fake.control
    .events()
    .slice(since)
    .map((event) => event.type);
}

describe("charges", () => {
  it("gives a succeeded PaymentIntent a Charge as its latest_charge", async () => {
    const intent = await paid();
    expect(intent.latest_charge).toMatch(/^ch_/);
    const charge = await stripe.charges.retrieve(String(intent.latest_charge));
    expect(charge).toMatchObject({
      object: "charge",
      amount: 1000,
      amount_refunded: 0,
      refunded: false,
      payment_intent: intent.id,
      customer: intent.customer,
    });
  });
});

describe("refunds", () => {
  it("refunds what is left by default, at once, with refund.created then charge.refunded", async () => {
    const intent = await paid();
    const before = fake.control.events().length;
    const refund = await stripe.refunds.create({ payment_intent: intent.id, metadata: { refund_id: "rf_1" } });
    expect(refund).toMatchObject({
      object: "refund",
      amount: 1000,
      status: "succeeded",
      payment_intent: intent.id,
      currency: "usd",
      metadata: { refund_id: "rf_1" },
    });
    expect(typesSince(before)).toEqual(["refund.created", "charge.refunded"]);
    const refunded = fake.control.events().at(-1)?.data.object as Stripe.Charge;
    expect([refunded.amount_refunded, refunded.refunded]).toEqual([1000, true]);
    expect(await stripe.refunds.retrieve(refund.id)).toMatchObject({ id: refund.id, amount: 1000 });
  });

  it("refunds in parts, by payment_intent or charge, and refuses more than is left or nothing left", async () => {
    const intent = await paid();
    await stripe.refunds.create({ payment_intent: intent.id, amount: 300 });
    await stripe.refunds.create({ charge: String(intent.latest_charge), amount: 200 });
    const tooLarge = await thrown(() => stripe.refunds.create({ payment_intent: intent.id, amount: 501 }));
    expect([tooLarge.statusCode, tooLarge.type, tooLarge.code]).toEqual([
      400,
      "StripeInvalidRequestError",
      "amount_too_large",
    ]);
    const rest = await stripe.refunds.create({ payment_intent: intent.id });
    expect(rest.amount).toBe(500);
    const none = await thrown(() => stripe.refunds.create({ payment_intent: intent.id, amount: 1 }));
    expect([none.statusCode, none.code]).toEqual([400, "charge_already_refunded"]);
    expect((await stripe.charges.retrieve(String(intent.latest_charge))).amount_refunded).toBe(1000);
  });

  it("lists a PaymentIntent's refunds newest first, in pages", async () => {
    const intent = await paid();
    const other = await paid();
    const ids = [];
    for (const amount of [100, 200, 300])
      ids.push((await stripe.refunds.create({ payment_intent: intent.id, amount })).id);
    await stripe.refunds.create({ payment_intent: other.id, amount: 100 });
    const page = await stripe.refunds.list({ payment_intent: intent.id, limit: 2 });
    expect([page.data.map((refund) => refund.id), page.has_more]).toEqual([[ids[2], ids[1]], true]);
    const all = [];
    for await (const refund of stripe.refunds.list({ payment_intent: intent.id, limit: 1 })) all.push(refund.id);
    expect(all).toEqual([...ids].reverse());
  });

  it("refuses a PaymentIntent that has not succeeded, and an unknown one", async () => {
    const customer = await stripe.customers.create({ name: "Acme" });
    const method = await stripe.paymentMethods.attach("pm_card_chargeCustomerFail", { customer: customer.id });
    const declined = await thrown(() =>
      stripe.paymentIntents.create({
        amount: 500,
        currency: "usd",
        customer: customer.id,
        payment_method: method.id,
        off_session: true,
        confirm: true,
      }),
    );
    const unpaid = await thrown(() => stripe.refunds.create({ payment_intent: declined.payment_intent?.id ?? "" }));
    expect([unpaid.statusCode, unpaid.code]).toEqual([400, "payment_intent_unexpected_state"]);
    const unknown = await thrown(() => stripe.refunds.create({ payment_intent: "pi_nope" }));
    expect([unknown.statusCode, unknown.code, unknown.param]).toEqual([404, "resource_missing", "payment_intent"]);
  });

  it("replays a refund under the same idempotency key: one refund", async () => {
    const intent = await paid();
    const first = await stripe.refunds.create(
      { payment_intent: intent.id, amount: 400 },
      { idempotencyKey: "refund_rf_same" },
    );
    const again = await stripe.refunds.create(
      { payment_intent: intent.id, amount: 400 },
      { idempotencyKey: "refund_rf_same" },
    );
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(fake.control.refunds({ paymentIntent: intent.id })).toHaveLength(1);
  });

  it("keeps a refund made before the connection dropped or the client timed out, and a re-send under its key replays it", async () => {
    const intent = await paid();
    // stripe-node re-sends a reset connection once, under the same key, even with retries off.
    fake.control.fault({ method: "POST", path: "/v1/refunds", kind: "execute_then_drop", times: 2 });
    const dropped = await thrown(() =>
      stripe.refunds.create({ payment_intent: intent.id, amount: 100 }, { idempotencyKey: "refund_rf_drop" }),
    );
    expect(dropped.type).toBe("StripeConnectionError");
    fake.control.fault({ method: "POST", path: "/v1/refunds", kind: "execute_then_delay", delayMs: 1_500 });
    const timedOut = await thrown(() =>
      client({ timeout: 300 }).refunds.create(
        { payment_intent: intent.id, amount: 200 },
        { idempotencyKey: "refund_rf_timeout" },
      ),
    );
    expect(timedOut.type).toBe("StripeConnectionError");
    expect(fake.control.refunds({ paymentIntent: intent.id }).map((refund) => refund.amount)).toEqual([100, 200]);
    const replayed = await stripe.refunds.create(
      { payment_intent: intent.id, amount: 200 },
      { idempotencyKey: "refund_rf_timeout" },
    );
    expect(replayed.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(fake.control.refunds({ paymentIntent: intent.id })).toHaveLength(2);
  });
});

describe("disputes", () => {
  it("opens a dispute after a pm_card_createDispute charge succeeds: needs_response, the amount withdrawn", async () => {
    const before = fake.control.events().length;
    const intent = await paid("pm_card_createDispute", 2500);
    expect(intent.status).toBe("succeeded");
    expect(typesSince(before).slice(-3)).toEqual([
      "payment_intent.succeeded",
      "charge.dispute.created",
      "charge.dispute.funds_withdrawn",
    ]);
    const { data } = await stripe.disputes.list({ payment_intent: intent.id });
    expect(data).toHaveLength(1);
    const dispute = data[0] as Stripe.Dispute;
    expect(dispute).toMatchObject({
      status: "needs_response",
      amount: 2500,
      currency: "usd",
      payment_intent: intent.id,
      charge: intent.latest_charge,
    });
    expect(dispute.balance_transactions.map((transaction) => transaction.amount)).toEqual([-2500]);
    expect(await stripe.disputes.retrieve(dispute.id)).toMatchObject({ id: dispute.id, status: "needs_response" });
    expect((await stripe.charges.retrieve(String(intent.latest_charge))).disputed).toBe(true);
  });

  it("wins on winning_evidence: the amount reinstated; then refuses any update", async () => {
    const intent = await paid("pm_card_createDispute");
    const [dispute] = fake.control.disputes({ paymentIntent: intent.id });
    const before = fake.control.events().length;
    const won = await stripe.disputes.update(dispute?.id ?? "", {
      evidence: { uncategorized_text: "winning_evidence" },
      submit: true,
    });
    expect(won.status).toBe("won");
    expect(won.balance_transactions.map((transaction) => transaction.amount)).toEqual([-1000, 1000]);
    expect(typesSince(before)).toEqual([
      "charge.dispute.updated",
      "charge.dispute.closed",
      "charge.dispute.funds_reinstated",
    ]);
    const closed = await thrown(() =>
      stripe.disputes.update(won.id, { evidence: { uncategorized_text: "losing_evidence" }, submit: true }),
    );
    expect([closed.statusCode, closed.type]).toEqual([400, "StripeInvalidRequestError"]);
  });

  it("loses on losing_evidence, with the money kept withdrawn", async () => {
    const intent = await paid("pm_card_createDispute");
    const [dispute] = fake.control.disputes({ paymentIntent: intent.id });
    const before = fake.control.events().length;
    const lost = await stripe.disputes.update(dispute?.id ?? "", {
      evidence: { uncategorized_text: "losing_evidence" },
      submit: true,
    });
    expect(lost.status).toBe("lost");
    expect(lost.balance_transactions.map((transaction) => transaction.amount)).toEqual([-1000]);
    expect(typesSince(before)).toEqual(["charge.dispute.updated", "charge.dispute.closed"]);
  });

  it("stages evidence without submit, and leaves other evidence under review once submitted", async () => {
    const intent = await paid("pm_card_createDispute");
    const id = fake.control.disputes({ paymentIntent: intent.id })[0]?.id ?? "";
    const staged = await stripe.disputes.update(id, { evidence: { uncategorized_text: "winning_evidence" } });
    expect(staged.status).toBe("needs_response");
    const reviewed = await stripe.disputes.update(id, {
      evidence: { uncategorized_text: "receipts attached" },
      submit: true,
    });
    expect(reviewed.status).toBe("under_review");
  });

  it("refuses to refund a disputed charge until the dispute is won", async () => {
    const intent = await paid("pm_card_createDispute");
    const disputed = await thrown(() => stripe.refunds.create({ payment_intent: intent.id, amount: 100 }));
    expect([disputed.statusCode, disputed.code]).toEqual([400, "charge_disputed"]);
    const id = fake.control.disputes({ paymentIntent: intent.id })[0]?.id ?? "";
    await stripe.disputes.update(id, { evidence: { uncategorized_text: "winning_evidence" }, submit: true });
    expect((await stripe.refunds.create({ payment_intent: intent.id, amount: 100 })).status).toBe("succeeded");
  });

  it("answers resource_missing for an unknown dispute", async () => {
    const missing = await thrown(() => stripe.disputes.retrieve("du_nope"));
    expect([missing.statusCode, missing.code]).toEqual([404, "resource_missing"]);
  });
});
