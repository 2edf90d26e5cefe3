import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type FakeStripe, startFakeStripe } from "./server";

/** The test server and an SDK client of it, started for a test file and cleared of faults before each test. */
export interface FakeStripeSuite {
  readonly fake: FakeStripe;
  readonly stripe: Stripe;
  /** Another SDK client of the same server: retries, a timeout or another key. */
  client(options?: Partial<{ maxNetworkRetries: number; timeout: number; key: string }>): Stripe;
  /** A customer with these test tokens attached, in order. */
  customerWith(...tokens: string[]): Promise<{ customer: Stripe.Customer; methods: Stripe.PaymentMethod[] }>;
}

/** The secret key the suite's client sends (the server takes any test key). */
export const KEY = "sk_test_fake_server_suite";

export function fakeStripeSuite(): FakeStripeSuite {
  let fake: FakeStripe | undefined;
  let stripe: Stripe | undefined;
  const started = () => {
    if (!fake) throw new Error("the fake Stripe server has not started");
    return fake;
  };
  const client: FakeStripeSuite["client"] = (options = {}) =>
    new Stripe(options.key ?? KEY, {
      host: started().host,
      port: started().port,
      protocol: "http",
      maxNetworkRetries: options.maxNetworkRetries ?? 0,
      timeout: options.timeout ?? 5_000,
    });
  beforeAll(async () => {
    fake = await startFakeStripe();
    stripe = client();
  });
  afterAll(async () => fake?.close());
  beforeEach(() => started().control.clearFaults());
  const suite: FakeStripeSuite = {
    get fake() {
      return started();
    },
    get stripe() {
      if (!stripe) throw new Error("the fake Stripe server has not started");
      return stripe;
    },
    client,
    async customerWith(...tokens) {
      const customer = await suite.stripe.customers.create({ name: "Acme", metadata: { organization_id: "org_1" } });
      const methods: Stripe.PaymentMethod[] = [];
      for (const token of tokens)
        methods.push(await suite.stripe.paymentMethods.attach(token, { customer: customer.id }));
      return { customer, methods };
    },
  };
  return suite;
}

/** The Stripe error a call fails with; the test fails if it does not. */
export async function thrown(run: () => Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await run();
  } catch (error) {
    return error as Stripe.errors.StripeError;
  }
  throw new Error("expected the call to fail");
}
