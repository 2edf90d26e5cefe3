import { and, asc, desc, eq, gte, inArray, isNull, lt } from "drizzle-orm";
import { brandOf, hasBrand } from "@/lib/brand";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { hotQuery, rowReader, selectColumns, sqlTime } from "@/lib/db/hot";
import {
  simCustomers,
  simDisputes,
  simEvents,
  simPaymentMethods,
  simPayments,
  type SimPayment,
  simRefunds,
} from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import type {
  BillingEvent,
  BillingProvider,
  ChargeOutcome,
  ChargeRequest,
  FindPaymentRequest,
  PaymentFacts,
  PriceTable,
  ProviderPaymentMethod,
  ProviderDispute,
  ProviderRefund,
  ProvisionCardsInput,
  ReceivedBillingEvent,
  RefundRefusal,
  RefundRequest,
  TestMode,
} from "./provider";
import { ProviderRefusedError, ProviderUnavailableError } from "./provider";

/**
 * The test cards of docs/contract.md §6, after Stripe's: what each one does when charged.
 * `expired` is a card whose expiry has passed, so it is never usable.
 */
export const TEST_CARDS = {
  visa: { brand: "visa", last4: "4242", charge: "succeeded" },
  mastercard: { brand: "mastercard", last4: "4444", charge: "succeeded" },
  declined: { brand: "visa", last4: "0002", charge: "card_declined" },
  insufficient_funds: { brand: "visa", last4: "9995", charge: "insufficient_funds" },
  authentication_required: { brand: "visa", last4: "3184", charge: "requires_action" },
  processing: { brand: "visa", last4: "1881", charge: "processing" },
  expired: { brand: "visa", last4: "0069", charge: "expired_card" },
  /** After Stripe's pm_card_createDispute: the charge succeeds, then the cardholder disputes it. */
  dispute: { brand: "visa", last4: "0259", charge: "succeeded" },
} as const;

export type TestCardKind = keyof typeof TEST_CARDS;

export function isTestCardKind(value: string): value is TestCardKind {
  return Object.hasOwn(TEST_CARDS, value);
}

/** Prices per bundle in minor units: a volume discount, the same shape in each currency. */
export const SIMULATED_PRICES: PriceTable = {
  USD: { 100: 1000, 250: 2400, 500: 4500, 1000: 8500, 2500: 20000, 5000: 37500, 7500: 52500 },
  GBP: { 100: 800, 250: 1900, 500: 3600, 1000: 6800, 2500: 16000, 5000: 30000, 7500: 42000 },
  EUR: { 100: 900, 250: 2200, 500: 4100, 1000: 7800, 2500: 18400, 5000: 34500, 7500: 48300 },
};

const failureMessages: Record<string, string> = {
  card_declined: "Your card was declined.",
  insufficient_funds: "Your card has insufficient funds.",
  expired_card: "Your card has expired.",
  authentication_required:
    "The card issuer requires the cardholder to authenticate this payment before it can complete.",
  authentication_failed: "The cardholder did not complete authentication; the payment was not taken.",
  invalid_payment_method: "The payment method is no longer attached to this customer.",
  canceled: "The payment was cancelled before the cardholder completed it.",
};

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
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

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
    const [row] = await this.db.select({ id: simCustomers.id }).from(simCustomers).where(eq(simCustomers.id, customerId));
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
    if (!inserted[0] && (await this.forgetExpiredKey(request.idempotencyKey, this.clock.now()))) inserted = await insert();
    const [row] = inserted;
    const payment = row ? readPayment(row) : await this.byIdempotencyKey(request);
    if (row?.method_kind === "dispute" && payment.status === "succeeded") await this.openDispute(payment);
    return toOutcome(payment);
  }

  async refund(request: RefundRequest): Promise<ProviderRefund | RefundRefusal> {
    const [existing] = await this.db.select().from(simRefunds).where(eq(simRefunds.idempotencyKey, request.idempotencyKey));
    if (existing) return toRefund(existing);
    const refused = await this.refusal(request.paymentId, request.amount);
    if (refused) return refused;
    return this.makeRefund(request.paymentId, request.amount, { idempotencyKey: request.idempotencyKey, requestId: request.metadata.refund_id });
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
    await this.queueEvent("charge.dispute.closed", { kind: "dispute_changed", disputeId, paymentId: settled.paymentId });
    if (outcome === "lost") {
      await this.queueEvent("charge.dispute.funds_withdrawn", { kind: "dispute_changed", disputeId, paymentId: settled.paymentId });
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
      return { refused: true, code: "charge_disputed", message: "The payment has been disputed; it cannot be refunded." };
    }
    const refunded = (await this.listRefunds(paymentId))
      .filter((refund) => refund.status === "succeeded" || refund.status === "pending")
      .reduce((sum, refund) => sum + refund.amount, 0);
    if (refunded >= payment.amount) return { refused: true, code: "charge_already_refunded", message: "The payment has been refunded already." };
    if (amount > payment.amount - refunded) {
      return { refused: true, code: "amount_too_large", message: `At most ${payment.amount - refunded} is left to refund.` };
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
    const row = inserted[0] ?? (await this.db.select().from(simRefunds).where(eq(simRefunds.idempotencyKey, keys.idempotencyKey ?? "")))[0];
    if (!row) throw new Error("Simulated refund vanished under its idempotency key.");
    if (inserted[0]) {
      await this.queueEvent("charge.refunded", { kind: "refunds_changed", paymentId, customerId: payment?.customerId ?? null });
    }
    return toRefund(row);
  }

  private async openDispute(payment: SimPayment): Promise<void> {
    const id = newId("simDispute");
    const opened = await this.db
      .insert(simDisputes)
      .values({ id, paymentId: payment.id, amount: payment.amount, currency: payment.currency, status: "open", createdAt: this.clock.now() })
      .onConflictDoNothing({ target: simDisputes.paymentId })
      .returning();
    if (opened[0]) await this.queueEvent("charge.dispute.created", { kind: "dispute_changed", disputeId: id, paymentId: payment.id });
  }

  /** What Stripe would send as a webhook, kept until the service takes it (lib/points/provider-events.ts). */
  private async queueEvent(type: string, event: BillingEvent): Promise<void> {
    await this.db.insert(simEvents).values({ id: newId("simEvent"), type, event: JSON.stringify(event), createdAt: this.clock.now() });
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
      .set({ status: "failed", failureCode: "canceled", failureMessage: failureMessages.canceled, updatedAt: this.clock.now() })
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

function toRefund(row: typeof simRefunds.$inferSelect): ProviderRefund {
  return {
    refundId: row.id,
    paymentId: row.paymentId,
    amount: row.amount,
    currency: row.currency.toUpperCase(),
    status: row.status as ProviderRefund["status"],
    requestId: row.requestId,
    created: row.createdAt,
  };
}

const readCustomer = rowReader(simCustomers, "c_");
const readMethod = rowReader(simPaymentMethods, "m_");
/** A customer with its attached cards, oldest first: what every purchase lists. */
const LIST_METHODS_SQL = `select ${selectColumns(simCustomers, "c", "c_")}, ${selectColumns(simPaymentMethods, "m", "m_")}
from sim_customers c
left join sim_payment_methods m on m.customer_id = c.id and m.detached_at is null
where c.id = $1
order by m.created_at, m.id`;
const readPayment = rowReader(simPayments);
/** What charging a card of this kind does; null: no such card attached to the customer. */
function chargeResult(kind: string | null): { status: string; failureCode: string | null; failureMessage: string | null } {
  const result = kind === null ? "invalid_payment_method" : isTestCardKind(kind) ? TEST_CARDS[kind].charge : "card_declined";
  const status = result === "succeeded" || result === "requires_action" || result === "processing" ? result : "failed";
  const failureCode = status === "failed" ? result : status === "requires_action" ? "authentication_required" : null;
  return { status, failureCode, failureMessage: failureCode ? (failureMessages[failureCode] ?? null) : null };
}

/** chargeResult as SQL over `k.kind`, its answers written into the statement as constants. */
function chargeResultSql(field: "status" | "failureCode" | "failureMessage"): string {
  const literal = (value: string | null) => (value === null ? "null" : `'${value.replaceAll("'", "''")}'`);
  const kinds = Object.keys(TEST_CARDS).map((kind) => `when k.kind = ${literal(kind)} then ${literal(chargeResult(kind)[field])}`);
  return `case when k.kind is null then ${literal(chargeResult(null)[field])} ${kinds.join(" ")} else ${literal(chargeResult("unknown")[field])} end`;
}

/**
 * $1 id, $2 idempotency key, $3 customer, $4 payment method, $5 amount, $6 currency, $7 top-up,
 * $8 now. Returns the payment and the card's kind, or nothing when the key has a payment already.
 */
const CHARGE_SQL = `with m as (
  select kind from sim_payment_methods where id = $4 and customer_id = $3 and detached_at is null
),
k as (select (select kind from m) as kind)
insert into sim_payments (id, idempotency_key, customer_id, payment_method_id, amount, currency, top_up_id,
  status, failure_code, failure_message, created_at, updated_at)
select $1, $2, $3, $4, $5, $6, $7, ${chargeResultSql("status")}, ${chargeResultSql("failureCode")},
  ${chargeResultSql("failureMessage")}, $8, $8
from k
on conflict (idempotency_key) do nothing
returning *, (select kind from m) as method_kind`;

function toOutcome(payment: SimPayment): ChargeOutcome {
  switch (payment.status) {
    case "succeeded":
      return { status: "succeeded", paymentId: payment.id };
    case "requires_action":
      return {
        status: "requires_action",
        paymentId: payment.id,
        code: payment.failureCode ?? "authentication_required",
        message: payment.failureMessage ?? failureMessages.authentication_required ?? "",
      };
    case "processing":
      return { status: "processing", paymentId: payment.id };
    default:
      return {
        status: "failed",
        paymentId: payment.id,
        code: payment.failureCode ?? "card_declined",
        message: payment.failureMessage ?? "The payment failed.",
      };
  }
}
