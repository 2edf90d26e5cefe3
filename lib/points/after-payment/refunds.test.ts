import { describe, expect, it } from "vitest";
import type { ProviderRefund } from "@/lib/billing/provider";
import { spendPoints } from "@/lib/points/spends/spends";
import {
  balances,
  deliverEvents,
  organizationWith,
  paidPurchase,
  quietly,
  refundRows,
  topUpNow,
} from "@/lib/testing/after-payment";
import { backendsAndProviders, type ProviderTestContext, patchProvider, withProvider } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { captureLog, quietLogger } from "@/lib/testing/observability";
import { applyRefunds } from "./apply-refunds";
import { refundTopUp, retryRequestedRefunds } from "./refunds";

describe.each(backendsAndProviders())("Refunds move Points exactly once (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });
  /** The provider makes the refund, and its answer is lost (a timeout). */
  const refundsTimingOut = () =>
    withProvider(
      ctx,
      patchProvider(ctx.provider, {
        refund: async (request) => {
          await ctx.provider.refund(request);
          throw new Error("request timed out (injected)");
        },
      }),
    );
  const succeededRefunds = async (paymentId: string | null) =>
    (await ctx.probe.refunds(paymentId ?? "")).filter((refund) => refund.status === "succeeded");

  it("refunds a whole purchase from the command once, however often the command is run", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 1000);
    const first = await refundTopUp(ctx, { topUpId: topUp.id, reason: "customer asked" });
    expect(first).toMatchObject({ outcome: "succeeded", replayed: false, shortfall: 0, pointsBalance: 0 });
    expect(first.refund).toMatchObject({
      points: 1000,
      amount: 8500,
      currency: "USD",
      source: "operator",
      reason: "customer asked",
    });
    const again = await refundTopUp(ctx, { topUpId: topUp.id, reason: "customer asked" });
    expect(again).toMatchObject({ outcome: "succeeded", replayed: true, pointsBalance: 0 });
    expect(again.refund.id).toBe(first.refund.id);
    expect(await succeededRefunds(topUp.providerPaymentId)).toHaveLength(1);
    expect(await topUpNow(ctx, topUp.id)).toMatchObject({ status: "paid", refundedPoints: 1000, refundedAmount: 8500 });
    await deliverEvents(ctx);
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });
  });

  it("refunds part of a purchase in proportion, rounding half up, and the parts add up to the whole amount", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    // 250 Points for 2400 cents: 9.6 cents a Point.
    const topUp = await paidPurchase(ctx, made, 250);
    const three = await refundTopUp(ctx, { topUpId: topUp.id, points: 3 });
    expect(three.refund).toMatchObject({ points: 3, amount: 29 }); // 28.8 rounds up
    const eleven = await refundTopUp(ctx, { topUpId: topUp.id, points: 11 });
    expect(eleven.refund).toMatchObject({ points: 11, amount: 106 }); // 105.6 rounds up
    const five = await refundTopUp(ctx, { topUpId: topUp.id, points: 5, key: "second-five" });
    expect(five.refund).toMatchObject({ points: 5, amount: 48 }); // exactly 48
    const rest = await refundTopUp(ctx, { topUpId: topUp.id });
    expect(rest.refund).toMatchObject({ points: 231, amount: 2400 - 29 - 106 - 48 });
    expect(rest.pointsBalance).toBe(0);
    const atProvider = await succeededRefunds(topUp.providerPaymentId);
    expect(atProvider.map((refund) => refund.amount).reduce((sum, amount) => sum + amount, 0)).toBe(2400);
    expect(await topUpNow(ctx, topUp.id)).toMatchObject({ refundedPoints: 250, refundedAmount: 2400 });
    await deliverEvents(ctx);
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });
  });

  it("refuses more Points than are left, and a refund too small to return any money, changing nothing", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 100);
    await refundTopUp(ctx, { topUpId: topUp.id, points: 60 });
    await expect(refundTopUp(ctx, { topUpId: topUp.id, points: 41 })).rejects.toMatchObject({
      code: "invalid_request",
    });
    const big = await paidPurchase(ctx, made, 7500);
    // 7500 Points for 52500 cents: a Point is 7 cents, so every Point returns money; a refused id changes nothing.
    await expect(refundTopUp(ctx, { topUpId: "tu_missing" })).rejects.toMatchObject({ code: "not_found" });
    expect(await succeededRefunds(big.providerPaymentId)).toHaveLength(0);
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 40 + 7500, held: 0 });
  });

  it("moves the same Points for a refund made at the provider, through the same code, once per event however often it comes", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 250);
    const refundAtProvider = ctx.provider.testMode?.refundAtProvider;
    if (!refundAtProvider) throw new Error(`${provider} offers no refund at the provider in test mode`);
    await refundAtProvider(topUp.providerPaymentId ?? "", 1200);
    const events = await deliverEvents(ctx);
    expect(events.some((event) => event.kind === "refunds_changed")).toBe(true);
    for (const event of events)
      await (await import("@/lib/points/intake/billing-events")).handleBillingEvent(ctx, event);
    expect(await topUpNow(ctx, topUp.id)).toMatchObject({ refundedPoints: 125, refundedAmount: 1200 });
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 125, held: 0 });
    const rows = await refundRows(ctx, topUp.id);
    expect(rows).toEqual([
      expect.objectContaining({ source: "provider", status: "succeeded", points: 125, amount: 1200 }),
    ]);
    // The operator then refunds the rest from the command: exactly what is left.
    const rest = await refundTopUp(ctx, { topUpId: topUp.id });
    expect(rest.refund).toMatchObject({ points: 125, amount: 1200 });
    expect(rest.pointsBalance).toBe(0);
  });

  it("takes a provider's refund's Points when it succeeds, not while it is pending", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 1000);
    const pending: ProviderRefund = {
      refundId: `re_pending_${topUp.id}`,
      paymentId: topUp.providerPaymentId ?? "",
      amount: 4250,
      currency: "USD",
      status: "pending",
      requestId: null,
      created: ctx.clock.now(),
    };
    await applyRefunds(ctx, topUp.id, [pending], "evt_pending");
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 1000, held: 0 });
    expect(await refundRows(ctx, topUp.id)).toEqual([
      expect.objectContaining({ status: "pending", source: "provider" }),
    ]);
    await applyRefunds(ctx, topUp.id, [{ ...pending, status: "succeeded" }], "evt_succeeded");
    await applyRefunds(ctx, topUp.id, [{ ...pending, status: "succeeded" }], "evt_succeeded_again");
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 500, held: 0 });
    expect(await topUpNow(ctx, topUp.id)).toMatchObject({ refundedPoints: 500, refundedAmount: 4250 });
  });

  it("debits only what is left when Points were spent, and records and reports the shortfall", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 100);
    await spendPoints(ctx, {
      organizationId: made.organization.id,
      request: { points: 80, reference: "spend-80" },
      source: "operator",
    });
    const logged = captureLog();
    const result = await refundTopUp(ctx, { topUpId: topUp.id }).finally(quietLogger);
    const warnings = logged()
      .filter((line) => line.level === "warn")
      .map((line) => String(line.msg));
    expect(result).toMatchObject({ outcome: "succeeded", shortfall: 80, pointsBalance: 0 });
    expect(await topUpNow(ctx, topUp.id)).toMatchObject({ refundedPoints: 100, refundedAmount: 1000 });
    expect(warnings.join("\n")).toMatch(/took 20 of 100 Points: 80 had been spent already \(shortfall\)/);
  });

  it("refunds once when two operators run the same refund at the same moment", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 500);
    const results = await Promise.all([
      refundTopUp(ctx, { topUpId: topUp.id, points: 100 }),
      refundTopUp(ctx, { topUpId: topUp.id, points: 100 }),
    ]);
    const settled = await Promise.all(
      results.map((result) =>
        result.outcome === "unresolved" ? refundTopUp(ctx, { topUpId: topUp.id, points: 100 }) : result,
      ),
    );
    expect(new Set(settled.map((result) => result.refund.id)).size).toBe(1);
    expect(await succeededRefunds(topUp.providerPaymentId)).toHaveLength(1);
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 400, held: 0 });
  });

  it("refunds once when the provider's answer is lost after it made the refund, and the command is run again", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 500);
    const timingOut = refundsTimingOut();
    const lost = await quietly(() => refundTopUp(timingOut, { topUpId: topUp.id }));
    expect(lost.outcome).toBe("unresolved");
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 500, held: 0 });
    const retried = await refundTopUp(ctx, { topUpId: topUp.id });
    expect(retried).toMatchObject({ outcome: "succeeded", replayed: true, pointsBalance: 0 });
    expect(await succeededRefunds(topUp.providerPaymentId)).toHaveLength(1);
    await deliverEvents(ctx);
    expect(await topUpNow(ctx, topUp.id)).toMatchObject({ refundedPoints: 500 });
  });

  it("re-sends a refund whose answer was lost from the reconciler, under its own key, and refunds once", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 250);
    const timingOut = refundsTimingOut();
    expect(
      (await quietly(() => refundTopUp(timingOut, { topUpId: topUp.id, points: 50, key: "ticket-7" }))).outcome,
    ).toBe("unresolved");
    const [retried, ...others] = await retryRequestedRefunds(ctx, { minAgeMs: 0 });
    expect(others).toEqual([]);
    expect(retried).toMatchObject({ outcome: "succeeded", replayed: true, pointsBalance: 200 });
    expect(retried?.refund).toMatchObject({ requestKey: "ticket-7", points: 50, amount: 480 });
    expect(await retryRequestedRefunds(ctx, { minAgeMs: 0 })).toEqual([]);
    expect(await succeededRefunds(topUp.providerPaymentId)).toHaveLength(1);
  });

  it("debits once when the command crashes between the provider's answer and the debit, and the event comes", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 500);
    await expect(
      refundTopUp(
        ctx,
        { topUpId: topUp.id, points: 250 },
        {
          afterProviderAnswer: async () => {
            throw new Error("process killed (injected)");
          },
        },
      ),
    ).rejects.toThrow("process killed");
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 500, held: 0 });
    // The provider's event finds the refund by the request it carries, and applies it as this request's.
    await deliverEvents(ctx);
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 250, held: 0 });
    expect(await refundRows(ctx, topUp.id)).toEqual([
      expect.objectContaining({ source: "operator", status: "succeeded", points: 250 }),
    ]);
    const retried = await refundTopUp(ctx, { topUpId: topUp.id, points: 250 });
    expect(retried).toMatchObject({ outcome: "succeeded", replayed: true, pointsBalance: 250 });
    expect(await succeededRefunds(topUp.providerPaymentId)).toHaveLength(1);
  });

  it("debits once when the refund's event arrives before the command's own answer", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 500);
    const eventFirst = withProvider(
      ctx,
      patchProvider(ctx.provider, {
        refund: async (request) => {
          const answer = await ctx.provider.refund(request);
          await deliverEvents(ctx);
          return answer;
        },
      }),
    );
    const result = await refundTopUp(eventFirst, { topUpId: topUp.id, points: 100 });
    expect(result).toMatchObject({ outcome: "succeeded", pointsBalance: 400 });
    expect(await refundRows(ctx, topUp.id)).toHaveLength(1);
    expect(await topUpNow(ctx, topUp.id)).toMatchObject({ refundedPoints: 100 });
  });

  it("changes no Points when the provider refuses the refund", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 100);
    const refusing = withProvider(
      ctx,
      patchProvider(ctx.provider, {
        refund: async (): Promise<ProviderRefund | { refused: true; code: string; message: string }> => ({
          refused: true,
          code: "charge_already_refunded",
          message: "Charge has already been refunded.",
        }),
      }),
    );
    const refused = await refundTopUp(refusing, { topUpId: topUp.id });
    expect(refused.outcome).toBe("failed");
    expect(refused.refund.failureMessage).toMatch(/already been refunded/);
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 100, held: 0 });
    expect(await succeededRefunds(topUp.providerPaymentId)).toHaveLength(0);
    // Refused requests hold nothing back: a new request can refund the Points.
    const next = await refundTopUp(ctx, { topUpId: topUp.id, key: "after-refusal" });
    expect(next).toMatchObject({ outcome: "succeeded", pointsBalance: 0 });
  });

  it("asks the provider again when the same refused request is run again, and then refunds once", async () => {
    const made = await organizationWith(ctx, ["visa"], track);
    const topUp = await paidPurchase(ctx, made, 250);
    let refusals = 0;
    const refusing = withProvider(
      ctx,
      patchProvider(ctx.provider, {
        refund: async (): Promise<ProviderRefund | { refused: true; code: string; message: string }> => {
          refusals += 1;
          return { refused: true, code: "resource_missing", message: "No such payment." };
        },
      }),
    );
    for (const input of [{ topUpId: topUp.id }, { topUpId: topUp.id, points: 50, key: "ticket-9" }]) {
      const refused = await refundTopUp(refusing, input);
      expect(refused.outcome).toBe("failed");
      // The same request again is a new attempt, sent to the provider under a new key.
      const again = await refundTopUp(refusing, input);
      expect(again.outcome).toBe("failed");
      expect(again.replayed).toBe(false);
      expect(again.refund.id).not.toBe(refused.refund.id);
      expect(again.refund.providerIdempotencyKey).not.toBe(refused.refund.providerIdempotencyKey);
    }
    expect(refusals).toBe(4);
    expect(await balances(ctx, made.organization.id)).toEqual({ balance: 250, held: 0 });

    // Run once more where the provider accepts: it refunds, and from then on the request replays.
    const partial = await refundTopUp(ctx, { topUpId: topUp.id, points: 50, key: "ticket-9" });
    expect(partial).toMatchObject({ outcome: "succeeded", replayed: false, pointsBalance: 200 });
    const rest = await refundTopUp(ctx, { topUpId: topUp.id });
    expect(rest).toMatchObject({ outcome: "succeeded", replayed: false, pointsBalance: 0 });
    expect(rest.refund.points).toBe(200);
    const replays = await Promise.all([
      refundTopUp(ctx, { topUpId: topUp.id, points: 50, key: "ticket-9" }),
      refundTopUp(ctx, { topUpId: topUp.id }),
    ]);
    expect(replays.map((result) => [result.replayed, result.refund.id])).toEqual([
      [true, partial.refund.id],
      [true, rest.refund.id],
    ]);
    expect(await succeededRefunds(topUp.providerPaymentId)).toHaveLength(2);
    const rows = await refundRows(ctx, topUp.id);
    expect(rows.filter((row) => row.status === "failed")).toHaveLength(4);
    expect(
      rows
        .filter((row) => row.status === "succeeded")
        .map((row) => row.requestKey)
        .sort(),
    ).toEqual(["points:rest", "ticket-9"]);
    expect(await topUpNow(ctx, topUp.id)).toMatchObject({ refundedPoints: 250, refundedAmount: 2400 });
  });
});
