import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ProviderRefusedError, type RefundRequest } from "@/lib/billing/provider";
import { systemClock } from "@/lib/clock";
import { type FakeStripe, startFakeStripe } from "@/lib/testing/fake-stripe/server";
import { StripeBillingProvider } from "./provider";
import { disputeStatus, retrieveStripeDispute } from "./refunds-disputes";

/*
 * Refunds and disputes through the official SDK against the test server: what the domain is told
 * about each, and which answers mean "nothing moved" (a refusal) rather than "unknown" (a throw).
 */

const secretKey = "sk_test_points_refunds";
let fake: FakeStripe;
let stripe: Stripe;
let provider: StripeBillingProvider;
const client = (key: string, options: { timeout?: number } = {}) =>
  new Stripe(key, {
    host: fake.host,
    port: fake.port,
    protocol: "http",
    maxNetworkRetries: 0,
    timeout: options.timeout ?? 5_000,
  });

beforeAll(async () => {
  fake = await startFakeStripe({ apiKey: secretKey });
  stripe = client(secretKey);
  provider = new StripeBillingProvider(stripe, systemClock, true);
});
afterAll(async () => fake?.close());
beforeEach(() => fake.control.clearFaults());

/** A payment of `amount` cents on a card of this kind, through the provider as a purchase makes it. */
async function paid(kind = "visa", amount = 1000): Promise<string> {
  const customerId = await provider.createCustomer({
    organizationId: `org_${Math.random().toString(36).slice(2)}`,
    name: "Refunds",
  });
  const [card] = await provider.addCards({ customerId, kinds: [kind] });
  const outcome = await provider.charge({
    idempotencyKey: `topup_${Math.random().toString(36).slice(2)}`,
    customerId,
    paymentMethodId: card?.id ?? "",
    amount,
    currency: "USD",
    metadata: { top_up_id: "tu_1", organization_id: "org_1", reference: "order-1" },
  });
  if (outcome.status !== "succeeded") throw new Error(`The payment did not succeed: ${outcome.status}`);
  return outcome.paymentId;
}

let requests = 0;
function refundRequest(paymentId: string, amount: number): RefundRequest {
  requests += 1;
  return {
    idempotencyKey: `refund_rf_${requests}_${Date.now()}`,
    paymentId,
    amount,
    metadata: { refund_id: `rf_${requests}`, top_up_id: "tu_1", points: "100" },
  };
}

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("refunds", () => {
  it("answers the refund in the service's terms: its request, upper-case currency, succeeded", async () => {
    const paymentId = await paid();
    const request = refundRequest(paymentId, 400);
    const refund = await provider.refund(request);
    expect(refund).toEqual({
      refundId: expect.stringMatching(/^re_/),
      paymentId,
      amount: 400,
      currency: "USD",
      status: "succeeded",
      requestId: request.metadata.refund_id,
      created: expect.any(Date),
    });
  });

  it("refunds once when the same request is sent again under its key", async () => {
    const paymentId = await paid();
    const request = refundRequest(paymentId, 300);
    const first = await provider.refund(request);
    const again = await provider.refund(request);
    expect(again).toEqual(first);
    expect(await provider.listRefunds(paymentId)).toHaveLength(1);
  });

  it("answers Stripe's refusals as refusals, with Stripe's code: nothing moved", async () => {
    const paymentId = await paid();
    expect(await provider.refund(refundRequest(paymentId, 1001))).toEqual({
      refused: true,
      code: "amount_too_large",
      message: expect.any(String),
    });
    await provider.refund(refundRequest(paymentId, 1000));
    expect(await provider.refund(refundRequest(paymentId, 1))).toMatchObject({
      refused: true,
      code: "charge_already_refunded",
    });
    const disputed = await paid("dispute");
    expect(await provider.refund(refundRequest(disputed, 100))).toMatchObject({
      refused: true,
      code: "charge_disputed",
    });
  });

  it("throws when the outcome is unknown (a 500, a dropped or timed-out call), and a re-send under the key refunds once", async () => {
    const paymentId = await paid();
    fake.control.fault({ method: "POST", path: "/v1/refunds", kind: "500_before" });
    expect(await rejection(() => provider.refund(refundRequest(paymentId, 100)))).toMatchObject({
      type: "StripeAPIError",
    });
    const request = refundRequest(paymentId, 200);
    // stripe-node re-sends a reset connection once under the same key: both are dropped here.
    fake.control.fault({ method: "POST", path: "/v1/refunds", kind: "execute_then_drop", times: 2 });
    expect(await rejection(() => provider.refund(request))).toMatchObject({ type: "StripeConnectionError" });
    const slow = new StripeBillingProvider(client(secretKey, { timeout: 300 }), systemClock, true);
    const timed = refundRequest(paymentId, 300);
    fake.control.fault({ method: "POST", path: "/v1/refunds", kind: "execute_then_delay", delayMs: 1_000 });
    expect(await rejection(() => slow.refund(timed))).toMatchObject({ type: "StripeConnectionError" });
    // Stripe made both; re-sent under their keys, each is answered, not made again.
    expect(await provider.refund(request)).toMatchObject({ amount: 200, status: "succeeded" });
    expect(await provider.refund(timed)).toMatchObject({ amount: 300, status: "succeeded" });
    expect((await provider.listRefunds(paymentId)).map((refund) => refund.amount)).toEqual([200, 300]);
  });

  it("throws ProviderRefusedError when Stripe refuses the key", async () => {
    const paymentId = await paid();
    const refused = new StripeBillingProvider(client("sk_test_not_the_key"), systemClock, true);
    expect(await rejection(() => refused.refund(refundRequest(paymentId, 100)))).toBeInstanceOf(ProviderRefusedError);
  });

  it("lists every refund of the payment oldest first, those made at Stripe's dashboard without a request", async () => {
    const paymentId = await paid();
    const other = await paid();
    const ours = await provider.refund(refundRequest(paymentId, 100));
    const atStripe = await provider.testMode.refundAtProvider?.(paymentId, 250);
    await provider.refund(refundRequest(other, 100));
    const last = await provider.refund(refundRequest(paymentId, 50));
    const listed = await provider.listRefunds(paymentId);
    expect(listed.map((refund) => refund.refundId)).toEqual(
      [ours, atStripe, last].map((refund) => (refund && "refundId" in refund ? refund.refundId : null)),
    );
    expect(listed.map((refund) => refund.requestId)).toEqual([
      expect.stringMatching(/^rf_/),
      null,
      expect.stringMatching(/^rf_/),
    ]);
    expect(await provider.listRefunds(await paid())).toEqual([]);
  });
});

describe("disputes", () => {
  const disputeOf = (paymentId: string) => fake.control.disputes({ paymentIntent: paymentId })[0]?.id ?? "";

  it("reads an open dispute: the amount withdrawn, not reinstated", async () => {
    const paymentId = await paid("dispute", 2500);
    const disputeId = disputeOf(paymentId);
    expect(await provider.retrieveDispute(disputeId)).toEqual({
      disputeId,
      paymentId,
      amount: 2500,
      currency: "USD",
      status: "open",
      fundsWithdrawn: true,
      fundsReinstated: false,
      created: expect.any(Date),
    });
  });

  it("settles a dispute in test mode: won reinstates the amount, lost keeps it withdrawn", async () => {
    const winning = await paid("dispute");
    await provider.testMode.settleDispute?.(disputeOf(winning), "won");
    expect(await provider.retrieveDispute(disputeOf(winning))).toMatchObject({
      status: "won",
      fundsWithdrawn: true,
      fundsReinstated: true,
    });
    const losing = await paid("dispute");
    await provider.testMode.settleDispute?.(disputeOf(losing), "lost");
    expect(await provider.retrieveDispute(disputeOf(losing))).toMatchObject({
      status: "lost",
      fundsWithdrawn: true,
      fundsReinstated: false,
    });
    // A closed dispute cannot be settled again.
    await expect(provider.testMode.settleDispute?.(disputeOf(losing), "won")).rejects.toMatchObject({
      statusCode: 400,
    });
  });

  it("answers null for a dispute Stripe does not have", async () => {
    expect(await provider.retrieveDispute("du_nope")).toBeNull();
  });

  it("maps Stripe's statuses: an inquiry closed, or prevented, cost nothing and counts as won", () => {
    expect(disputeStatus("won")).toBe("won");
    expect(disputeStatus("warning_closed")).toBe("won");
    expect(disputeStatus("prevented")).toBe("won");
    expect(disputeStatus("lost")).toBe("lost");
    for (const open of [
      "needs_response",
      "under_review",
      "warning_needs_response",
      "warning_under_review",
      "appeal_needs_response",
    ]) {
      expect(disputeStatus(open)).toBe("open");
    }
  });

  it("finds the payment through the charge when the dispute names none", async () => {
    const stub = {
      disputes: {
        retrieve: async () => ({
          id: "du_1",
          amount: 500,
          currency: "eur",
          status: "needs_response",
          payment_intent: null,
          charge: "ch_1",
          balance_transactions: [],
          created: 1,
        }),
      },
      charges: { retrieve: async (id: string) => ({ id, payment_intent: "pi_9" }) },
    } as unknown as Stripe;
    expect(await retrieveStripeDispute(stub, "du_1")).toMatchObject({
      paymentId: "pi_9",
      currency: "EUR",
      fundsWithdrawn: false,
    });
  });

  it("refuses test-mode actions with a live key, before any request", async () => {
    const before = fake.control.requests().length;
    for (const testServer of [true, false]) {
      const live = new StripeBillingProvider(client("sk_live_points_never"), systemClock, testServer);
      await expect(live.testMode.settleDispute?.("du_any", "won")).rejects.toThrow(
        /Refusing to submit test evidence .*live key/,
      );
      await expect(live.testMode.refundAtProvider?.("pi_any", 100)).rejects.toThrow(/Refusing to refund .*live key/);
    }
    const nowhere = new Stripe("rk_live_points_never", {
      host: "127.0.0.1",
      port: 9,
      protocol: "http",
      maxNetworkRetries: 0,
      timeout: 1_000,
    });
    await expect(
      new StripeBillingProvider(nowhere, systemClock).testMode.settleDispute?.("du_any", "lost"),
    ).rejects.toThrow(/live key/);
    expect(fake.control.requests()).toHaveLength(before);
  });
});
