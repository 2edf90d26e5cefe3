import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { fakeStripeSuite, thrown } from "./sdk-suite";

/*
 * The test server's idempotency and injected faults, as the official SDK experiences them: what a
 * provider's retry meets at Stripe when a request fails before, during or after it executes.
 */

const suite = fakeStripeSuite();

/** $10.00 charged off-session to a saved card, as a purchase charges it. */
function offSessionCharge(
  customer: Stripe.Customer,
  method: Stripe.PaymentMethod | undefined,
): Stripe.PaymentIntentCreateParams {
  return {
    amount: 1000,
    currency: "usd",
    customer: customer.id,
    payment_method: method?.id,
    off_session: true,
    confirm: true,
  };
}

describe("idempotency, as Stripe documents it", () => {
  it("replays the stored answer, 402s included, with Idempotent-Replayed, and executes nothing twice", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_chargeCustomerFail", "pm_card_visa");
    const key = `key_${Date.now()}_a`;
    const first = await suite.stripe.paymentIntents.create(offSessionCharge(customer, methods[1]), {
      idempotencyKey: key,
    });
    const again = await suite.stripe.paymentIntents.create(offSessionCharge(customer, methods[1]), {
      idempotencyKey: key,
    });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers["idempotent-replayed"]).toBe("true");

    const declineKey = `key_${Date.now()}_b`;
    const params = offSessionCharge(customer, methods[0]);
    const d1 = await thrown(() => suite.stripe.paymentIntents.create(params, { idempotencyKey: declineKey }));
    const d2 = await thrown(() => suite.stripe.paymentIntents.create(params, { idempotencyKey: declineKey }));
    expect(d2.payment_intent?.id).toBe(d1.payment_intent?.id);
    expect(d2.headers?.["idempotent-replayed"]).toBe("true");
    expect(suite.fake.control.paymentIntents({ customer: customer.id })).toHaveLength(2);
  });

  it("answers 400 idempotency_error for other parameters or another endpoint", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_visa");
    const key = `key_${Date.now()}_c`;
    const params = offSessionCharge(customer, methods[0]);
    await suite.stripe.paymentIntents.create(params, { idempotencyKey: key });
    const other = await thrown(() =>
      suite.stripe.paymentIntents.create({ ...params, amount: 2000 }, { idempotencyKey: key }),
    );
    expect([other.type, other.statusCode]).toEqual(["StripeIdempotencyError", 400]);
    const elsewhere = await thrown(() => suite.stripe.customers.create({ name: "x" }, { idempotencyKey: key }));
    expect(elsewhere.type).toBe("StripeIdempotencyError");
  });

  it("answers 409 idempotency_key_in_use while the first request is still running", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_visa");
    const key = `key_${Date.now()}_d`;
    const params = offSessionCharge(customer, methods[0]);
    suite.fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "hold" });
    const first = suite.stripe.paymentIntents.create(params, { idempotencyKey: key });
    while (suite.fake.control.heldCount() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await thrown(() => suite.stripe.paymentIntents.create(params, { idempotencyKey: key }));
    expect([second.statusCode, second.code]).toEqual([409, "idempotency_key_in_use"]);
    suite.fake.control.releaseHeld();
    expect((await first).status).toBe("succeeded");
  });

  it("stores no validation error, and forgets a key after 24 hours", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_visa");
    const key = `key_${Date.now()}_e`;
    const params = offSessionCharge(customer, methods[0]);
    const invalid = await thrown(() =>
      suite.stripe.paymentIntents.create({ ...params, customer: "cus_missing" }, { idempotencyKey: key }),
    );
    expect(invalid.code).toBe("resource_missing");
    const first = await suite.stripe.paymentIntents.create(params, { idempotencyKey: key });
    suite.fake.control.advanceClock(25 * 60 * 60 * 1000);
    const later = await suite.stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(later.id).not.toBe(first.id);
    suite.fake.control.advanceClock(-25 * 60 * 60 * 1000);
  });
});

describe("faults, as the SDK experiences them", () => {
  it("a 500 before executing creates nothing; a dropped connection after executing created the charge", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_visa");
    const params = offSessionCharge(customer, methods[0]);
    suite.fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "500_before" });
    const before = await thrown(() =>
      suite.stripe.paymentIntents.create(params, { idempotencyKey: `k_${Date.now()}_1` }),
    );
    expect([before.type, before.statusCode]).toEqual(["StripeAPIError", 500]);
    expect(suite.fake.control.paymentIntents({ customer: customer.id })).toHaveLength(0);

    // stripe-node retries a reset connection once, under the same key, even with retries off:
    // that retry is answered from the stored response, so the caller sees the charge.
    suite.fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "execute_then_drop" });
    const retried = await suite.stripe.paymentIntents.create(params, { idempotencyKey: `k_${Date.now()}_2` });
    expect(retried.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(suite.fake.control.paymentIntents({ customer: customer.id })).toHaveLength(1);

    // Both dropped: the caller learns nothing, but the charge was made, once.
    suite.fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "execute_then_drop", times: 2 });
    const key = `k_${Date.now()}_3`;
    const dropped = await thrown(() => suite.stripe.paymentIntents.create(params, { idempotencyKey: key }));
    expect(dropped.type).toBe("StripeConnectionError");
    expect(suite.fake.control.paymentIntents({ customer: customer.id })).toHaveLength(2);
    const replay = await suite.stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(replay.id).toBe(suite.fake.control.paymentIntents({ customer: customer.id })[1]?.id);
  });

  it("a 500 stored after executing poisons the key: every replay is that 500, with Stripe-Should-Retry false", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_visa");
    const params = offSessionCharge(customer, methods[0]);
    suite.fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "execute_then_500" });
    const key = `k_${Date.now()}_3`;
    await thrown(() => suite.stripe.paymentIntents.create(params, { idempotencyKey: key }));
    const replay = await thrown(() =>
      suite.client({ maxNetworkRetries: 2 }).paymentIntents.create(params, { idempotencyKey: key }),
    );
    expect(replay.statusCode).toBe(500);
    expect(replay.headers?.["stripe-should-retry"]).toBe("false");
    expect(suite.fake.control.paymentIntents({ customer: customer.id })).toHaveLength(1);
  });

  it("a switch fault (times: Infinity) stays until cleared, and clearing by path leaves the others", async () => {
    const { customer } = await suite.customerWith();
    suite.fake.control.fault({
      method: "GET",
      path: `/v1/customers/${customer.id}`,
      kind: "500_before",
      times: Number.POSITIVE_INFINITY,
    });
    suite.fake.control.fault({ method: "GET", path: "/v1/customers/cus_other", kind: "500_before" });
    for (let i = 0; i < 3; i += 1)
      expect((await thrown(() => suite.stripe.customers.retrieve(customer.id))).statusCode).toBe(500);
    suite.fake.control.clearFaults({ method: "GET", path: `/v1/customers/${customer.id}` });
    expect((await suite.stripe.customers.retrieve(customer.id)).id).toBe(customer.id);
    expect((await thrown(() => suite.stripe.customers.retrieve("cus_other"))).statusCode).toBe(500);
  });

  it("delays a request past the SDK's timeout", async () => {
    suite.fake.control.fault({ method: "GET", path: "/v1/customers/", kind: "delay", delayMs: 400 });
    const error = await thrown(() => suite.client({ timeout: 100 }).customers.retrieve("cus_x"));
    expect(error.type).toBe("StripeConnectionError");
  });
});
