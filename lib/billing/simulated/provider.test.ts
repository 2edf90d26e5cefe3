import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simPaymentMethods } from "@/lib/db/schema";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { SIMULATED_PRICES } from "../prices";
import type { ChargeRequest } from "../provider";
import { ProviderRefusedError, ProviderUnavailableError } from "../provider";
import type { TestCardKind } from "../test-cards";

describe.each(backends())("SimulatedBillingProvider on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  let keyCounter = 0;

  /** A fresh customer holding one card of each kind asked for, and a charge request for the first. */
  async function customerWith(kinds: TestCardKind[], defaultIndex?: number) {
    const customerId = await ctx.provider.createCustomer({ organizationId: "org_test", name: "Test" });
    const methods = await ctx.provider.addCards({ customerId, kinds, defaultIndex });
    const request = (index = 0, change: Partial<ChargeRequest> = {}): ChargeRequest => ({
      idempotencyKey: `topup_test_${backend}_${++keyCounter}`,
      customerId,
      paymentMethodId: methods[index]?.id ?? "pm_missing",
      amount: 1000,
      currency: "USD",
      metadata: { top_up_id: "tu_test", organization_id: "org_test", reference: "ref" },
      ...change,
    });
    return { customerId, methods, request };
  }

  describe("idempotency", () => {
    it("a replay under the same key returns the same payment and never executes twice", async () => {
      const { customerId, request } = await customerWith(["visa"]);
      const charge = request();
      const first = await ctx.provider.charge(charge);
      const second = await ctx.provider.charge(charge);
      expect(first).toEqual({ status: "succeeded", paymentId: expect.stringMatching(/^pi_sim_/) });
      expect(second).toEqual(first);
      expect(await ctx.provider.countPayments({ idempotencyKey: charge.idempotencyKey })).toBe(1);
      expect(await ctx.provider.countPayments({ customerId })).toBe(1);
    });

    it("a replay of a declined charge returns the stored decline, not a new attempt", async () => {
      const { customerId, request } = await customerWith(["declined"]);
      const charge = request();
      const first = await ctx.provider.charge(charge);
      expect(first).toMatchObject({ status: "failed", code: "card_declined" });
      expect(await ctx.provider.charge(charge)).toEqual(first);
      expect(await ctx.provider.countPayments({ customerId })).toBe(1);
    });

    it("different keys are different payments", async () => {
      const { customerId, request } = await customerWith(["visa"]);
      const a = await ctx.provider.charge(request());
      const b = await ctx.provider.charge(request());
      expect(a.paymentId).not.toBe(b.paymentId);
      expect(await ctx.provider.countPayments({ customerId })).toBe(2);
    });

    it.each([
      ["amount", { amount: 2000 }],
      ["currency", { currency: "EUR" }],
      ["payment method", { paymentMethodId: "second" }],
    ] as const)("different %s under the same key throws and executes nothing more", async (_label, change) => {
      const { customerId, methods, request } = await customerWith(["visa", "mastercard"]);
      const charge = request();
      await ctx.provider.charge(charge);
      const drifted: ChargeRequest = { ...charge, ...change };
      if (drifted.paymentMethodId === "second") drifted.paymentMethodId = methods[1]?.id ?? "";
      await expect(ctx.provider.charge(drifted)).rejects.toThrow(/reused with different parameters/);
      expect(await ctx.provider.countPayments({ customerId })).toBe(1);
    });
  });

  describe("test cards", () => {
    it.each([
      ["visa", { status: "succeeded" }],
      ["mastercard", { status: "succeeded" }],
      ["declined", { status: "failed", code: "card_declined" }],
      ["insufficient_funds", { status: "failed", code: "insufficient_funds" }],
      ["authentication_required", { status: "requires_action", code: "authentication_required" }],
      ["processing", { status: "processing" }],
      ["expired", { status: "failed", code: "expired_card" }],
    ] as const)("%s charges as %o", async (kind, expected) => {
      const { request } = await customerWith([kind]);
      const outcome = await ctx.provider.charge(request());
      expect(outcome).toMatchObject(expected);
      expect(outcome.paymentId).toMatch(/^pi_sim_/);
    });

    it("a method of another customer fails as invalid_payment_method", async () => {
      const mine = await customerWith(["visa"]);
      const theirs = await customerWith(["visa"]);
      const outcome = await ctx.provider.charge(mine.request(0, { paymentMethodId: theirs.methods[0]?.id }));
      expect(outcome).toMatchObject({ status: "failed", code: "invalid_payment_method" });
    });

    it("a detached method is neither listed nor charged", async () => {
      const { customerId, methods, request } = await customerWith(["visa", "mastercard"]);
      const detached = methods[0]?.id ?? "";
      await ctx.db
        .update(simPaymentMethods)
        .set({ detachedAt: ctx.clock.now() })
        .where(eq(simPaymentMethods.id, detached));
      expect((await ctx.provider.listPaymentMethods(customerId)).map((m) => m.id)).toEqual([methods[1]?.id]);
      expect(await ctx.provider.charge(request(0))).toMatchObject({ status: "failed", code: "invalid_payment_method" });
    });

    it("lists cards in the order they were added, marking the default", async () => {
      const { customerId, methods } = await customerWith(["visa", "mastercard", "declined"], 1);
      const listed = await ctx.provider.listPaymentMethods(customerId);
      expect(listed.map((m) => [m.id, m.kind, m.isDefault])).toEqual([
        [methods[0]?.id, "visa", false],
        [methods[1]?.id, "mastercard", true],
        [methods[2]?.id, "declined", false],
      ]);
    });

    it("gives an expired card an expiry before the current month and others one in the future", async () => {
      const { customerId } = await customerWith(["expired", "visa"]);
      const [expired, visa] = await ctx.provider.listPaymentMethods(customerId);
      const now = ctx.clock.now();
      const monthIndex = (m: { expYear: number; expMonth: number } | undefined) =>
        m ? m.expYear * 12 + m.expMonth : 0;
      const currentMonth = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
      expect(monthIndex(expired)).toBeLessThan(currentMonth);
      expect(monthIndex(visa)).toBeGreaterThan(currentMonth);
    });

    it("refuses to add an unknown card kind", async () => {
      const customerId = await ctx.provider.createCustomer({ organizationId: "org_x", name: "X" });
      await expect(ctx.provider.addCards({ customerId, kinds: ["amex"] })).rejects.toThrow(/Unknown test card/);
    });
  });

  describe("payments that settle later", () => {
    it("a processing payment settles to succeeded when retrieved, without a new payment", async () => {
      const { customerId, request } = await customerWith(["processing"]);
      const charge = request();
      const first = await ctx.provider.charge(charge);
      expect(first.status).toBe("processing");
      if (!first.paymentId) throw new Error("A processing payment must have an id");
      expect(await ctx.provider.retrievePayment(first.paymentId)).toEqual({
        status: "succeeded",
        paymentId: first.paymentId,
      });
      expect(await ctx.provider.retrievePayment(first.paymentId)).toEqual({
        status: "succeeded",
        paymentId: first.paymentId,
      });
      // A replay of the original charge now reports the settled payment.
      expect(await ctx.provider.charge(charge)).toEqual({ status: "succeeded", paymentId: first.paymentId });
      expect(await ctx.provider.countPayments({ customerId })).toBe(1);
    });

    it("a payment awaiting authentication stays so on retrieve until authentication completes", async () => {
      const { request } = await customerWith(["authentication_required"]);
      const first = await ctx.provider.charge(request());
      if (!first.paymentId) throw new Error("A payment awaiting authentication must have an id");
      expect((await ctx.provider.retrievePayment(first.paymentId)).status).toBe("requires_action");
      expect(await ctx.provider.completeAuthentication(first.paymentId, true)).toEqual({
        status: "succeeded",
        paymentId: first.paymentId,
      });
      // Completing again changes nothing: it is no longer awaiting authentication.
      expect((await ctx.provider.completeAuthentication(first.paymentId, false)).status).toBe("succeeded");
    });

    it("a failed authentication fails the payment for good", async () => {
      const { request } = await customerWith(["authentication_required"]);
      const first = await ctx.provider.charge(request());
      if (!first.paymentId) throw new Error("A payment awaiting authentication must have an id");
      expect(await ctx.provider.completeAuthentication(first.paymentId, false)).toMatchObject({
        status: "failed",
        code: "authentication_failed",
      });
      expect((await ctx.provider.retrievePayment(first.paymentId)).status).toBe("failed");
    });

    it("retrieving an unknown payment throws rather than inventing an outcome", async () => {
      await expect(ctx.provider.retrievePayment("pi_sim_unknown")).rejects.toThrow(/No such payment/);
    });
  });

  describe("a simulated outage", () => {
    it("affects only the listing of payment methods: prices, charges and retrieval still answer", async () => {
      const { customerId, request } = await customerWith(["visa"], 0);
      await ctx.provider.setOutage(customerId, true);

      await expect(ctx.provider.listPaymentMethods(customerId)).rejects.toBeInstanceOf(ProviderUnavailableError);
      expect(await ctx.provider.listPaymentMethods(customerId, { ignoreOutage: true })).toHaveLength(1);
      expect(await ctx.provider.getPrices()).toEqual(SIMULATED_PRICES);
      const outcome = await ctx.provider.charge(request());
      expect(outcome.status).toBe("succeeded");
      expect((await ctx.provider.retrievePayment(outcome.paymentId ?? "")).status).toBe("succeeded");

      await ctx.provider.setOutage(customerId, false);
      expect(await ctx.provider.listPaymentMethods(customerId)).toHaveLength(1);
    });

    it("affects only the customer it was set for", async () => {
      const down = await customerWith(["visa"]);
      const up = await customerWith(["visa"]);
      await ctx.provider.setOutage(down.customerId, true);
      await expect(ctx.provider.listPaymentMethods(down.customerId)).rejects.toBeInstanceOf(ProviderUnavailableError);
      expect(await ctx.provider.listPaymentMethods(up.customerId)).toHaveLength(1);
    });

    it("an unknown customer is refused for good, not as an outage, and is not said to exist", async () => {
      const error = await ctx.provider.listPaymentMethods("cus_sim_unknown").catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ProviderRefusedError);
      expect(error).toMatchObject({ reason: "customer_missing", customerId: "cus_sim_unknown" });
      expect(await ctx.provider.customerExists("cus_sim_unknown")).toBe(false);
      expect(await ctx.provider.customerExists((await customerWith([])).customerId)).toBe(true);
    });
  });

  it("prices every bundle in every currency as a positive whole number of minor units", async () => {
    const prices = await ctx.provider.getPrices();
    for (const table of Object.values(prices)) {
      for (const points of [100, 250, 500, 1000, 2500, 5000, 7500] as const) {
        expect(Number.isInteger(table[points]) && (table[points] ?? 0) > 0).toBe(true);
      }
    }
  });
});
