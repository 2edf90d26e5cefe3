import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { parseForm } from "./form";
import { fakeStripeSuite, KEY, thrown } from "./sdk-suite";

/*
 * The test server as the official SDK experiences it: each rule here is one Stripe documents,
 * checked through stripe-node 23 itself, so the provider's tests against this server mean what
 * they would mean against Stripe. Idempotency and injected faults: server-faults.test.ts.
 */

const suite = fakeStripeSuite();

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
    const error = await thrown(() => suite.client({ key: "sk_live_nope" }).customers.create({}));
    expect(error.type).toBe("StripeAuthenticationError");
    expect(error.statusCode).toBe(401);
    const response = await fetch(`${suite.fake.url}/v1/customers/cus_x`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(response.headers.get("request-id")).toMatch(/^req_/);
  });

  it("pages lists with limit and starting_after, newest first", async () => {
    const { customer } = await suite.customerWith("pm_card_visa", "pm_card_mastercard", "pm_card_visa");
    const first = await suite.stripe.paymentMethods.list({ customer: customer.id, type: "card", limit: 2 });
    expect([first.data.length, first.has_more]).toEqual([2, true]);
    const rest = await suite.stripe.paymentMethods.list({
      customer: customer.id,
      type: "card",
      limit: 2,
      starting_after: first.data[1]?.id,
    });
    expect([rest.data.length, rest.has_more]).toEqual([1, false]);
    const all = [];
    for await (const method of suite.stripe.customers.listPaymentMethods(customer.id, { limit: 1 }))
      all.push(method.id);
    expect(new Set(all).size).toBe(3);
  });
});

describe("customers and payment methods", () => {
  it("makes a new pm_ with brand, last four, expiry and a stable fingerprint for each test token", async () => {
    const { methods } = await suite.customerWith("pm_card_visa", "pm_card_visa");
    const [a, b] = methods;
    expect(a?.id).toMatch(/^pm_/);
    expect(a?.id).not.toBe(b?.id);
    expect(a?.card).toMatchObject({ brand: "visa", last4: "4242", exp_month: 12 });
    expect(a?.card?.fingerprint).toBe(b?.card?.fingerprint);
  });

  it("updates a saved card's expiry, as Stripe allows, and refuses an impossible month", async () => {
    const { methods } = await suite.customerWith("pm_card_visa");
    const id = methods[0]?.id ?? "";
    const updated = await suite.stripe.paymentMethods.update(id, { card: { exp_month: 3, exp_year: 2027 } });
    expect(updated.card).toMatchObject({ exp_month: 3, exp_year: 2027, last4: "4242" });
    expect((await suite.stripe.paymentMethods.retrieve(id)).card).toMatchObject({ exp_month: 3, exp_year: 2027 });
    const bad = await thrown(() => suite.stripe.paymentMethods.update(id, { card: { exp_month: 13 } }));
    expect(bad.statusCode).toBe(400);
  });

  it("refuses Stripe's decline cards on attach with a 402 card_error, and unknown ids with resource_missing", async () => {
    const { customer } = await suite.customerWith();
    const declined = await thrown(() =>
      suite.stripe.paymentMethods.attach("pm_card_chargeDeclined", { customer: customer.id }),
    );
    expect([declined.type, declined.code, declined.decline_code]).toEqual([
      "StripeCardError",
      "card_declined",
      "generic_decline",
    ]);
    const unknown = await thrown(() => suite.stripe.paymentMethods.attach("pm_nope", { customer: customer.id }));
    expect([unknown.statusCode, unknown.code]).toEqual([404, "resource_missing"]);
    const noCustomer = await thrown(() => suite.stripe.customers.retrieve("cus_nope"));
    expect(noCustomer.message).toBe("No such customer: 'cus_nope'");
  });

  it("takes as default only a method attached to that customer; an empty string unsets it; detaching the default clears it", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_visa");
    const { methods: others } = await suite.customerWith("pm_card_visa");
    const foreign = await thrown(() =>
      suite.stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: others[0]?.id } }),
    );
    expect(foreign.statusCode).toBe(400);
    const updated = await suite.stripe.customers.update(customer.id, {
      invoice_settings: { default_payment_method: methods[0]?.id },
    });
    expect(updated.invoice_settings.default_payment_method).toBe(methods[0]?.id);
    const unset = await suite.stripe.customers.update(customer.id, {
      invoice_settings: { default_payment_method: "" },
    });
    expect(unset.invoice_settings.default_payment_method).toBeNull();
    await suite.stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: methods[0]?.id } });
    await suite.stripe.paymentMethods.detach(methods[0]?.id ?? "");
    expect((await suite.stripe.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({
      invoice_settings: { default_payment_method: null },
    });
  });

  it("finds customers by metadata", async () => {
    const { customer } = await suite.customerWith();
    const found = await suite.stripe.customers.search({ query: "metadata['organization_id']:'org_1'" });
    expect(found.data.map((c) => c.id)).toContain(customer.id);
  });

  it("answers the default payment method as the whole PaymentMethod when expanded, on retrieve, create, update, list and search", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_visa");
    const id = methods[0]?.id ?? "";
    const expand = ["invoice_settings.default_payment_method"];
    const updated = await suite.stripe.customers.update(customer.id, {
      invoice_settings: { default_payment_method: id },
      expand,
    });
    expect(updated.invoice_settings.default_payment_method).toMatchObject({
      id,
      object: "payment_method",
      card: { last4: "4242" },
    });

    const retrieved = (await suite.stripe.customers.retrieve(customer.id, { expand })) as Stripe.Customer;
    const method = retrieved.invoice_settings.default_payment_method as Stripe.PaymentMethod;
    expect(method).toEqual(await suite.stripe.paymentMethods.retrieve(id));
    expect(method.customer).toBe(customer.id);
    // Unexpanded, it stays the id.
    expect(
      ((await suite.stripe.customers.retrieve(customer.id)) as Stripe.Customer).invoice_settings.default_payment_method,
    ).toBe(id);

    // Nothing to expand: null stays null.
    const created = await suite.stripe.customers.create({ name: "Acme", payment_method: "pm_card_mastercard", expand });
    expect(created.invoice_settings.default_payment_method).toBeNull();

    const listed = await suite.stripe.customers.list({
      limit: 100,
      expand: ["data.invoice_settings.default_payment_method"],
    });
    const mine = listed.data.find((each) => each.id === customer.id);
    expect(mine?.invoice_settings.default_payment_method).toMatchObject({ id, object: "payment_method" });
    const searched = await suite.stripe.customers.search({
      query: "metadata['organization_id']:'org_1'",
      expand: ["data.invoice_settings.default_payment_method"],
    });
    expect(
      searched.data.find((each) => each.id === customer.id)?.invoice_settings.default_payment_method,
    ).toMatchObject({ id });

    // Expansion is in the answer only: the customer itself, and its events, keep the id.
    const events = (await suite.stripe.events.list({ limit: 100 })).data;
    const event = events.find(
      (each) => each.type === "customer.updated" && (each.data.object as Stripe.Customer).id === customer.id,
    );
    expect((event?.data.object as Stripe.Customer | undefined)?.invoice_settings.default_payment_method).toBe(id);
    expect(
      ((await suite.stripe.customers.retrieve(customer.id)) as Stripe.Customer).invoice_settings.default_payment_method,
    ).toBe(id);
  });

  it("refuses to expand what Stripe cannot, and a list's field without data.", async () => {
    const { customer } = await suite.customerWith("pm_card_visa");
    const name = await thrown(() => suite.stripe.customers.retrieve(customer.id, { expand: ["name"] }));
    expect([name.statusCode, name.type, name.message]).toEqual([
      400,
      "StripeInvalidRequestError",
      "This property cannot be expanded (name).",
    ]);
    const bare = await thrown(() =>
      suite.stripe.customers.list({ expand: ["invoice_settings.default_payment_method"] }),
    );
    expect([bare.statusCode, bare.message]).toEqual([400, "This property cannot be expanded (invoice_settings)."]);
    // What Stripe would expand but this server does not keep is refused, never answered as if unexpanded.
    const unkept = await thrown(() =>
      suite.stripe.customers.retrieve(customer.id, { expand: ["invoice_settings.default_payment_method.customer"] }),
    );
    expect([unkept.statusCode, unkept.message]).toEqual([
      400,
      "The Stripe-compatible test server does not expand invoice_settings.default_payment_method.customer.",
    ]);
  });
});

describe("prices", () => {
  it("keeps lookup keys unique, moves one with transfer_lookup_key, and shows currency_options only when expanded", async () => {
    const product = await suite.stripe.products.create({ name: "Points" });
    const key = `points_${Date.now()}`;
    const first = await suite.stripe.prices.create({
      product: product.id,
      currency: "usd",
      unit_amount: 1000,
      lookup_key: key,
      currency_options: { gbp: { unit_amount: 800 } },
    });
    const clash = await thrown(() =>
      suite.stripe.prices.create({ product: product.id, currency: "usd", unit_amount: 1100, lookup_key: key }),
    );
    expect(clash.statusCode).toBe(400);
    const second = await suite.stripe.prices.create({
      product: product.id,
      currency: "usd",
      unit_amount: 1100,
      lookup_key: key,
      transfer_lookup_key: true,
    });
    const plain = await suite.stripe.prices.list({ lookup_keys: [key] });
    expect(plain.data.map((price) => price.id)).toEqual([second.id]);
    expect(plain.data[0]?.currency_options).toBeUndefined();
    expect(plain.data[0]?.unit_amount).toBe(1100);
    const expanded = await suite.stripe.prices.retrieve(first.id, { expand: ["currency_options"] });
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
    suite.stripe.paymentIntents.create(
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
    const { customer, methods } = await suite.customerWith("pm_card_visa");
    const intent = await charge(customer.id, methods[0]?.id ?? "");
    expect(intent).toMatchObject({ status: "succeeded", amount_received: 1000, metadata: { top_up_id: "tu_1" } });
    expect(intent.latest_charge).toMatch(/^ch_/);
  });

  it("declines with a 402 card_error carrying the PaymentIntent, which still exists", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_chargeCustomerFail");
    const error = await thrown(() => charge(customer.id, methods[0]?.id ?? ""));
    expect([error.type, error.code, error.decline_code]).toEqual([
      "StripeCardError",
      "card_declined",
      "generic_decline",
    ]);
    const intent = error.payment_intent;
    expect(intent?.status).toBe("requires_payment_method");
    expect(intent?.last_payment_error?.decline_code).toBe("generic_decline");
    expect((await suite.stripe.paymentIntents.retrieve(intent?.id ?? "")).status).toBe("requires_payment_method");
  });

  it("needs authentication off-session, then on-session confirmation gives a 3-D Secure page whose buttons decide", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_authenticationRequired");
    for (const [button, status] of [
      ["complete", "succeeded"],
      ["fail", "requires_payment_method"],
    ] as const) {
      const error = await thrown(() => charge(customer.id, methods[0]?.id ?? ""));
      expect([error.code, error.decline_code]).toEqual(["authentication_required", "authentication_required"]);
      const id = error.payment_intent?.id ?? "";
      const confirmed = await suite.stripe.paymentIntents.confirm(id, {
        return_url: "http://app.test/back",
        payment_method: methods[0]?.id,
      });
      expect(confirmed.status).toBe("requires_action");
      const page = confirmed.next_action?.redirect_to_url?.url ?? "";
      expect(await (await fetch(page)).text()).toContain("Complete");
      const answer = await fetch(`${suite.fake.url}/_pages/3ds/${id}/${button}`, {
        method: "POST",
        redirect: "manual",
      });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe(
        `http://app.test/back?payment_intent=${id}&redirect_status=${button === "complete" ? "succeeded" : "failed"}`,
      );
      expect((await suite.stripe.paymentIntents.retrieve(id)).status).toBe(status);
    }
  });

  it("lists by customer and creation time, searches by metadata, and cancels only what has not succeeded", async () => {
    const { customer, methods } = await suite.customerWith("pm_card_authenticationRequired", "pm_card_visa");
    const waiting = (await thrown(() => charge(customer.id, methods[0]?.id ?? ""))).payment_intent?.id ?? "";
    const paid = await charge(customer.id, methods[1]?.id ?? "", undefined, { metadata: { top_up_id: "tu_search" } });
    const listed = await suite.stripe.paymentIntents.list({ customer: customer.id, created: { gte: 0 } });
    expect(listed.data.map((intent) => intent.id)).toEqual([paid.id, waiting]);
    const found = await suite.stripe.paymentIntents.search({ query: "metadata['top_up_id']:'tu_search'" });
    expect(found.data.map((intent) => intent.id)).toEqual([paid.id]);
    expect((await suite.stripe.paymentIntents.cancel(waiting)).status).toBe("canceled");
    const refused = await thrown(() => suite.stripe.paymentIntents.cancel(paid.id));
    expect(refused.code).toBe("payment_intent_unexpected_state");
  });
});
