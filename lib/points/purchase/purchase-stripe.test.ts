import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { topUps } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import type { FakeStripe } from "@/lib/testing/fake-stripe/server";
import { backends, createTestContext, type ProviderTestContext } from "@/lib/testing/harness";
import { expectInvariants } from "@/lib/testing/invariants";
import { createOrganization, getOrganization } from "../accounts/organizations";
import { DEFAULT_LEASE_MS, type PurchaseResult, purchasePoints } from "./";
import { beginAuthentication } from "./complete-authentication";

/*
 * What only the Stripe path has: the PaymentIntent as Stripe receives it, its 3-D Secure page, and
 * faults on the wire (a dropped connection after the charge, a 500 before it, a 500 stored under
 * the key, a request still in progress when the same key comes again). Every scenario both
 * providers share (outcomes, replays, crashes, races, keys forgotten after 24 hours, expiry,
 * outages) is written once, in the shared suites, and runs on Stripe there.
 */
describe.each(backends())("purchases through Stripe: its own mechanics (%s)", (backend) => {
  let ctx: ProviderTestContext;
  let fake: FakeStripe;
  beforeAll(async () => {
    ctx = await createTestContext(backend, { provider: "stripe" });
    if (!ctx.stripe) throw new Error("no Stripe test server");
    fake = ctx.stripe.fake;
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const created: string[] = [];
  afterEach(async () => {
    ctx.probe.reset();
    for (const id of created.splice(0)) await expectInvariants(ctx, id);
  });

  async function setup(cards: string[] = ["visa"]) {
    const result = await createOrganization(ctx, {
      name: `Stripe ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards,
      defaultCardIndex: 0,
    });
    created.push(result.organization.id);
    const organizationId = result.organization.id;
    const customer = result.organization.billingCustomerId;
    const buy = async (
      request: { points?: 100 | 250 | 500; reference?: string; currency?: "USD" | "GBP" } = {},
    ): Promise<PurchaseResult> => {
      const organization = await getOrganization(ctx.db, organizationId);
      if (!organization) throw new Error("organisation vanished");
      return purchasePoints(ctx, {
        organization,
        request: { points: request.points ?? 100, reference: request.reference ?? "ref-1", currency: request.currency },
        source: "api",
      });
    };
    const intents = () => fake.control.paymentIntents({ customer });
    const creates = () =>
      fake.control
        .requests({ method: "POST", path: "/v1/payment_intents" })
        .filter((entry) => entry.path === "/v1/payment_intents");
    const row = async (reference = "ref-1") => {
      const [found] = await ctx.db
        .select()
        .from(topUps)
        .where(and(eq(topUps.organizationId, organizationId), eq(topUps.reference, reference)));
      if (!found) throw new Error(`no top-up ${reference}`);
      return found;
    };
    return {
      ...result,
      customer,
      buy,
      intents,
      creates,
      row,
      cardIds: result.paymentMethods.map((method) => method.id),
    };
  }

  function quietly<T>(run: () => Promise<T>): Promise<T> {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    return run().finally(() => warn.mockRestore());
  }

  it("sends one confirmed PaymentIntent with the purchase's metadata, under Idempotency-Key topup_<id>", async () => {
    const { buy, intents, creates, cardIds, customer, organization } = await setup(["visa"]);
    const before = creates().length;
    const result = await buy({ points: 250, currency: "GBP" });
    expect(result.outcome).toBe("paid_now");
    const [intent] = intents();
    expect(intent).toMatchObject({
      status: "succeeded",
      amount: SIMULATED_PRICES.GBP[250],
      currency: "gbp",
      customer,
      payment_method: cardIds[0],
      metadata: { top_up_id: result.topUp.id, organization_id: organization.id, reference: "ref-1" },
    });
    const sent = creates().slice(before);
    expect(sent.map((entry) => entry.idempotencyKey)).toEqual([`topup_${result.topUp.id}`]);
  });

  it("Complete payment confirms the SAME PaymentIntent on-session; Stripe's page returns the cardholder to the dashboard", async () => {
    const { buy, intents, creates, organization } = await setup(["authentication_required"]);
    const first = await buy();
    expect([first.outcome, first.topUp.failureCode]).toEqual(["awaiting_payment", "authentication_required"]);
    const sent = creates().length;
    const returnUrl = "http://127.0.0.1:3000/dashboard/buy/back";
    const started = await beginAuthentication(ctx, {
      organizationId: organization.id,
      topUpId: first.topUp.id,
      returnUrl,
    });
    if (!("redirectUrl" in started)) throw new Error("expected a 3-D Secure page");
    expect(intents().map((intent) => [intent.id, intent.status])).toEqual([
      [first.topUp.providerPaymentId, "requires_action"],
    ]);
    const answer = await fetch(started.redirectUrl.replace(/\?.*$/, "/complete"), {
      method: "POST",
      redirect: "manual",
    });
    expect(answer.headers.get("location")).toBe(
      `${returnUrl}?payment_intent=${first.topUp.providerPaymentId}&redirect_status=succeeded`,
    );
    expect(creates().length).toBe(sent);
    expect((await buy()).outcome).toBe("paid_now");
  });

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

  it("a charge held past its lease: the taker-over gets 409 in use and learns nothing; the slow answer is recorded", async () => {
    const { buy, intents, row } = await setup(["visa"]);
    fake.control.fault({ method: "POST", path: "/v1/payment_intents", kind: "hold" });
    const slow = buy();
    while (fake.control.heldCount() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
    const takeover = await quietly(() => buy());
    expect(takeover.outcome).toBe("unresolved");
    expect(fake.control.requests({ method: "POST", path: "/v1/payment_intents" }).at(-1)?.status).toBe(409);
    fake.control.releaseHeld();
    expect((await slow).topUp.status).toBe("paid");
    expect((await row()).status).toBe("paid");
    expect(intents()).toHaveLength(1);
  });
});
