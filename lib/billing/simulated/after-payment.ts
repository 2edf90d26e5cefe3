import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { type SimPayment, simDisputes, simEvents, simPayments, simRefunds } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import type {
  BillingEvent,
  ProviderDispute,
  ProviderRefund,
  ReceivedBillingEvent,
  RefundRefusal,
  RefundRequest,
} from "../provider";
import { toRefund } from "./rows";

/**
 * The simulated provider's after-payment side: refunds (asked for by the service or made "in the
 * provider's dashboard"), disputes, and the events it queues for them, as Stripe sends webhooks.
 */
export class SimulatedAfterPayment {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async refund(request: RefundRequest): Promise<ProviderRefund | RefundRefusal> {
    const [existing] = await this.db
      .select()
      .from(simRefunds)
      .where(eq(simRefunds.idempotencyKey, request.idempotencyKey));
    if (existing) return toRefund(existing);
    const refused = await this.refusal(request.paymentId, request.amount);
    if (refused) return refused;
    return this.makeRefund(request.paymentId, request.amount, {
      idempotencyKey: request.idempotencyKey,
      requestId: request.metadata.refund_id,
    });
  }

  async listRefunds(paymentId: string): Promise<ProviderRefund[]> {
    const rows = await this.db
      .select()
      .from(simRefunds)
      .where(eq(simRefunds.paymentId, paymentId))
      .orderBy(asc(simRefunds.createdAt), asc(simRefunds.id));
    return rows.map(toRefund);
  }

  async retrieveDispute(disputeId: string): Promise<ProviderDispute | null> {
    const [row] = await this.db.select().from(simDisputes).where(eq(simDisputes.id, disputeId));
    if (!row) return null;
    return {
      disputeId: row.id,
      paymentId: row.paymentId,
      amount: row.amount,
      currency: row.currency.toUpperCase(),
      status: row.status as ProviderDispute["status"],
      fundsWithdrawn: row.fundsWithdrawn,
      fundsReinstated: row.fundsReinstated,
      created: row.createdAt,
    };
  }

  /**
   * The bank decides the dispute, as Stripe's test mode does on winning or losing evidence: won
   * leaves the money with the merchant; lost withdraws it. Its events are queued like webhooks.
   */
  async settleDispute(disputeId: string, outcome: "won" | "lost"): Promise<void> {
    const [settled] = await this.db
      .update(simDisputes)
      .set({ status: outcome, fundsWithdrawn: outcome === "lost", updatedAt: this.clock.now() })
      .where(and(eq(simDisputes.id, disputeId), eq(simDisputes.status, "open")))
      .returning();
    if (!settled) throw new Error(`No open simulated dispute ${disputeId}.`);
    await this.queueEvent("charge.dispute.closed", {
      kind: "dispute_changed",
      disputeId,
      paymentId: settled.paymentId,
    });
    if (outcome === "lost") {
      await this.queueEvent("charge.dispute.funds_withdrawn", {
        kind: "dispute_changed",
        disputeId,
        paymentId: settled.paymentId,
      });
    }
  }

  /** A refund made "in the provider's dashboard": no key, no request of the service's behind it. */
  async refundAtProvider(paymentId: string, amount: number): Promise<ProviderRefund> {
    const refused = await this.refusal(paymentId, amount);
    if (refused) throw new Error(`The simulated provider refuses the refund: ${refused.message}`);
    return this.makeRefund(paymentId, amount, { idempotencyKey: null, requestId: null });
  }

  async pendingEvents(limit: number): Promise<ReceivedBillingEvent[]> {
    const rows = await this.db
      .select()
      .from(simEvents)
      .where(isNull(simEvents.deliveredAt))
      .orderBy(asc(simEvents.createdAt), asc(simEvents.id))
      .limit(limit);
    return rows.map((row) => ({ ...(JSON.parse(row.event) as BillingEvent), id: row.id, type: row.type }));
  }

  async markEventsDelivered(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.update(simEvents).set({ deliveredAt: this.clock.now() }).where(inArray(simEvents.id, ids));
  }

  /** Why a refund of `amount` cannot be made now, as Stripe refuses it; null when it can. */
  private async refusal(paymentId: string, amount: number): Promise<RefundRefusal | null> {
    const [payment] = await this.db.select().from(simPayments).where(eq(simPayments.id, paymentId));
    if (payment?.status !== "succeeded") {
      return { refused: true, code: "resource_missing", message: `No succeeded payment ${paymentId}.` };
    }
    const [dispute] = await this.db.select().from(simDisputes).where(eq(simDisputes.paymentId, paymentId));
    if (dispute && dispute.status !== "won") {
      return {
        refused: true,
        code: "charge_disputed",
        message: "The payment has been disputed; it cannot be refunded.",
      };
    }
    const refunded = (await this.listRefunds(paymentId))
      .filter((refund) => refund.status === "succeeded" || refund.status === "pending")
      .reduce((sum, refund) => sum + refund.amount, 0);
    if (refunded >= payment.amount)
      return { refused: true, code: "charge_already_refunded", message: "The payment has been refunded already." };
    if (amount > payment.amount - refunded) {
      return {
        refused: true,
        code: "amount_too_large",
        message: `At most ${payment.amount - refunded} is left to refund.`,
      };
    }
    return null;
  }

  private async makeRefund(
    paymentId: string,
    amount: number,
    keys: { idempotencyKey: string | null; requestId: string | null },
  ): Promise<ProviderRefund> {
    const [payment] = await this.db.select().from(simPayments).where(eq(simPayments.id, paymentId));
    const inserted = await this.db
      .insert(simRefunds)
      .values({
        id: newId("simRefund"),
        idempotencyKey: keys.idempotencyKey,
        paymentId,
        amount,
        currency: payment?.currency ?? "usd",
        status: "succeeded",
        requestId: keys.requestId,
        createdAt: this.clock.now(),
      })
      .onConflictDoNothing({ target: simRefunds.idempotencyKey })
      .returning();
    const row =
      inserted[0] ??
      (
        await this.db
          .select()
          .from(simRefunds)
          .where(eq(simRefunds.idempotencyKey, keys.idempotencyKey ?? ""))
      )[0];
    if (!row) throw new Error("Simulated refund vanished under its idempotency key.");
    if (inserted[0]) {
      await this.queueEvent("charge.refunded", {
        kind: "refunds_changed",
        paymentId,
        customerId: payment?.customerId ?? null,
      });
    }
    return toRefund(row);
  }

  async openDispute(payment: SimPayment): Promise<void> {
    const id = newId("simDispute");
    const opened = await this.db
      .insert(simDisputes)
      .values({
        id,
        paymentId: payment.id,
        amount: payment.amount,
        currency: payment.currency,
        status: "open",
        createdAt: this.clock.now(),
      })
      .onConflictDoNothing({ target: simDisputes.paymentId })
      .returning();
    if (opened[0])
      await this.queueEvent("charge.dispute.created", {
        kind: "dispute_changed",
        disputeId: id,
        paymentId: payment.id,
      });
  }

  /** What Stripe would send as a webhook, kept until the service takes it (lib/points/intake/provider-events.ts). */
  private async queueEvent(type: string, event: BillingEvent): Promise<void> {
    await this.db
      .insert(simEvents)
      .values({ id: newId("simEvent"), type, event: JSON.stringify(event), createdAt: this.clock.now() });
  }
}
