import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeStripe, startFakeStripe } from "./server";

/*
 * The events the test server records when a customer's cards change, shaped as Stripe's: what
 * changed is in data.previous_attributes (a detached card's customer, a customer's default before),
 * and an update that changes nothing records no event.
 */

let fake: FakeStripe;
let stripe: Stripe;

beforeAll(async () => {
  fake = await startFakeStripe();
  stripe = new Stripe("sk_test_card_events", {
    host: fake.host,
    port: fake.port,
    protocol: "http",
    maxNetworkRetries: 0,
  });
});
afterAll(async () => fake?.close());

/** The events recorded while `run` ran, oldest first, as GET /v1/events answers them. */
async function eventsDuring(run: () => Promise<unknown>): Promise<Stripe.Event[]> {
  const before = new Set(fake.control.events().map((event) => event.id));
  await run();
  const all = (await stripe.events.list({ limit: 100 })).data.reverse();
  return all.filter((event) => !before.has(event.id));
}

function summary(event: Stripe.Event) {
  const object = event.data.object as { id: string };
  return [event.type, object.id, event.data.previous_attributes ?? null];
}

describe("card events", () => {
  it("attaches, makes the default, changes it and detaches it, each with what changed", async () => {
    const customer = await stripe.customers.create({ name: "Cards" });
    const visa = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    const mastercard = await stripe.paymentMethods.attach("pm_card_mastercard", { customer: customer.id });
    const setDefault = (id: string) =>
      stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: id } });

    const attached = (
      await eventsDuring(() => stripe.paymentMethods.attach("pm_card_amex", { customer: customer.id }))
    ).map((event) => [
      event.type,
      (event.data.object as Stripe.PaymentMethod).customer,
      event.data.previous_attributes,
    ]);
    expect(attached).toEqual([["payment_method.attached", customer.id, undefined]]);

    expect((await eventsDuring(() => setDefault(visa.id))).map(summary)).toEqual([
      ["customer.updated", customer.id, { invoice_settings: { default_payment_method: null } }],
    ]);
    const changed = await eventsDuring(() => setDefault(mastercard.id));
    expect(changed.map(summary)).toEqual([
      ["customer.updated", customer.id, { invoice_settings: { default_payment_method: visa.id } }],
    ]);
    expect((changed[0]?.data.object as Stripe.Customer | undefined)?.invoice_settings.default_payment_method).toBe(
      mastercard.id,
    );
    // The same default again changes nothing: no event.
    expect(await eventsDuring(() => setDefault(mastercard.id))).toEqual([]);

    // A detached card no longer names its customer; the one it left is in previous_attributes.
    const detachedOther = await eventsDuring(() => stripe.paymentMethods.detach(visa.id));
    expect(detachedOther.map(summary)).toEqual([["payment_method.detached", visa.id, { customer: customer.id }]]);
    expect((detachedOther[0]?.data.object as Stripe.PaymentMethod | undefined)?.customer).toBeNull();

    // Detaching the default card leaves the customer with none: the customer is updated too.
    expect((await eventsDuring(() => stripe.paymentMethods.detach(mastercard.id))).map(summary)).toEqual([
      ["payment_method.detached", mastercard.id, { customer: customer.id }],
      ["customer.updated", customer.id, { invoice_settings: { default_payment_method: mastercard.id } }],
    ]);
  });

  it("says what an update changed: a name, metadata, a card's expiry; and nothing for an update that changes nothing", async () => {
    const customer = await stripe.customers.create({ name: "Before", metadata: { kept: "1", changed: "a" } });
    const renamed = await eventsDuring(() =>
      stripe.customers.update(customer.id, { name: "After", metadata: { changed: "b" } }),
    );
    expect(renamed.map(summary)).toEqual([
      ["customer.updated", customer.id, { name: "Before", metadata: { changed: "a" } }],
    ]);
    expect(await eventsDuring(() => stripe.customers.update(customer.id, { name: "After" }))).toEqual([]);

    const card = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    const expiry = await eventsDuring(() => stripe.paymentMethods.update(card.id, { card: { exp_month: 3 } }));
    expect(expiry.map(summary)).toEqual([["payment_method.updated", card.id, { card: { exp_month: 12 } }]]);
  });
});
