import { and, eq } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SIMULATED_PRICES } from "@/lib/billing/simulated";
import type { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import { topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import type { FakeStripe } from "@/lib/testing/fake-stripe/server";
import { backends, createTestContext, startStripeTestProvider, type TestContext } from "@/lib/testing/harness";
import { expectBooksBalance } from "@/lib/testing/invariants";
import { beginAuthentication } from "./complete-authentication";
import { PointsError } from "./errors";
import { createOrganization, getOrganization } from "./organizations";
import {
  DEFAULT_LEASE_MS,
  KEY_RESEND_WINDOW_MS,
  type PurchasePhase,
  type PurchaseResult,
  purchasePoints,
  reconcileTopUps,
  SimulatedCrash,
  AWAITING_PAYMENT_EXPIRES_MS,
} from "./purchase";
import type { Services } from "./services";

/*
 * The purchase service with Stripe as the billing provider, through the official SDK, against the
 * Stripe-compatible test server: every outcome, fault and crash of RELIABILITY.md §6 ends with at
 * most one PaymentIntent that succeeded per purchase and exactly one credit per paid purchase.
 */
describe.each(backends())("purchases through Stripe (%s)", (backend) => {
  let ctx: TestContext;
  let fake: FakeStripe;
  let stripe: Stripe;
  let services: Services;
  let provider: StripeBillingProvider;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
    const started = await startStripeTestProvider(ctx.clock);
    fake = started.fake;
    stripe = started.stripe;
    provider = started.provider;
    services = { db: ctx.db, clock: ctx.clock, provider };
  });
  afterAll(async () => {
    await fake?.close();
    await ctx?.close();
  });

  const created: string[] = [];
  afterEach(async () => {
    fake.control.clearFaults();
    fake.control.releaseHeld();
    for (const id of created.splice(0)) {
      await expectBooksBalance(ctx.db, id);
      await expectOneSucceededIntentPerPaidTopUp(id);
    }
  });

  /** RELIABILITY.md I1/I4: per top-up at most one succeeded PaymentIntent, and one exactly when paid. */
  async function expectOneSucceededIntentPerPaidTopUp(organizationId: string) {
    const organization = await getOrganization(ctx.db, organizationId);
    const intents = fake.control.paymentIntents({ customer: organization?.billingCustomerId });
    const rows = await ctx.db.select().from(topUps).where(eq(topUps.organizationId, organizationId));
    for (const row of rows) {
      const succeeded = intents.filter((intent) => intent.metadata.top_up_id === row.id && intent.status === "succeeded");
      expect(succeeded.length, `succeeded PaymentIntents of ${row.reference}`).toBe(row.status === "paid" ? 1 : 0);
    }
  }

  async function setup(cards: string[] = ["visa"]) {
    const result = await createOrganization(services, {
      name: `Stripe ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards,
      defaultCardIndex: 0,
    });
    created.push(result.organization.id);
    const organizationId = result.organization.id;
    const customer = result.organization.billingCustomerId;
    const buy = async (
      request: { points?: 100 | 250 | 500; reference?: string; paymentSourceId?: string; currency?: "USD" | "GBP" } = {},
      using: Services = services,
      options: Parameters<typeof purchasePoints>[2] = {},
    ): Promise<PurchaseResult> => {
      const organization = await getOrganization(ctx.db, organizationId);
      if (!organization) throw new Error("organisation vanished");
      return purchasePoints(
        using,
        {
          organization,
          request: {
            points: request.points ?? 100,
            reference: request.reference ?? "ref-1",
            paymentSourceId: request.paymentSourceId,
            currency: request.currency,
          },
          source: "api",
        },
        options,
      );
    };
    const intents = () => fake.control.paymentIntents({ customer });
    const creates = () => fake.control.requests({ method: "POST", path: "/v1/payment_intents" }).filter((entry) => entry.path === "/v1/payment_intents");
    const row = async (reference = "ref-1") => {
      const [found] = await ctx.db
        .select()
        .from(topUps)
        .where(and(eq(topUps.organizationId, organizationId), eq(topUps.reference, reference)));
      if (!found) throw new Error(`no top-up ${reference}`);
      return found;
    };
    return { ...result, customer, buy, intents, creates, row, cardIds: result.paymentMethods.map((method) => method.id) };
  }

  function quietly<T>(run: () => Promise<T>): Promise<T> {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    return run().finally(() => warn.mockRestore());
  }

  it("pays with one off-session PaymentIntent under the purchase's key, priced by Stripe", async () => {
    const { buy, intents, creates, cardIds, customer } = await setup(["visa"]);
    const before = creates().length;
    const result = await buy({ points: 250, currency: "GBP" });
    expect(result.outcome).toBe("paid_now");
    expect(result.topUp.amount).toBe(SIMULATED_PRICES.GBP[250]);
    const [intent] = intents();
    expect(intent).toMatchObject({
      status: "succeeded",
      amount: SIMULATED_PRICES.GBP[250],
      currency: "gbp",
      customer,
      payment_method: cardIds[0],
      metadata: { top_up_id: result.topUp.id, reference: "ref-1" },
    });
    const [sent] = creates().slice(before);
    expect(sent?.idempotencyKey).toBe(`topup_${result.topUp.id}`);
    // The same request again: the stored purchase, no call that could charge.
    const replay = await buy({ points: 250, currency: "GBP" });
    expect([replay.outcome, replay.replayed]).toEqual(["paid", true]);
    expect(creates().length).toBe(before + 1);
  });

  it.each([
    ["declined", "card_declined"],
    ["insufficient_funds", "insufficient_funds"],
  ])("a %s card fails with failure.code %s, and a replay sends nothing", async (kind, code) => {
    const { buy, creates } = await setup([kind]);
    const result = await buy();
    expect([result.outcome, result.topUp.failureCode]).toEqual(["failed", code]);
    const sent = creates().length;
    expect((await buy()).outcome).toBe("failed");
    expect(creates().length).toBe(sent);
  });

  it.each([
    [true, "paid"],
    [false, "failed"],
  ] as const)(
    "authentication finished on Stripe's page (succeeded: %s) settles the SAME PaymentIntent",
    async (succeed, status) => {
      const { buy, intents, creates, row, organization } = await setup(["authentication_required"]);
      const first = await buy();
      expect([first.outcome, first.topUp.failureCode]).toEqual(["awaiting_payment", "authentication_required"]);
      const started = await beginAuthentication(services, {
        organizationId: organization.id,
        topUpId: first.topUp.id,
        returnUrl: "http://127.0.0.1:3000/dashboard/buy/back",
      });
      if (!("redirectUrl" in started)) throw new Error("expected a 3-D Secure page");
      const answer = await fetch(started.redirectUrl.replace(/\?.*$/, `/${succeed ? "complete" : "fail"}`), {
        method: "POST",
        redirect: "manual",
      });
      expect(answer.headers.get("location")).toContain("http://127.0.0.1:3000/dashboard/buy/back?payment_intent=");
      const sent = creates().length;
      const retried = await buy();
      expect(retried.topUp.status).toBe(status);
      expect(creates().length).toBe(sent);
      expect(intents()).toHaveLength(1);
      expect((await row()).providerPaymentId).toBe(intents()[0]?.id);
    },
  );

  it.each([
    ["the connection dropped after the charge", { kind: "execute_then_drop", times: 2 }, 1],
    ["a 500 before the charge", { kind: "500_before" }, 0],
    ["a 500 stored after the charge (a poisoned key)", { kind: "execute_then_500" }, 1],
  ] as const)("%s: unresolved, then a retry settles it with one PaymentIntent", async (_, fault, executed) => {
    const { buy, intents } = await setup(["visa"]);
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", ...fault });
    const first = await quietly(() => buy());
    expect([first.outcome, first.topUp.status]).toEqual(["unresolved", "processing"]);
    expect(intents()).toHaveLength(executed);
    const retried = await buy();
    expect(retried.outcome).toBe("paid_now");
    expect(intents()).toHaveLength(1);
  });

  it("a processing PaymentIntent is unresolved, and paid when asked again", async () => {
    const { buy, creates } = await setup(["processing"]);
    expect((await buy()).outcome).toBe("unresolved");
    const sent = creates().length;
    expect((await buy()).outcome).toBe("paid_now");
    expect(creates().length).toBe(sent);
  });

  it.each<PurchasePhase>(["recorded", "charge_marked", "charged", "outcome_recorded"])(
    "a crash after %s is recovered by a retry with one PaymentIntent and one credit",
    async (phase) => {
      const { buy, intents } = await setup(["visa"]);
      const crash = { afterPhase: (reached: PurchasePhase) => { if (reached === phase) throw new SimulatedCrash(phase); } };
      await expect(buy({}, services, crash)).rejects.toBeInstanceOf(SimulatedCrash);
      ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
      expect((await buy()).topUp.status).toBe("paid");
      expect(intents().filter((intent) => intent.status === "succeeded")).toHaveLength(1);
    },
  );

  it("a charge held past its lease: the taker-over gets 409 in use and learns nothing; the slow answer is recorded", async () => {
    const { buy, intents, row } = await setup(["visa"]);
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "hold" });
    const slow = buy();
    while (fake.control.heldCount() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
    const takeover = await quietly(() => buy());
    expect(takeover.outcome).toBe("unresolved");
    fake.control.releaseHeld();
    expect((await slow).topUp.status).toBe("paid");
    expect((await row()).status).toBe("paid");
    expect(intents()).toHaveLength(1);
  });

  it("a key Stripe has forgotten (past 24 hours) is never re-sent: the PaymentIntent is found by metadata", async () => {
    const { buy, intents, creates } = await setup(["visa"]);
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "execute_then_drop", times: 2 });
    expect((await quietly(() => buy())).outcome).toBe("unresolved");
    ctx.clock.advance(25 * 60 * 60 * 1000);
    fake.control.advanceClock(25 * 60 * 60 * 1000);
    try {
      const sent = creates().length;
      expect((await buy()).outcome).toBe("paid_now");
      expect(creates().length).toBe(sent);
      expect(intents()).toHaveLength(1);
    } finally {
      fake.control.advanceClock(-25 * 60 * 60 * 1000);
    }
  });

  it("a purchase never charged whose key is old is charged once, under a new key", async () => {
    const { buy, intents, creates, row } = await setup(["visa"]);
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "500_before" });
    await quietly(() => buy());
    const oldKey = (await row()).providerIdempotencyKey;
    ctx.clock.advance(KEY_RESEND_WINDOW_MS + 1000);
    expect((await buy()).outcome).toBe("paid_now");
    const [last] = creates().slice(-1);
    expect(last?.idempotencyKey).not.toBe(oldKey);
    expect(last?.idempotencyKey).toBe((await row()).providerIdempotencyKey);
    expect(intents()).toHaveLength(1);
  });

  it("a purchase awaiting the cardholder for 23 hours is cancelled at Stripe and fails as authentication_expired", async () => {
    const { buy, intents, organization } = await setup(["authentication_required"]);
    await buy();
    ctx.clock.advance(AWAITING_PAYMENT_EXPIRES_MS + 1000);
    const settled = (await reconcileTopUps(services)).filter((result) => result.topUp.organizationId === organization.id);
    expect(settled.map((result) => [result.topUp.status, result.topUp.failureCode])).toEqual([["failed", "authentication_expired"]]);
    expect(intents()[0]?.status).toBe("canceled");
  });

  it("answers 502 payment_methods_unavailable when Stripe cannot list the cards", async () => {
    const { buy, customer } = await setup(["visa"]);
    fake.control.fault({ method: "GET", path: `/v1/customers/${customer}`, kind: "500_before", times: 5 });
    provider.invalidatePaymentMethods();
    const error = await buy({ reference: "outage" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PointsError);
    expect((error as PointsError).code).toBe("payment_methods_unavailable");
  });

  it("lists a customer's usable cards with the default first and expired ones left out", async () => {
    const { organization, cardIds } = await setup(["mastercard", "visa", "expired"]);
    await stripe.customers.update(organization.billingCustomerId, { invoice_settings: { default_payment_method: cardIds[1] } });
    provider.invalidatePaymentMethods();
    const { listUsablePaymentMethods } = await import("./payment-methods");
    const methods = await listUsablePaymentMethods(services, organization);
    expect(methods.map((method) => [method.label, method.isDefault])).toEqual([
      ["Visa •••• 4242", true],
      ["Mastercard •••• 4444", false],
    ]);
  });
});

describe("purchases through Stripe under concurrency (postgres)", () => {
  const postgres = backends().includes("postgres");
  it.runIf(postgres)("charges and credits once when 50 identical requests race across two instances", async () => {
    const { openInstance } = await import("@/lib/testing/harness");
    const first = await createTestContext("postgres", { maxConnections: 25 });
    const second = await openInstance(first);
    const started = await startStripeTestProvider(first.clock);
    try {
      const services = [first, second].map((instance) => ({ db: instance.db, clock: first.clock, provider: started.provider }));
      const { organization } = await createOrganization(services[0] as Services, {
        name: "Race",
        settings: { currency: "USD", apiPurchasesEnabled: true },
        cards: ["visa"],
        defaultCardIndex: 0,
      });
      started.fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "delay", delayMs: 150 });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          purchasePoints(services[index % 2] as Services, {
            organization,
            request: { points: 100, reference: "same" },
            source: "api",
          }).then(
            (result) => result.outcome as string,
            (error: unknown) => (error instanceof PointsError ? error.code : String(error)),
          ),
        ),
      );
      expect(results.filter((outcome) => outcome === "paid_now")).toHaveLength(1);
      expect(results.every((outcome) => ["paid_now", "paid", "purchase_in_progress"].includes(outcome))).toBe(true);
      expect(started.fake.control.paymentIntents({ customer: organization.billingCustomerId })).toHaveLength(1);
      await expectBooksBalance(first.db, organization.id);
    } finally {
      await started.close();
      await second.close();
      await first.close();
    }
  });
});
