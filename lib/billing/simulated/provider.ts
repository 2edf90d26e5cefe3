import { and, desc, eq, gte, inArray, isNull, lt } from "drizzle-orm";
import { brandOf, hasBrand } from "@/lib/brand";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { hotQuery, sqlTime } from "@/lib/db/hot";
import { type SimPayment, simCustomers, simPaymentMethods, simPayments } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { SIMULATED_PRICES } from "../prices";
import type {
  BillingProvider,
  ChargeOutcome,
  ChargeRequest,
  FindPaymentRequest,
  PaymentFacts,
  PriceTable,
  ProviderDispute,
  ProviderPaymentMethod,
  ProviderRefund,
  ProvisionCardsInput,
  ReceivedBillingEvent,
  RefundRefusal,
  RefundRequest,
  TestMode,
} from "../provider";
import { ProviderRefusedError, ProviderUnavailableError } from "../provider";
import { isTestCardKind, TEST_CARDS } from "../test-cards";
import { SimulatedAfterPayment } from "./after-payment";
import {
  CHARGE_SQL,
  failureMessages,
  LIST_METHODS_SQL,
  readCustomer,
  readMethod,
  readPayment,
  toOutcome,
} from "./rows";

/** Like Stripe, an idempotency key is kept 24 hours; after that the same key is a new request. */
export const SIMULATED_IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

const simulatedProviderBrand = brandOf("SimulatedBillingProvider");
/**
 * The built-in billing provider: a stateful stand-in for Stripe kept in the same database, with
 * Stripe's idempotency semantics (one execution per key, a replay returns the same payment).
 */
export class SimulatedBillingProvider implements BillingProvider {
  readonly [simulatedProviderBrand] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(simulatedProviderBrand)(value);
  }
  readonly name = "simulated" as const;
  readonly displayName = "the simulated billing provider";
  readonly keyVariable = null;
  /** Its calls are a few queries on the app's own database. */
  readonly callBudgetMs = 10_000;
  readonly idempotencyKeyTtlMs = SIMULATED_IDEMPOTENCY_KEY_TTL_MS;
  /** Every test card, and the cardholder's and the bank's parts, which Stripe plays on its own pages. */
  readonly testMode: TestMode = {
    cardKinds: () => Object.keys(TEST_CARDS),
    completeAuthentication: (paymentId, succeed) => this.completeAuthentication(paymentId, succeed),
    setOutage: (customerId, on) => this.setOutage(customerId, on),
    listAllPaymentMethods: (customerId) => this.listPaymentMethods(customerId, { ignoreOutage: true }),
    settleDispute: (disputeId, outcome) => this.settleDispute(disputeId, outcome),
    refundAtProvider: (paymentId, amount) => this.refundAtProvider(paymentId, amount),
    pendingEvents: (limit) => this.pendingEvents(limit),
    markEventsDelivered: (ids) => this.markEventsDelivered(ids),
  };

  /** Its tables are in `db`, the app's own database; every call writes there, outside the caller's transactions. */
  private readonly afterPayment: SimulatedAfterPayment;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.afterPayment = new SimulatedAfterPayment(db, clock);
  }

  async listPaymentMethods(
    customerId: string,
    options: { ignoreOutage?: boolean } = {},
  ): Promise<ProviderPaymentMethod[]> {
    // One query: the customer (for its outage switch and default) with its attached cards.
    const rows = (await hotQuery(this.db, LIST_METHODS_SQL, [customerId])).map((row) => ({
      customer: readCustomer(row),
      method: row.m_id === null ? null : readMethod(row),
    }));
    const customer = rows[0]?.customer;
    if (!customer) throw new ProviderRefusedError("customer_missing", { customerId, providerCode: "resource_missing" });
    if (customer.outage && !options.ignoreOutage) {
      throw new ProviderUnavailableError("Simulated outage: payment methods cannot be listed.");
    }
    return rows.flatMap(({ method }) =>
      method
        ? [
            {
              id: method.id,
              type: "card" as const,
              brand: method.brand,
              last4: method.last4,
              expMonth: method.expMonth,
              expYear: method.expYear,
              isDefault: method.id === customer.defaultPaymentMethodId,
              kind: method.kind,
            },
          ]
        : [],
    );
  }

  async getPrices(): Promise<PriceTable> {
    return SIMULATED_PRICES;
  }

  async customerExists(customerId: string): Promise<boolean> {
    const [row] = await this.db
      .select({ id: simCustomers.id })
      .from(simCustomers)
      .where(eq(simCustomers.id, customerId));
    return row !== undefined;
  }

  /**
   * One statement: the card looked up (attached to this customer) and the payment it makes
   * inserted, unless the idempotency key already has one (chargeResult says what each card does).
   */
  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const now = sqlTime(this.clock.now());
    const params = [
      newId("simPayment"),
      request.idempotencyKey,
      request.customerId,
      request.paymentMethodId,
      request.amount,
      request.currency,
      request.metadata.top_up_id,
      now,
    ];
    const insert = () => hotQuery(this.db, CHARGE_SQL, params);
    let inserted = await insert();
    // The key was used before: a request under it is answered with its payment, unless the key is
    // older than the TTL, which is forgotten as Stripe prunes it, and the same key charges anew.
    if (!inserted[0] && (await this.forgetExpiredKey(request.idempotencyKey, this.clock.now())))
      inserted = await insert();
    const [row] = inserted;
    const payment = row ? readPayment(row) : await this.byIdempotencyKey(request);
    if (row?.method_kind === "dispute" && payment.status === "succeeded") await this.afterPayment.openDispute(payment);
    return toOutcome(payment);
  }

  async refund(request: RefundRequest): Promise<ProviderRefund | RefundRefusal> {
    return this.afterPayment.refund(request);
  }

  async listRefunds(paymentId: string): Promise<ProviderRefund[]> {
    return this.afterPayment.listRefunds(paymentId);
  }

  async retrieveDispute(disputeId: string): Promise<ProviderDispute | null> {
    return this.afterPayment.retrieveDispute(disputeId);
  }

  async settleDispute(disputeId: string, outcome: "won" | "lost"): Promise<void> {
    return this.afterPayment.settleDispute(disputeId, outcome);
  }

  async refundAtProvider(paymentId: string, amount: number): Promise<ProviderRefund> {
    return this.afterPayment.refundAtProvider(paymentId, amount);
  }

  async pendingEvents(limit: number): Promise<ReceivedBillingEvent[]> {
    return this.afterPayment.pendingEvents(limit);
  }

  async markEventsDelivered(ids: string[]): Promise<void> {
    return this.afterPayment.markEventsDelivered(ids);
  }

  async retrievePayment(paymentId: string): Promise<ChargeOutcome> {
    const [payment] = await this.db.select().from(simPayments).where(eq(simPayments.id, paymentId));
    if (!payment) throw new Error(`No such payment: ${paymentId}`);
    if (payment.status === "processing") {
      // A processing payment settles by the time anyone asks again, as a bank debit would.
      const [settled] = await this.db
        .update(simPayments)
        .set({ status: "succeeded", updatedAt: this.clock.now() })
        .where(and(eq(simPayments.id, paymentId), eq(simPayments.status, "processing")))
        .returning();
      return toOutcome(settled ?? payment);
    }
    return toOutcome(payment);
  }

  async describePayment(paymentId: string): Promise<PaymentFacts | null> {
    const [payment] = await this.db.select().from(simPayments).where(eq(simPayments.id, paymentId));
    if (!payment) return null;
    const { amount, currency, customerId, topUpId } = payment;
    return { paymentId, amount, currency, customerId, topUpId };
  }

  async findPayment(request: FindPaymentRequest): Promise<ChargeOutcome | null> {
    const [payment] = await this.db
      .select()
      .from(simPayments)
      .where(
        and(
          eq(simPayments.topUpId, request.topUpId),
          eq(simPayments.customerId, request.customerId),
          gte(simPayments.createdAt, request.createdAfter),
        ),
      )
      .orderBy(desc(simPayments.createdAt))
      .limit(1);
    return payment ? this.retrievePayment(payment.id) : null;
  }

  async cancelPayment(paymentId: string): Promise<ChargeOutcome> {
    await this.db
      .update(simPayments)
      .set({
        status: "failed",
        failureCode: "canceled",
        failureMessage: failureMessages.canceled,
        updatedAt: this.clock.now(),
      })
      .where(and(eq(simPayments.id, paymentId), inArray(simPayments.status, ["requires_action", "processing"])));
    return this.retrievePayment(paymentId);
  }

  /** The cardholder's authentication step (the dashboard's "complete payment"); simulated only. */
  async completeAuthentication(paymentId: string, succeed: boolean): Promise<ChargeOutcome> {
    const [updated] = await this.db
      .update(simPayments)
      .set(
        succeed
          ? { status: "succeeded", failureCode: null, failureMessage: null, updatedAt: this.clock.now() }
          : {
              status: "failed",
              failureCode: "authentication_failed",
              failureMessage: failureMessages.authentication_failed,
              updatedAt: this.clock.now(),
            },
      )
      .where(and(eq(simPayments.id, paymentId), eq(simPayments.status, "requires_action")))
      .returning();
    return this.retrievePayment(updated?.id ?? paymentId);
  }

  async createCustomer(_input: { organizationId: string; name: string }): Promise<string> {
    const id = newId("simCustomer");
    await this.db.insert(simCustomers).values({ id, createdAt: this.clock.now() });
    return id;
  }

  async addCards(input: ProvisionCardsInput): Promise<ProviderPaymentMethod[]> {
    const now = this.clock.now();
    const year = now.getUTCFullYear();
    const added: ProviderPaymentMethod[] = [];
    for (const [index, kind] of input.kinds.entries()) {
      if (!isTestCardKind(kind)) throw new Error(`Unknown test card: ${kind}`);
      const card = TEST_CARDS[kind];
      const row = {
        id: newId("simPaymentMethod"),
        customerId: input.customerId,
        kind,
        brand: card.brand,
        last4: card.last4,
        expMonth: kind === "expired" ? 1 : 12,
        expYear: kind === "expired" ? year - 1 : year + 4,
        // Distinct, ordered creation times keep the listing order the order the cards were added.
        createdAt: new Date(now.getTime() + index),
      };
      await this.db.insert(simPaymentMethods).values(row);
      added.push({ ...row, type: "card", isDefault: index === input.defaultIndex });
    }
    if (input.defaultIndex !== undefined) {
      const chosen = added[input.defaultIndex];
      if (!chosen) throw new Error(`No card at index ${input.defaultIndex}`);
      await this.setDefaultPaymentMethod(input.customerId, chosen.id);
    }
    return added;
  }

  async setDefaultPaymentMethod(customerId: string, paymentMethodId: string | null): Promise<void> {
    await this.db
      .update(simCustomers)
      .set({ defaultPaymentMethodId: paymentMethodId })
      .where(eq(simCustomers.id, customerId));
  }

  /** As Stripe's detach: the card is never listed or charged again, and stops being the default. */
  async removePaymentMethod(customerId: string, paymentMethodId: string): Promise<boolean> {
    const [detached] = await this.db
      .update(simPaymentMethods)
      .set({ detachedAt: this.clock.now() })
      .where(
        and(
          eq(simPaymentMethods.id, paymentMethodId),
          eq(simPaymentMethods.customerId, customerId),
          isNull(simPaymentMethods.detachedAt),
        ),
      )
      .returning({ id: simPaymentMethods.id });
    if (!detached) return false;
    await this.db
      .update(simCustomers)
      .set({ defaultPaymentMethodId: null })
      .where(and(eq(simCustomers.id, customerId), eq(simCustomers.defaultPaymentMethodId, paymentMethodId)));
    return true;
  }

  /** Operator switch: the provider cannot list this customer's payment methods (502). */
  async setOutage(customerId: string, outage: boolean): Promise<void> {
    await this.db.update(simCustomers).set({ outage }).where(eq(simCustomers.id, customerId));
  }

  /** How many payments were ever executed, for tests and benchmarks that count charges. */
  async countPayments(filter: { customerId?: string; idempotencyKey?: string } = {}): Promise<number> {
    const conditions = [
      filter.customerId ? eq(simPayments.customerId, filter.customerId) : undefined,
      filter.idempotencyKey ? eq(simPayments.idempotencyKey, filter.idempotencyKey) : undefined,
    ];
    const rows = await this.db
      .select({ id: simPayments.id })
      .from(simPayments)
      .where(and(...conditions));
    return rows.length;
  }

  /** A key older than the TTL is forgotten, as Stripe prunes it: the same key then charges anew. */
  private async forgetExpiredKey(idempotencyKey: string, now: Date): Promise<boolean> {
    const [stale] = await this.db
      .select({ id: simPayments.id })
      .from(simPayments)
      .where(
        and(
          eq(simPayments.idempotencyKey, idempotencyKey),
          lt(simPayments.createdAt, new Date(now.getTime() - SIMULATED_IDEMPOTENCY_KEY_TTL_MS)),
        ),
      );
    if (!stale) return false;
    await this.db
      .update(simPayments)
      .set({ idempotencyKey: `${idempotencyKey}~forgotten~${stale.id}` })
      .where(eq(simPayments.id, stale.id));
    return true;
  }

  private async byIdempotencyKey(request: ChargeRequest): Promise<SimPayment> {
    const [existing] = await this.db
      .select()
      .from(simPayments)
      .where(eq(simPayments.idempotencyKey, request.idempotencyKey));
    if (!existing) throw new Error("Simulated payment vanished under its idempotency key.");
    if (
      existing.amount !== request.amount ||
      existing.currency !== request.currency ||
      existing.paymentMethodId !== request.paymentMethodId ||
      existing.customerId !== request.customerId
    ) {
      // Stripe answers 400 idempotency_error here: it means our own request drifted, a bug.
      throw new Error(`Idempotency key ${request.idempotencyKey} was reused with different parameters.`);
    }
    return existing;
  }
}
