import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderRefusedError, ProviderUnavailableError } from "@/lib/billing/provider";
import { systemClock } from "@/lib/clock";
import { type FakeStripe, startFakeStripe } from "@/lib/testing/fake-stripe/server";
import { StripeBillingProvider } from "./provider";

/*
 * What Stripe's errors mean to the service, through the official SDK against the test server:
 * a customer Stripe no longer knows and a refused key are lasting refusals (an operator must act),
 * while a 5xx is an outage to wait out.
 */
describe("Stripe's refusals and outages", () => {
  const secretKey = "sk_test_points_refusals";
  let fake: FakeStripe;
  let stripe: Stripe;
  let provider: StripeBillingProvider;
  const client = (key: string) =>
    new Stripe(key, { host: fake.host, port: fake.port, protocol: "http", maxNetworkRetries: 0, timeout: 5_000 });

  beforeAll(async () => {
    fake = await startFakeStripe({ apiKey: secretKey });
    stripe = client(secretKey);
    provider = new StripeBillingProvider(stripe, systemClock, true);
  });
  afterAll(async () => fake?.close());

  async function customerWithCard(): Promise<string> {
    const customer = await stripe.customers.create({ name: "Refusals" });
    await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    return customer.id;
  }

  async function thrown(run: () => Promise<unknown>): Promise<unknown> {
    return run().then(
      () => {
        throw new Error("expected a rejection");
      },
      (error: unknown) => error,
    );
  }

  it("a deleted customer: listing its cards is customer_missing, with Stripe's request id and code", async () => {
    const customerId = await customerWithCard();
    expect(await provider.listPaymentMethods(customerId)).toHaveLength(1);
    provider.invalidatePaymentMethods(customerId);
    await stripe.customers.del(customerId);

    const error = await thrown(() => provider.listPaymentMethods(customerId));
    expect(error).toBeInstanceOf(ProviderRefusedError);
    expect(error).toMatchObject({ reason: "customer_missing", customerId });
    expect((error as ProviderRefusedError).providerRequestId).toMatch(/^req_/);
    expect(["resource_missing", "customer_deleted"]).toContain((error as ProviderRefusedError).providerCode);
    expect(await provider.customerExists(customerId)).toBe(false);
  });

  it("a customer Stripe never had (keys moved from test to live): customer_missing, resource_missing", async () => {
    const error = await thrown(() => provider.listPaymentMethods("cus_neverexisted"));
    expect(error).toMatchObject({
      reason: "customer_missing",
      customerId: "cus_neverexisted",
      providerCode: "resource_missing",
    });
    expect(await provider.customerExists("cus_neverexisted")).toBe(false);
    // Adding a card on Checkout and choosing a default are refused the same way, not as unknown failures.
    await expect(
      provider.startCardSetup("cus_neverexisted", { successUrl: "http://x/ok", cancelUrl: "http://x/no" }),
    ).rejects.toMatchObject({ reason: "customer_missing" });
    await expect(provider.setDefaultPaymentMethod("cus_neverexisted", null)).rejects.toMatchObject({
      reason: "customer_missing",
    });
  });

  it("a refused key (401): credentials_refused for cards, prices and the startup check, without the key", async () => {
    const refused = new StripeBillingProvider(client("sk_test_not_the_key"), systemClock, true);
    for (const call of [
      () => refused.listPaymentMethods("cus_any"),
      () => refused.getPrices(),
      () => refused.checkCredentials(2_000),
    ]) {
      const error = await thrown(call);
      expect(error).toBeInstanceOf(ProviderRefusedError);
      expect(error).toMatchObject({ reason: "credentials_refused", providerCode: "authentication_error" });
      expect((error as ProviderRefusedError).providerRequestId).toMatch(/^req_/);
      expect(JSON.stringify(error)).not.toContain("sk_test_not");
      expect((error as Error).message).not.toContain("sk_test_not");
    }
    await provider.checkCredentials(2_000);
  });

  it("a 500 (on the customer, the cards or the prices) is an outage, never a refusal", async () => {
    const customerId = await customerWithCard();
    fake.control.fault({ method: "GET", path: `/v1/customers/${customerId}`, kind: "500_before" });
    await expect(provider.listPaymentMethods(customerId)).rejects.toBeInstanceOf(ProviderUnavailableError);
    fake.control.fault({ method: "GET", path: "/v1/payment_methods", kind: "500_before" });
    await expect(provider.listPaymentMethods(customerId)).rejects.toBeInstanceOf(ProviderUnavailableError);
    fake.control.fault({ method: "GET", path: "/v1/prices", kind: "500_before" });
    await expect(provider.getPrices()).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(await provider.listPaymentMethods(customerId)).toHaveLength(1);
  });
});

describe("the test server answers a deleted or unknown customer as Stripe does", () => {
  let fake: FakeStripe;
  beforeAll(async () => {
    fake = await startFakeStripe();
  });
  afterAll(async () => fake?.close());

  const call = async (method: string, path: string, body?: string) => {
    const response = await fetch(`${fake.url}${path}`, {
      method,
      headers: { Authorization: "Bearer sk_test_answers", "Content-Type": "application/x-www-form-urlencoded" },
      body,
    });
    return {
      status: response.status,
      requestId: response.headers.get("request-id"),
      body: (await response.json()) as { id?: string; customer?: unknown; error?: unknown },
    };
  };

  it("DELETE detaches its cards; then GET is a deleted stub and every other call 404 No such customer", async () => {
    const created = await call("POST", "/v1/customers", "name=Gone");
    const id = created.body.id as string;
    const card = await call("POST", "/v1/payment_methods/pm_card_visa/attach", `customer=${id}`);
    expect((await call("DELETE", `/v1/customers/${id}`)).body).toEqual({ id, object: "customer", deleted: true });

    expect((await call("GET", `/v1/customers/${id}`)).body).toEqual({ id, object: "customer", deleted: true });
    expect((await call("GET", `/v1/payment_methods/${card.body.id}`)).body.customer).toBeNull();
    const missing = (param: string) => ({
      error: expect.objectContaining({
        type: "invalid_request_error",
        code: "resource_missing",
        param,
        message: `No such customer: '${id}'`,
      }),
    });
    const answers = [
      [await call("POST", `/v1/customers/${id}`, "name=x"), "id"],
      [await call("GET", `/v1/payment_methods?customer=${id}&type=card`), "customer"],
      [await call("GET", `/v1/customers/${id}/payment_methods`), "id"],
      [await call("POST", "/v1/payment_methods/pm_card_visa/attach", `customer=${id}`), "customer"],
      [await call("POST", "/v1/payment_intents", `amount=100&currency=usd&customer=${id}`), "customer"],
      [
        await call(
          "POST",
          "/v1/checkout/sessions",
          `mode=setup&currency=usd&customer=${id}&success_url=http://x&cancel_url=http://x`,
        ),
        "customer",
      ],
    ] as const;
    for (const [answer, param] of answers) {
      expect(answer.status).toBe(404);
      expect(answer.requestId).toMatch(/^req_/);
      expect(answer.body).toEqual(missing(param));
    }
  });
});
