import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { ProviderDispute, ReceivedBillingEvent } from "@/lib/billing/provider";
import { stripeEvents, topUps } from "@/lib/db/schema";
import { handleBillingEvent } from "@/lib/points/intake/billing-events";
import { purchasePoints } from "@/lib/points/purchase";
import { spendPoints } from "@/lib/points/spends/spends";
import {
  balances,
  deliverEvents,
  organizationWith,
  paidPurchase,
  quietly,
  topUpNow,
} from "@/lib/testing/after-payment";
import {
  backendsAndProviders,
  faultyProvider,
  type ProviderTestContext,
  patchProvider,
  withProvider,
} from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { captureLog, quietLogger } from "@/lib/testing/observability";
import { type DisputeFacts, disputeSteps, mergeDisputeFacts, targetPointsState } from "./disputes";

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

describe("a dispute's facts merge the same in any order", () => {
  const open: DisputeFacts = { status: "open", fundsWithdrawn: false, fundsReinstated: false };
  const withdrawn: DisputeFacts = { status: "open", fundsWithdrawn: true, fundsReinstated: false };
  const lost: DisputeFacts = { status: "lost", fundsWithdrawn: true, fundsReinstated: false };
  const wonAnswer: DisputeFacts = { status: "won", fundsWithdrawn: true, fundsReinstated: false };
  const reinstated: DisputeFacts = { status: "won", fundsWithdrawn: true, fundsReinstated: true };

  /** Applies answers one by one, as events would bring them, and returns the state the Points end in. */
  function replay(answers: DisputeFacts[]) {
    let facts: DisputeFacts | null = null;
    let state: ReturnType<typeof targetPointsState> | null = null;
    const steps: string[] = [];
    for (const answer of answers) {
      facts = mergeDisputeFacts(facts, answer);
      const target = targetPointsState(facts);
      const taken = disputeSteps(state, target);
      steps.push(...taken);
      if (taken.length > 0) state = target;
    }
    return { facts, state, steps };
  }

  it.each([
    ["lost", [open, withdrawn, lost], "removed"],
    ["won", [open, withdrawn, wonAnswer, reinstated], "released"],
    ["won without the money leaving", [open, wonAnswer], "released"],
  ] as const)(
    "%s: every order of the answers, each seen up to three times, ends in the same state",
    (_name, answers, end) => {
      const inOrder = replay([...answers]);
      expect(inOrder.state).toBe(end);
      for (const order of permutations(answers)) {
        const seen = replay([...order, ...order.slice().reverse(), ...order]);
        expect(seen.facts).toEqual(inOrder.facts);
        expect(seen.state).toBe(end);
        // Each step at most once, the hold always first.
        expect(new Set(seen.steps).size).toBe(seen.steps.length);
        expect(seen.steps[0]).toBe("dispute_hold");
      }
    },
  );

  it("never goes back: released is final, and removed Points only come back with the money", () => {
    expect(disputeSteps("released", "removed")).toEqual([]);
    expect(disputeSteps("removed", "held")).toEqual([]);
    expect(disputeSteps("removed", "released")).toEqual(["dispute_release"]);
    expect(disputeSteps(null, "removed")).toEqual(["dispute_hold", "dispute_loss"]);
  });
});

describe.each(backendsAndProviders())(
  "Disputes hold, remove and release Points exactly once (%s, %s provider)",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });
    /** On Stripe the money leaves when the dispute opens, so the Points are removed at once; the simulated bank waits. */
    const openState = () => (provider === "stripe" ? "removed" : "held");

    async function disputedPurchase(points: 100 | 250 | 1000 = 1000) {
      const made = await organizationWith(ctx, ["dispute", "visa"], track);
      const topUp = await paidPurchase(ctx, made, points);
      return { made, topUp };
    }

    async function settle(disputeId: string | null, outcome: "won" | "lost") {
      const settleDispute = ctx.provider.testMode?.settleDispute;
      if (!settleDispute || !disputeId) throw new Error("no dispute to settle");
      await settleDispute(disputeId, outcome);
    }

    it("holds a disputed purchase's Points, then removes them when the dispute is lost", async () => {
      const { made, topUp } = await disputedPurchase();
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 1000, held: 0 });
      await deliverEvents(ctx);
      const opened = await topUpNow(ctx, topUp.id);
      expect(opened).toMatchObject({
        status: "paid",
        disputeStatus: "open",
        disputePoints: 1000,
        disputePointsState: openState(),
      });
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: provider === "stripe" ? 0 : 1000 });
      await expect(
        spendPoints(ctx, {
          organizationId: made.organization.id,
          request: { points: 1, reference: "spend-1" },
          source: "operator",
        }),
      ).rejects.toMatchObject({ code: "insufficient_points" });
      await settle(opened.disputeId, "lost");
      await deliverEvents(ctx);
      expect(await topUpNow(ctx, topUp.id)).toMatchObject({
        status: "paid",
        disputeStatus: "lost",
        disputePointsState: "removed",
      });
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });
    });

    it("releases the Points exactly once when the dispute is won", async () => {
      const { made, topUp } = await disputedPurchase();
      await deliverEvents(ctx);
      await settle((await topUpNow(ctx, topUp.id)).disputeId, "won");
      const events = await deliverEvents(ctx);
      // The closing and the reinstatement both say "won": the Points come back once.
      for (const event of events) await handleBillingEvent(ctx, { ...event, id: `${event.id}_again` });
      expect(await topUpNow(ctx, topUp.id)).toMatchObject({ disputeStatus: "won", disputePointsState: "released" });
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 1000, held: 0 });
    });

    it("ends in the same state when every event is delivered three times, and replayed after", async () => {
      const { made, topUp } = await disputedPurchase();
      const opening = await ctx.probe.takeEvents();
      await settle(
        (
          await quietly(async () => {
            for (const event of opening) await handleBillingEvent(ctx, event);
            return topUpNow(ctx, topUp.id);
          })
        ).disputeId,
        "lost",
      );
      const closing = await ctx.probe.takeEvents();
      const all = [...opening, ...closing];
      for (let round = 0; round < 3; round += 1) {
        for (const event of all) {
          const receipt = await handleBillingEvent(ctx, event);
          expect(["handled", "duplicate", "ignored"]).toContain(receipt.result);
        }
      }
      const replays = await Promise.all(all.map((event) => handleBillingEvent(ctx, event)));
      expect(replays.every((receipt) => receipt.result === "duplicate")).toBe(true);
      expect(await topUpNow(ctx, topUp.id)).toMatchObject({ disputeStatus: "lost", disputePointsState: "removed" });
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });
    });

    it.each(["lost", "won"] as const)(
      "a dispute %s ends alike for every order of its events, each answered as the dispute stood when it was sent",
      async (outcome) => {
        // One run to learn the events a dispute sends and what the provider said at each.
        const sample = await disputedPurchase(100);
        const recorded = await recordDispute(sample.topUp.providerPaymentId ?? "", outcome);
        const orders = permutations(recorded.map((_, index) => index));
        for (const order of orders) {
          const { made, topUp } = await disputedPurchase(100);
          const run = await recordDispute(topUp.providerPaymentId ?? "", outcome);
          for (const index of order) {
            const step = run[index];
            if (!step) throw new Error("the runs sent different events");
            // The provider answers as it stood when this event was sent: a late or reordered answer.
            const stale = withProvider(ctx, patchProvider(ctx.provider, { retrieveDispute: async () => step.answer }));
            await handleBillingEvent(stale, step.event);
          }
          const end = await topUpNow(ctx, topUp.id);
          expect(end, `order ${order.join(",")}`).toMatchObject({
            disputeStatus: outcome,
            disputePointsState: outcome === "won" ? "released" : "removed",
          });
          expect(await balances(ctx, made.organization.id)).toEqual({ balance: outcome === "won" ? 100 : 0, held: 0 });
        }
        expect(orders.length).toBeGreaterThan(1);
      },
    );

    /** Settles a fresh purchase's dispute, keeping each dispute event with the provider's answer when it was sent. */
    async function recordDispute(paymentId: string, outcome: "won" | "lost") {
      const steps: { event: ReceivedBillingEvent; answer: ProviderDispute | null }[] = [];
      const take = async () => {
        for (const event of await ctx.probe.takeEvents()) {
          if (event.kind !== "dispute_changed" || event.paymentId !== paymentId) continue;
          steps.push({ event, answer: await ctx.provider.retrieveDispute(event.disputeId) });
        }
      };
      await take();
      const disputeId = steps[0]?.event.kind === "dispute_changed" ? steps[0].event.disputeId : null;
      await settle(disputeId, outcome);
      await take();
      return steps;
    }

    it("settles a purchase whose charge answer was lost when its dispute comes, and waits while another request holds it", async () => {
      const made = await organizationWith(ctx, ["dispute"], track);
      const faulty = withProvider(ctx, faultyProvider(ctx.provider, ["execute_then_throw"]));
      const first = await quietly(() =>
        purchasePoints(faulty, {
          organization: made.organization,
          request: { points: 250, reference: `lost-${made.organization.id}` },
          source: "api",
        }),
      );
      expect(first.outcome).toBe("unresolved");
      const disputeEvents = (await ctx.probe.takeEvents()).filter((event) => event.kind === "dispute_changed");
      expect(disputeEvents.length).toBeGreaterThan(0);
      const [opened] = disputeEvents;
      if (!opened) throw new Error("no dispute event");
      // Another request (the client's retry) holds the purchase: the event must wait, and is not remembered.
      await ctx.db
        .update(topUps)
        .set({ lockToken: "held", lockedUntil: new Date(ctx.clock.now().getTime() + 60_000) })
        .where(eq(topUps.id, first.topUp.id));
      await expect(handleBillingEvent(ctx, opened, { waitMs: 200 })).rejects.toThrow(/must wait/);
      expect(await ctx.db.select().from(stripeEvents).where(eq(stripeEvents.id, opened.id))).toEqual([]);
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });
      // Delivered again once it is free: the purchase is settled as paid, then its Points follow the dispute.
      await ctx.db.update(topUps).set({ lockToken: null, lockedUntil: null }).where(eq(topUps.id, first.topUp.id));
      for (const event of disputeEvents) expect((await handleBillingEvent(ctx, event)).result).toBe("handled");
      expect(await topUpNow(ctx, first.topUp.id)).toMatchObject({
        status: "paid",
        disputeStatus: "open",
        disputePointsState: openState(),
      });
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: provider === "stripe" ? 0 : 250 });
    });

    it("holds only what is left when Points were spent, records the shortfall, and releases that", async () => {
      const { made, topUp } = await disputedPurchase(100);
      await spendPoints(ctx, {
        organizationId: made.organization.id,
        request: { points: 70, reference: "spend-70" },
        source: "operator",
      });
      await quietly(() => deliverEvents(ctx));
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: provider === "stripe" ? 0 : 30 });
      await settle((await topUpNow(ctx, topUp.id)).disputeId, "won");
      await deliverEvents(ctx);
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 30, held: 0 });
      expect(await topUpNow(ctx, topUp.id)).toMatchObject({ disputePoints: 100, disputePointsState: "released" });
    });

    it("stores and reports a dispute of a payment it does not know, and never fails on it", async () => {
      // Not tracked: the charge below belongs to no top-up, which the provider invariant would refuse.
      const made = await organizationWith(ctx, ["dispute"], () => {});
      // A charge made at the provider for no purchase of this service.
      await ctx.provider.charge({
        idempotencyKey: `elsewhere_${made.organization.id}`,
        customerId: made.organization.billingCustomerId,
        paymentMethodId: made.paymentMethods[0]?.id ?? "",
        amount: 1234,
        currency: "USD",
        metadata: { top_up_id: "tu_not_ours", organization_id: made.organization.id, reference: "elsewhere" },
      });
      const logged = captureLog();
      const events = await ctx.probe.takeEvents();
      const disputeEvents = events.filter((event) => event.kind === "dispute_changed");
      expect(disputeEvents.length).toBeGreaterThan(0);
      try {
        for (const event of disputeEvents) expect((await handleBillingEvent(ctx, event)).result).toBe("unmatched");
        const unknown = await handleBillingEvent(ctx, {
          id: "evt_unknown_dispute",
          type: "charge.dispute.created",
          kind: "dispute_changed",
          disputeId: "du_nobody",
          paymentId: "pi_nobody",
        });
        expect(unknown.result).toBe("unmatched");
      } finally {
        quietLogger();
      }
      const warnings = logged()
        .filter((line) => line.level === "warn")
        .map((line) => String(line.msg));
      const [stored] = await ctx.db
        .select()
        .from(stripeEvents)
        .where(eq(stripeEvents.id, disputeEvents[0]?.id ?? ""));
      expect(stored).toMatchObject({
        result: "unmatched",
        detail: expect.stringMatching(/not a Points top-up|does not match/),
      });
      expect(warnings.join("\n")).toMatch(/cannot place/);
      expect(await balances(ctx, made.organization.id)).toEqual({ balance: 0, held: 0 });
    });
  },
);
