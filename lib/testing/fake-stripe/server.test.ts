import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseForm } from "./form";
import { type FakeStripe, startFakeStripe } from "./server";

/*
 * The test server as the official SDK experiences it: each rule here is one Stripe documents,
 * checked through stripe-node 23 itself, so the provider's tests against this server mean what
 * they would mean against Stripe.
 */

let fake: FakeStripe;
let stripe: Stripe;
const KEY = "sk_test_fake_server_suite";

function client(options: Partial<{ maxNetworkRetries: number; timeout: number; key: string }> = {}): Stripe {
  return new Stripe(options.key ?? KEY, {
    host: fake.host,
    port: fake.port,
    protocol: "http",
    maxNetworkRetries: options.maxNetworkRetries ?? 0,
    timeout: options.timeout ?? 5_000,
  });
}

beforeAll(async () => {
  fake = await startFakeStripe();
  stripe = client();
});
afterAll(async () => fake?.close());
beforeEach(() => fake.control.clearFaults());

async function customerWith(...tokens: string[]) {
  const customer = await stripe.customers.create({ name: "Acme", metadata: { organization_id: "org_1" } });
  const methods = [];
  for (const token of tokens) methods.push(await stripe.paymentMethods.attach(token, { customer: customer.id }));
  return { customer, methods };
}

async function thrown(run: () => Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await run();
  } catch (error) {
    return error as Stripe.errors.StripeError;
  }
  throw new Error("expected the call to fail");
}

describe("encoding and envelopes", () => {
  it("parses nested keys, indexed and empty-bracket arrays, and keeps an empty string", () => {
    expect(
      parseForm(
        "metadata[top_up_id]=tu_1&expand[0]=a&expand[1]=b&lookup_keys[]=x&lookup_keys[]=y&invoice_settings[default_payment_method]=",
      ),
    ).toEqual({
      metadata: { top_up_id: "tu_1" },
      expand: ["a", "b"],
      lookup_keys: ["x", "y"],
      invoice_settings: { default_payment_method: "" },
    });
  });

  it("refuses a missing or non-test key with 401, and answers a Request-Id", async () => {
    const error = await thrown(() => client({ key: "sk_live_nope" }).customers.create({}));
    expect(error.type).toBe("StripeAuthenticationError");
    expect(error.statusCode).toBe(401);
    const response = await fetch(`${fake.url}/v1/customers/cus_x`, { headers: { Authorization: `Bearer ${KEY}` } });
    expect(response.headers.get("request-id")).toMatch(/^req_/);
  });

  it("pages lists with limit and starting_after, newest first", async () => {
    const { customer } = await customerWith("pm_card_visa", "pm_card_mastercard", "pm_card_visa");
    const first = await stripe.paymentMethods.list({ customer: customer.id, type: "card", limit: 2 });
    expect([first.data.length, first.has_more]).toEqual([2, true]);
    const rest = await stripe.paymentMethods.list({
      customer: customer.id,
      type: "card",
      limit: 2,
      starting_after: first.data[1]?.id,
    });
    expect([rest.data.length, rest.has_more]).toEqual([1, false]);
    const all = [];
    for await (const method of stripe.customers.listPaymentMethods(customer.id, { limit: 1 })) all.push(method.id);
    expect(new Set(all).size).toBe(3);
  });
});

describe("customers and payment methods", () => {
  it("makes a new pm_ with brand, last four, expiry and a stable fingerprint for each test token", async () => {
    const { methods } = await customerWith("pm_card_visa", "pm_card_visa");
    const [a, b] = methods;
    expect(a?.id).toMatch(/^pm_/);
    expect(a?.id).not.toBe(b?.id);
    expect(a?.card).toMatchObject({ brand: "visa", last4: "4242", exp_month: 12 });
    expect(a?.card?.fingerprint).toBe(b?.card?.fingerprint);
  });

  it("updates a saved card's expiry, as Stripe allows, and refuses an impossible month", async () => {
    const { methods } = await customerWith("pm_card_visa");
    const id = methods[0]?.id ?? "";
    const updated = await stripe.paymentMethods.update(id, { card: { exp_month: 3, exp_year: 2027 } });
    expect(updated.card).toMatchObject({ exp_month: 3, exp_year: 2027, last4: "4242" });
    expect((await stripe.paymentMethods.retrieve(id)).card).toMatchObject({ exp_month: 3, exp_year: 2027 });
    const bad = await thrown(() => stripe.paymentMethods.update(id, { card: { exp_month: 13 } }));
    expect(bad.statusCode).toBe(400);
  });

  it("refuses Stripe's decline cards on attach with a 402 card_error, and unknown ids with resource_missing", async () => {
    const { customer } = await customerWith();
    const declined = await thrown(() =>
      stripe.paymentMethods.attach("pm_card_chargeDeclined", { customer: customer.id }),
    );
    expect([declined.type, declined.code, declined.decline_code]).toEqual([
      "StripeCardError",
      "card_declined",
      "generic_decline",
    ]);
    const unknown = await thrown(() => stripe.paymentMethods.attach("pm_nope", { customer: customer.id }));
    expect([unknown.statusCode, unknown.code]).toEqual([404, "resource_missing"]);
    const noCustomer = await thrown(() => stripe.customers.retrieve("cus_nope"));
    expect(noCustomer.message).toBe("No such customer: 'cus_nope'");
  });

  it("takes as default only a method attached to that customer; an empty string unsets it; detaching the default clears it", async () => {
    const { customer, methods } = await customerWith("pm_card_visa");
    const { methods: others } = await customerWith("pm_card_visa");
    const foreign = await thrown(() =>
      stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: others[0]?.id } }),
    );
    expect(foreign.statusCode).toBe(400);
    const updated = await stripe.customers.update(customer.id, {
      invoice_settings: { default_payment_method: methods[0]?.id },
    });
    expect(updated.invoice_settings.default_payment_method).toBe(methods[0]?.id);
    const unset = await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: "" } });
    expect(unset.invoice_settings.default_payment_method).toBeNull();
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: methods[0]?.id } });
    await stripe.paymentMethods.detach(methods[0]?.id ?? "");
    expect((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({
      invoice_settings: { default_payment_method: null },
    });
  });

  it("finds customers by metadata", async () => {
    const { customer } = await customerWith();
    const found = await stripe.customers.search({ query: "metadata['organization_id']:'org_1'" });
    expect(found.data.map((c) => c.id)).toContain(customer.id);
  });

  it("answers the default payment method as the whole PaymentMethod when expanded, on retrieve, create, update, list and search", async () => {
    const { customer, methods } = await customerWith("pm_card_visa");
    const id = methods[0]?.id ?? "";
    const expand = ["invoice_settings.default_payment_method"];
    const updated = await stripe.customers.update(customer.id, {
      invoice_settings: { default_payment_method: id },
      expand,
    });
    expect(updated.invoice_settings.default_payment_method).toMatchObject({
      id,
      object: "payment_method",
      card: { last4: "4242" },
    });

    const retrieved = (await stripe.customers.retrieve(customer.id, { expand })) as Stripe.Customer;
    const method = retrieved.invoice_settings.default_payment_method as Stripe.PaymentMethod;
    expect(method).toEqual(await stripe.paymentMethods.retrieve(id));
    expect(method.customer).toBe(customer.id);
    // Unexpanded, it stays the id.
    expect(
      ((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).invoice_settings.default_payment_method,
    ).toBe(id);

    // Nothing to expand: null stays null.
    const created = await stripe.customers.create({ name: "Acme", payment_method: "pm_card_mastercard", expand });
    expect(created.invoice_settings.default_payment_method).toBeNull();

    const listed = await stripe.customers.list({
      limit: 100,
      expand: ["data.invoice_settings.default_payment_method"],
    });
    const mine = listed.data.find((each) => each.id === customer.id);
    expect(mine?.invoice_settings.default_payment_method).toMatchObject({ id, object: "payment_method" });
    const searched = await stripe.customers.search({
      query: "metadata['organization_id']:'org_1'",
      expand: ["data.invoice_settings.default_payment_method"],
    });
    expect(
      searched.data.find((each) => each.id === customer.id)?.invoice_settings.default_payment_method,
    ).toMatchObject({ id });

    // Expansion is in the answer only: the customer itself, and its events, keep the id.
    const events = (await stripe.events.list({ limit: 100 })).data;
    const event = events.find(
      (each) => each.type === "customer.updated" && (each.data.object as Stripe.Customer).id === customer.id,
    );
    expect((event?.data.object as Stripe.Customer | undefined)?.invoice_settings.default_payment_method).toBe(id);
    expect(
      ((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).invoice_settings.default_payment_method,
    ).toBe(id);
  });

  it("refuses to expand what Stripe cannot, and a list's field without data.", async () => {
    const { customer } = await customerWith("pm_card_visa");
    const name = await thrown(() => stripe.customers.retrieve(customer.id, { expand: ["name"] }));
    expect([name.statusCode, name.type, name.message]).toEqual([
      400,
      "StripeInvalidRequestError",
      "This property cannot be expanded (name).",
    ]);
    const bare = await thrown(() => stripe.customers.list({ expand: ["invoice_settings.default_payment_method"] }));
    expect([bare.statusCode, bare.message]).toEqual([400, "This property cannot be expanded (invoice_settings)."]);
    // What Stripe would expand but this server does not keep is refused, never answered as if unexpanded.
    const unkept = await thrown(() =>
      stripe.customers.retrieve(customer.id, { expand: ["invoice_settings.default_payment_method.customer"] }),
    );
    expect([unkept.statusCode, unkept.message]).toEqual([
      400,
      "The Stripe-compatible test server does not expand invoice_settings.default_payment_method.customer.",
    ]);
  });
});

describe("prices", () => {
  it("keeps lookup keys unique, moves one with transfer_lookup_key, and shows currency_options only when expanded", async () => {
    const product = await stripe.products.create({ name: "Points" });
    const key = `points_${Date.now()}`;
    const first = await stripe.prices.create({
      product: product.id,
      currency: "usd",
      unit_amount: 1000,
      lookup_key: key,
      currency_options: { gbp: { unit_amount: 800 } },
    });
    const clash = await thrown(() =>
      stripe.prices.create({ product: product.id, currency: "usd", unit_amount: 1100, lookup_key: key }),
    );
    expect(clash.statusCode).toBe(400);
    const second = await stripe.prices.create({
      product: product.id,
      currency: "usd",
      unit_amount: 1100,
      lookup_key: key,
      transfer_lookup_key: true,
    });
    const plain = await stripe.prices.list({ lookup_keys: [key] });
    expect(plain.data.map((price) => price.id)).toEqual([second.id]);
    expect(plain.data[0]?.currency_options).toBeUndefined();
    expect(plain.data[0]?.unit_amount).toBe(1100);
    const expanded = await stripe.prices.retrieve(first.id, { expand: ["currency_options"] });
    expect(expanded.lookup_key).toBeNull();
    expect(expanded.currency_options?.gbp?.unit_amount).toBe(800);
  });
});

describe("PaymentIntents", () => {
  const charge = (
    customer: string,
    method: string,
    key?: string,
    extra: Partial<Stripe.PaymentIntentCreateParams> = {},
  ) =>
    stripe.paymentIntents.create(
      {
        amount: 1000,
        currency: "usd",
        customer,
        payment_method: method,
        off_session: true,
        confirm: true,
        metadata: { top_up_id: "tu_1" },
        ...extra,
      },
      key ? { idempotencyKey: key } : undefined,
    );

  it("succeeds off-session with a good card", async () => {
    const { customer, methods } = await customerWith("pm_card_visa");
    const intent = await charge(customer.id, methods[0]?.id ?? "");
    expect(intent).toMatchObject({ status: "succeeded", amount_received: 1000, metadata: { top_up_id: "tu_1" } });
    expect(intent.latest_charge).toMatch(/^ch_/);
  });

  it("declines with a 402 card_error carrying the PaymentIntent, which still exists", async () => {
    const { customer, methods } = await customerWith("pm_card_chargeCustomerFail");
    const error = await thrown(() => charge(customer.id, methods[0]?.id ?? ""));
    expect([error.type, error.code, error.decline_code]).toEqual([
      "StripeCardError",
      "card_declined",
      "generic_decline",
    ]);
    const intent = error.payment_intent;
    expect(intent?.status).toBe("requires_payment_method");
    expect(intent?.last_payment_error?.decline_code).toBe("generic_decline");
    expect((await stripe.paymentIntents.retrieve(intent?.id ?? "")).status).toBe("requires_payment_method");
  });

  it("needs authentication off-session, then on-session confirmation gives a 3-D Secure page whose buttons decide", async () => {
    const { customer, methods } = await customerWith("pm_card_authenticationRequired");
    for (const [button, status] of [
      ["complete", "succeeded"],
      ["fail", "requires_payment_method"],
    ] as const) {
      const error = await thrown(() => charge(customer.id, methods[0]?.id ?? ""));
      expect([error.code, error.decline_code]).toEqual(["authentication_required", "authentication_required"]);
      const id = error.payment_intent?.id ?? "";
      const confirmed = await stripe.paymentIntents.confirm(id, {
        return_url: "http://app.test/back",
        payment_method: methods[0]?.id,
      });
      expect(confirmed.status).toBe("requires_action");
      const page = confirmed.next_action?.redirect_to_url?.url ?? "";
      expect(await (await fetch(page)).text()).toContain("Complete");
      const answer = await fetch(`${fake.url}/_pages/3ds/${id}/${button}`, { method: "POST", redirect: "manual" });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe(
        `http://app.test/back?payment_intent=${id}&redirect_status=${button === "complete" ? "succeeded" : "failed"}`,
      );
      expect((await stripe.paymentIntents.retrieve(id)).status).toBe(status);
    }
  });

  it("lists by customer and creation time, searches by metadata, and cancels only what has not succeeded", async () => {
    const { customer, methods } = await customerWith("pm_card_authenticationRequired", "pm_card_visa");
    const waiting = (await thrown(() => charge(customer.id, methods[0]?.id ?? ""))).payment_intent?.id ?? "";
    const paid = await charge(customer.id, methods[1]?.id ?? "", undefined, { metadata: { top_up_id: "tu_search" } });
    const listed = await stripe.paymentIntents.list({ customer: customer.id, created: { gte: 0 } });
    expect(listed.data.map((intent) => intent.id)).toEqual([paid.id, waiting]);
    const found = await stripe.paymentIntents.search({ query: "metadata['top_up_id']:'tu_search'" });
    expect(found.data.map((intent) => intent.id)).toEqual([paid.id]);
    expect((await stripe.paymentIntents.cancel(waiting)).status).toBe("canceled");
    const refused = await thrown(() => stripe.paymentIntents.cancel(paid.id));
    expect(refused.code).toBe("payment_intent_unexpected_state");
  });
});

describe("idempotency, as Stripe documents it", () => {
  it("replays the stored answer, 402s included, with Idempotent-Replayed, and executes nothing twice", async () => {
    const { customer, methods } = await customerWith("pm_card_chargeCustomerFail", "pm_card_visa");
    const key = `key_${Date.now()}_a`;
    const first = await stripe.paymentIntents.create(
      {
        amount: 1000,
        currency: "usd",
        customer: customer.id,
        payment_method: methods[1]?.id,
        off_session: true,
        confirm: true,
      },
      { idempotencyKey: key },
    );
    const again = await stripe.paymentIntents.create(
      {
        amount: 1000,
        currency: "usd",
        customer: customer.id,
        payment_method: methods[1]?.id,
        off_session: true,
        confirm: true,
      },
      { idempotencyKey: key },
    );
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers["idempotent-replayed"]).toBe("true");

    const declineKey = `key_${Date.now()}_b`;
    const params = {
      amount: 1000,
      currency: "usd",
      customer: customer.id,
      payment_method: methods[0]?.id,
      off_session: true,
      confirm: true,
    };
    const d1 = await thrown(() => stripe.paymentIntents.create(params, { idempotencyKey: declineKey }));
    const d2 = await thrown(() => stripe.paymentIntents.create(params, { idempotencyKey: declineKey }));
    expect(d2.payment_intent?.id).toBe(d1.payment_intent?.id);
    expect(d2.headers?.["idempotent-replayed"]).toBe("true");
    expect(fake.control.paymentIntents({ customer: customer.id })).toHaveLength(2);
  });

  it("answers 400 idempotency_error for other parameters or another endpoint", async () => {
    const { customer, methods } = await customerWith("pm_card_visa");
    const key = `key_${Date.now()}_c`;
    const params = {
      amount: 1000,
      currency: "usd",
      customer: customer.id,
      payment_method: methods[0]?.id,
      off_session: true,
      confirm: true,
    };
    await stripe.paymentIntents.create(params, { idempotencyKey: key });
    const other = await thrown(() =>
      stripe.paymentIntents.create({ ...params, amount: 2000 }, { idempotencyKey: key }),
    );
    expect([other.type, other.statusCode]).toEqual(["StripeIdempotencyError", 400]);
    const elsewhere = await thrown(() => stripe.customers.create({ name: "x" }, { idempotencyKey: key }));
    expect(elsewhere.type).toBe("StripeIdempotencyError");
  });

  it("answers 409 idempotency_key_in_use while the first request is still running", async () => {
    const { customer, methods } = await customerWith("pm_card_visa");
    const key = `key_${Date.now()}_d`;
    const params = {
      amount: 1000,
      currency: "usd",
      customer: customer.id,
      payment_method: methods[0]?.id,
      off_session: true,
      confirm: true,
    };
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "hold" });
    const first = stripe.paymentIntents.create(params, { idempotencyKey: key });
    while (fake.control.heldCount() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await thrown(() => stripe.paymentIntents.create(params, { idempotencyKey: key }));
    expect([second.statusCode, second.code]).toEqual([409, "idempotency_key_in_use"]);
    fake.control.releaseHeld();
    expect((await first).status).toBe("succeeded");
  });

  it("stores no validation error, and forgets a key after 24 hours", async () => {
    const { customer, methods } = await customerWith("pm_card_visa");
    const key = `key_${Date.now()}_e`;
    const params = {
      amount: 1000,
      currency: "usd",
      customer: customer.id,
      payment_method: methods[0]?.id,
      off_session: true,
      confirm: true,
    };
    const invalid = await thrown(() =>
      stripe.paymentIntents.create({ ...params, customer: "cus_missing" }, { idempotencyKey: key }),
    );
    expect(invalid.code).toBe("resource_missing");
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    fake.control.advanceClock(25 * 60 * 60 * 1000);
    const later = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(later.id).not.toBe(first.id);
    fake.control.advanceClock(-25 * 60 * 60 * 1000);
  });
});

describe("faults, as the SDK experiences them", () => {
  it("a 500 before executing creates nothing; a dropped connection after executing created the charge", async () => {
    const { customer, methods } = await customerWith("pm_card_visa");
    const params = {
      amount: 1000,
      currency: "usd",
      customer: customer.id,
      payment_method: methods[0]?.id,
      off_session: true,
      confirm: true,
    };
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "500_before" });
    const before = await thrown(() => stripe.paymentIntents.create(params, { idempotencyKey: `k_${Date.now()}_1` }));
    expect([before.type, before.statusCode]).toEqual(["StripeAPIError", 500]);
    expect(fake.control.paymentIntents({ customer: customer.id })).toHaveLength(0);

    // stripe-node retries a reset connection once, under the same key, even with retries off:
    // that retry is answered from the stored response, so the caller sees the charge.
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "execute_then_drop" });
    const retried = await stripe.paymentIntents.create(params, { idempotencyKey: `k_${Date.now()}_2` });
    expect(retried.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(fake.control.paymentIntents({ customer: customer.id })).toHaveLength(1);

    // Both dropped: the caller learns nothing, but the charge was made, once.
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "execute_then_drop", times: 2 });
    const key = `k_${Date.now()}_3`;
    const dropped = await thrown(() => stripe.paymentIntents.create(params, { idempotencyKey: key }));
    expect(dropped.type).toBe("StripeConnectionError");
    expect(fake.control.paymentIntents({ customer: customer.id })).toHaveLength(2);
    const replay = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(replay.id).toBe(fake.control.paymentIntents({ customer: customer.id })[1]?.id);
  });

  it("a 500 stored after executing poisons the key: every replay is that 500, with Stripe-Should-Retry false", async () => {
    const { customer, methods } = await customerWith("pm_card_visa");
    const params = {
      amount: 1000,
      currency: "usd",
      customer: customer.id,
      payment_method: methods[0]?.id,
      off_session: true,
      confirm: true,
    };
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "execute_then_500" });
    const key = `k_${Date.now()}_3`;
    await thrown(() => stripe.paymentIntents.create(params, { idempotencyKey: key }));
    const replay = await thrown(() =>
      client({ maxNetworkRetries: 2 }).paymentIntents.create(params, { idempotencyKey: key }),
    );
    expect(replay.statusCode).toBe(500);
    expect(replay.headers?.["stripe-should-retry"]).toBe("false");
    expect(fake.control.paymentIntents({ customer: customer.id })).toHaveLength(1);
  });

  it("a switch fault (times: Infinity) stays until cleared, and clearing by path leaves the others", async () => {
    const { customer } = await customerWith();
    fake.control.fault({
      method: "GET",
      path: `/v1/customers/${customer.id}`,
      kind: "500_before",
      times: Number.POSITIVE_INFINITY,
    });
    fake.control.fault({ method: "GET", path: "/v1/customers/cus_other", kind: "500_before" });
    for (let i = 0; i < 3; i += 1)
      expect((await thrown(() => stripe.customers.retrieve(customer.id))).statusCode).toBe(500);
    fake.control.clearFaults({ method: "GET", path: `/v1/customers/${customer.id}` });
    expect((await stripe.customers.retrieve(customer.id)).id).toBe(customer.id);
    expect((await thrown(() => stripe.customers.retrieve("cus_other"))).statusCode).toBe(500);
  });

  it("delays a request past the SDK's timeout", async () => {
    fake.control.fault({ method: "GET", path: "/v1/customers/", kind: "delay", delayMs: 400 });
    const error = await thrown(() => client({ timeout: 100 }).customers.retrieve("cus_x"));
    expect(error.type).toBe("StripeConnectionError");
  });
});
