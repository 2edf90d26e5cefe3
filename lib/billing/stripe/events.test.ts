import Stripe from "stripe";
import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "@/lib/clock";
import { billingEventOf } from "./events";
import { StripeBillingProvider } from "./provider";

function event(type: string, object: Record<string, unknown>, previous?: Record<string, unknown>): Stripe.Event {
  const data = previous ? { object, previous_attributes: previous } : { object };
  return { id: "evt_1", object: "event", type, data } as unknown as Stripe.Event;
}

describe("Stripe events as billing events", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("turns each PaymentIntent event into its payment event, with the intent, its customer and its top-up", () => {
    const intent = { id: "pi_1", object: "payment_intent", customer: { id: "cus_1" }, metadata: { top_up_id: "tu_1" } };
    const kinds = [
      ["payment_intent.succeeded", "payment_succeeded"],
      ["payment_intent.payment_failed", "payment_failed"],
      ["payment_intent.requires_action", "payment_requires_action"],
      ["payment_intent.canceled", "payment_canceled"],
    ];
    for (const [type, kind] of kinds) {
      expect(billingEventOf(event(type ?? "", intent))).toEqual({
        id: "evt_1",
        type,
        kind,
        paymentId: "pi_1",
        customerId: "cus_1",
        topUpId: "tu_1",
      });
    }
    expect(billingEventOf(event("payment_intent.succeeded", { ...intent, metadata: {} }))).toMatchObject({
      topUpId: null,
    });
    // An off-session attempt that needs the cardholder: a failure at Stripe, awaiting the cardholder here.
    const needsAuthentication = {
      ...intent,
      status: "requires_payment_method",
      last_payment_error: {
        type: "card_error",
        code: "authentication_required",
        decline_code: "authentication_required",
        message: "Authenticate.",
      },
    };
    expect(billingEventOf(event("payment_intent.payment_failed", needsAuthentication))).toMatchObject({
      kind: "payment_requires_action",
    });
    // Still processing is no news for a purchase that is processing already.
    expect(billingEventOf(event("payment_intent.processing", intent))).toMatchObject({ kind: "ignored" });
  });

  it("says which customer's cards changed, and when a card was set up at Checkout", () => {
    expect(
      billingEventOf(event("payment_method.detached", { id: "pm_1", object: "payment_method", customer: "cus_2" })),
    ).toMatchObject({
      kind: "payment_methods_changed",
      customerId: "cus_2",
    });
    expect(billingEventOf(event("customer.updated", { id: "cus_3", object: "customer" }))).toMatchObject({
      kind: "payment_methods_changed",
      customerId: "cus_3",
    });
    const session = { id: "cs_1", object: "checkout.session", mode: "setup", customer: "cus_4" };
    expect(billingEventOf(event("checkout.session.completed", session))).toMatchObject({
      kind: "card_setup_completed",
      customerId: "cus_4",
    });
    expect(billingEventOf(event("checkout.session.completed", { ...session, mode: "payment" }))).toMatchObject({
      kind: "ignored",
      reason: "not a card set up for an organisation",
    });
  });

  it("says how a customer's cards changed: a card attached, a card detached, a new default or none", () => {
    const card = { id: "pm_1", object: "payment_method", customer: "cus_1" };
    expect(billingEventOf(event("payment_method.attached", card))).toEqual({
      id: "evt_1",
      type: "payment_method.attached",
      kind: "payment_methods_changed",
      customerId: "cus_1",
      change: { change: "added", paymentMethodId: "pm_1" },
    });
    // Detached, the card names no customer: the one it left is in previous_attributes.
    const detached = event("payment_method.detached", { ...card, customer: null }, { customer: "cus_1" });
    expect(billingEventOf(detached)).toMatchObject({
      customerId: "cus_1",
      change: { change: "removed", paymentMethodId: "pm_1" },
    });
    const customer = (defaultId: string | null) => ({
      id: "cus_1",
      object: "customer",
      invoice_settings: { default_payment_method: defaultId },
    });
    const changed = (before: string | null) => ({ invoice_settings: { default_payment_method: before } });
    expect(billingEventOf(event("customer.updated", customer("pm_2"), changed("pm_1")))).toMatchObject({
      customerId: "cus_1",
      change: { change: "default", paymentMethodId: "pm_2", previousId: "pm_1" },
    });
    expect(billingEventOf(event("customer.updated", customer("pm_2"), changed(null)))).toMatchObject({
      change: { change: "default", paymentMethodId: "pm_2", previousId: null },
    });
    expect(billingEventOf(event("customer.updated", customer(null), changed("pm_2")))).toMatchObject({
      change: { change: "default", paymentMethodId: null, previousId: "pm_2" },
    });
    // Any other change only makes the cached cards stale: a name, an expiry, a customer deleted.
    const refreshOnly = [
      event("customer.updated", customer("pm_2"), { name: "Before" }),
      event("customer.updated", customer("pm_2"), { invoice_settings: { footer: null } }),
      event("payment_method.updated", card, { card: { exp_month: 12 } }),
      event("payment_method.automatically_updated", card),
      event("customer.deleted", customer(null)),
    ];
    for (const stale of refreshOnly) {
      expect(billingEventOf(stale)).toEqual({
        id: "evt_1",
        type: stale.type,
        kind: "payment_methods_changed",
        customerId: "cus_1",
      });
    }
    // A detached card whose event names no customer at all: every customer's cached cards go.
    expect(billingEventOf(event("payment_method.detached", { ...card, customer: null }))).toEqual({
      id: "evt_1",
      type: "payment_method.detached",
      kind: "payment_methods_changed",
      customerId: null,
    });
  });

  it("says a payment's refunds may have changed, from a Charge's event or a Refund's", () => {
    const charge = { id: "ch_1", object: "charge", payment_intent: "pi_1", customer: "cus_1" };
    expect(billingEventOf(event("charge.refunded", charge))).toEqual({
      id: "evt_1",
      type: "charge.refunded",
      kind: "refunds_changed",
      paymentId: "pi_1",
      customerId: "cus_1",
    });
    const refund = { id: "re_1", object: "refund", payment_intent: { id: "pi_2" }, customer: null };
    for (const type of ["charge.refund.updated", "refund.created", "refund.updated", "refund.failed"]) {
      expect(billingEventOf(event(type, refund))).toEqual({
        id: "evt_1",
        type,
        kind: "refunds_changed",
        paymentId: "pi_2",
        customerId: null,
      });
    }
    // A refund of a charge made without a PaymentIntent is no purchase of this service's.
    expect(billingEventOf(event("refund.created", { ...refund, payment_intent: null }))).toMatchObject({
      kind: "ignored",
      reason: "a refund with no PaymentIntent",
    });
    expect(billingEventOf(event("charge.refunded", { ...charge, payment_intent: null }))).toMatchObject({
      kind: "ignored",
      reason: "a charge with no PaymentIntent",
    });
  });

  it("says which dispute changed, and on which payment, for each dispute event", () => {
    const dispute = { id: "du_1", object: "dispute", payment_intent: "pi_3", charge: "ch_3" };
    const types = [
      "charge.dispute.created",
      "charge.dispute.updated",
      "charge.dispute.closed",
      "charge.dispute.funds_withdrawn",
      "charge.dispute.funds_reinstated",
    ];
    for (const type of types) {
      expect(billingEventOf(event(type, dispute))).toEqual({
        id: "evt_1",
        type,
        kind: "dispute_changed",
        disputeId: "du_1",
        paymentId: "pi_3",
      });
    }
    expect(billingEventOf(event("charge.dispute.created", { ...dispute, payment_intent: null }))).toMatchObject({
      kind: "ignored",
      reason: "a dispute with no PaymentIntent",
    });
  });

  it("ignores a refund or dispute event whose object is not what its type promises", () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(
      billingEventOf(event("charge.refunded", { id: "re_1", object: "refund", payment_intent: "pi_1" })),
    ).toMatchObject({
      kind: "ignored",
      reason: "not a charge",
    });
    expect(
      billingEventOf(event("refund.created", { id: "ch_1", object: "charge", payment_intent: "pi_1" })),
    ).toMatchObject({
      kind: "ignored",
      reason: "not a refund",
    });
    expect(
      billingEventOf(event("charge.dispute.closed", { id: "ch_1", object: "charge", payment_intent: "pi_1" })),
    ).toMatchObject({
      kind: "ignored",
      reason: "not a dispute",
    });
  });

  it("ignores other events, and an object that is not what its type promises, saying why", () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(billingEventOf(event("invoice.paid", { id: "in_1", object: "invoice" }))).toEqual({
      id: "evt_1",
      type: "invoice.paid",
      kind: "ignored",
      reason: "not an event this service acts on",
    });
    expect(billingEventOf(event("payment_intent.succeeded", { id: "ch_1", object: "charge" }))).toMatchObject({
      kind: "ignored",
      reason: "not a payment_intent",
    });
  });

  it("drops the provider's cached card list when an event says the cards changed", async () => {
    const secret = "whsec_events_test";
    const stripe = new Stripe("sk_test_unused");
    const payload = JSON.stringify(
      event("payment_method.attached", { id: "pm_1", object: "payment_method", customer: "cus_5" }),
    );
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret });
    const request = new Request("http://127.0.0.1/api/stripe/webhook", {
      method: "POST",
      body: payload,
      headers: { "Stripe-Signature": header },
    });
    const provider = new StripeBillingProvider(stripe, systemClock, false, secret);
    const drop = vi.spyOn(provider, "invalidatePaymentMethods");
    expect(await provider.verifyWebhook(request, new Date())).toMatchObject({
      kind: "event",
      event: { kind: "payment_methods_changed", customerId: "cus_5" },
    });
    expect(drop).toHaveBeenCalledWith("cus_5");
  });
});
