import { and, asc, eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { ChargeRequest, ProviderRefund, ReceivedBillingEvent } from "@/lib/billing/provider";
import type { SimulatedBillingProvider } from "@/lib/billing/simulated/provider";
import { billingEventOf } from "@/lib/billing/stripe/events";
import type { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import type { Db } from "@/lib/db/client";
import { type SimPayment, simPaymentMethods, simPayments } from "@/lib/db/schema";
import type { FakeStripe } from "./fake-stripe/server";

export type ProviderName = "simulated" | "stripe";

/**
 * Where a payment stands at the provider, in words both providers share: a simulated payment's
 * status, or a PaymentIntent's (an off-session intent left needing a payment method by an
 * authentication error is awaiting the cardholder; one cancelled is `canceled`).
 */
export type PaymentState = "succeeded" | "awaiting_cardholder" | "processing" | "failed" | "canceled";

/** One payment the provider holds: a simulated payment row, or a PaymentIntent. */
export interface ProbedPayment {
  id: string;
  /** The purchase it was made for (its metadata.top_up_id). */
  topUpId: string | null;
  customerId: string;
  paymentMethodId: string | null;
  amount: number;
  /** Upper case, as the product names currencies. */
  currency: string;
  state: PaymentState;
  /** Why it failed, in the provider's words (card_declined, insufficient_funds, …); null otherwise. */
  failureCode: string | null;
}

/**
 * What a test reads from, and does to, the billing provider behind the code under test, the same
 * way on either provider: the simulated provider's tables and switches, or the Stripe test
 * server's `control` API and Stripe's own calls (through the SDK) for what a cardholder or an
 * operator would do there. The provider's clock is the test clock: moving `ctx.clock` moves it,
 * so keys the provider forgets after 24 hours are forgotten on either.
 */
export interface ProviderProbe {
  readonly name: ProviderName;
  /** The customer's payments at the provider, oldest first. */
  payments(customerId: string): Promise<ProbedPayment[]>;
  /** One payment by id, or undefined when the provider has none. */
  payment(paymentId: string): Promise<ProbedPayment | undefined>;
  /** How many payments the provider executed for the customer (every attempt, whatever its outcome). */
  countPayments(customerId: string): Promise<number>;
  /**
   * Every charge request that reached the provider, in order (optionally one customer's): calls
   * through any wrapper of ctx.provider count once they reach it; a fault injected before it does not.
   */
  chargeRequests(customerId?: string): ChargeRequest[];
  /** The cardholder finishes (or fails) the authentication of a payment awaiting it, on the provider's side. */
  completeAuthentication(paymentId: string, succeed: boolean): Promise<void>;
  /** The provider cannot list this customer's payment methods (or can again). */
  setOutage(customerId: string, down: boolean): Promise<void>;
  /** A saved card's expiry changes at the provider. */
  setCardExpiry(customerId: string, paymentMethodId: string, expMonth: number, expYear: number): Promise<void>;
  /** A saved card is removed at the provider (it stops being the default). */
  detachCard(customerId: string, paymentMethodId: string): Promise<void>;
  /**
   * The provider's events not yet taken, in the service's terms, oldest first: the simulated
   * provider's queued webhooks, or the Stripe test server's events (through the product's own
   * translation). A test hands them to handleBillingEvent in whatever order it means to test.
   */
  takeEvents(): Promise<ReceivedBillingEvent[]>;
  /** The payment's refunds at the provider, oldest first. */
  refunds(paymentId: string): Promise<ProviderRefund[]>;
  /** Drops what one test left switched on at the provider (faults, held requests). */
  reset(): void;
}

/** A charge log that any provider object can write to: one per test context, shared by its instances. */
export type ChargeLog = ChargeRequest[];

function filterLog(log: ChargeLog, customerId?: string): ChargeRequest[] {
  return log.filter((request) => !customerId || request.customerId === customerId);
}

export function simulatedProbe(db: Db, provider: SimulatedBillingProvider, log: ChargeLog): ProviderProbe {
  const toProbed = (row: SimPayment): ProbedPayment => ({
    id: row.id,
    topUpId: row.topUpId,
    customerId: row.customerId,
    paymentMethodId: row.paymentMethodId,
    amount: row.amount,
    currency: row.currency.toUpperCase(),
    state: simulatedState(row),
    failureCode: row.status === "failed" ? row.failureCode : null,
  });
  const payments = async (customerId: string) =>
    (
      await db
        .select()
        .from(simPayments)
        .where(eq(simPayments.customerId, customerId))
        .orderBy(asc(simPayments.createdAt), asc(simPayments.id))
    ).map(toProbed);
  return {
    name: "simulated",
    payments,
    payment: async (paymentId) => {
      const [row] = await db.select().from(simPayments).where(eq(simPayments.id, paymentId));
      return row ? toProbed(row) : undefined;
    },
    countPayments: async (customerId) => provider.countPayments({ customerId }),
    chargeRequests: (customerId) => filterLog(log, customerId),
    completeAuthentication: async (paymentId, succeed) => {
      const [row] = await db.select().from(simPayments).where(eq(simPayments.id, paymentId));
      if (row?.status !== "requires_action")
        throw new Error(`${paymentId} is ${row?.status ?? "missing"}, not awaiting the cardholder`);
      await provider.completeAuthentication(paymentId, succeed);
    },
    setOutage: (customerId, down) => provider.setOutage(customerId, down),
    setCardExpiry: async (customerId, paymentMethodId, expMonth, expYear) => {
      const updated = await db
        .update(simPaymentMethods)
        .set({ expMonth, expYear })
        .where(and(eq(simPaymentMethods.id, paymentMethodId), eq(simPaymentMethods.customerId, customerId)))
        .returning({ id: simPaymentMethods.id });
      if (updated.length !== 1) throw new Error(`No card ${paymentMethodId} for ${customerId}`);
    },
    detachCard: async (customerId, paymentMethodId) => {
      if (!(await provider.removePaymentMethod(customerId, paymentMethodId)))
        throw new Error(`No card ${paymentMethodId} for ${customerId}`);
    },
    takeEvents: async () => {
      const events = await provider.pendingEvents(1_000);
      await provider.markEventsDelivered(events.map((event) => event.id));
      return events;
    },
    refunds: (paymentId) => provider.listRefunds(paymentId),
    reset: () => {},
  };
}

function simulatedState(row: SimPayment): PaymentState {
  switch (row.status) {
    case "succeeded":
      return "succeeded";
    case "requires_action":
      return "awaiting_cardholder";
    case "processing":
      return "processing";
    default:
      return row.failureCode === "canceled" ? "canceled" : "failed";
  }
}

export function stripeProbe(
  fake: FakeStripe,
  stripe: Stripe,
  provider: StripeBillingProvider,
  log: ChargeLog,
): ProviderProbe {
  const intents = (customerId?: string) =>
    fake.control
      .paymentIntents(customerId ? { customer: customerId } : {})
      .slice()
      .sort((a, b) => a.created - b.created);
  const customerPath = (customerId: string) => `/v1/customers/${customerId}`;
  // The last event taken: those after it are new. A server reset (its events gone) starts over.
  let lastTaken: string | null = null;
  return {
    name: "stripe",
    payments: async (customerId) => intents(customerId).map(toProbedIntent),
    payment: async (paymentId) => {
      const intent = intents().find((candidate) => candidate.id === paymentId);
      return intent ? toProbedIntent(intent) : undefined;
    },
    countPayments: async (customerId) => intents(customerId).length,
    chargeRequests: (customerId) => filterLog(log, customerId),
    completeAuthentication: async (paymentId, succeed) => {
      // Off-session, Stripe leaves the intent needing a payment method; the dashboard confirms it
      // on-session, and the cardholder then answers the 3-D Secure page.
      const intent = await stripe.paymentIntents.retrieve(paymentId);
      if (intent.status === "requires_payment_method") {
        const method = typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
        await stripe.paymentIntents.confirm(paymentId, {
          payment_method: method,
          return_url: "http://127.0.0.1:3000/dashboard/buy/return",
          off_session: false,
        });
      } else if (intent.status !== "requires_action") {
        throw new Error(`${paymentId} is ${intent.status}, not awaiting the cardholder`);
      }
      fake.control.completeAuthentication(paymentId, succeed);
    },
    setOutage: async (customerId, down) => {
      // Retrieving the customer is half of listing its cards: a 500 there is an outage for it.
      if (down)
        fake.control.fault({
          method: "GET",
          path: customerPath(customerId),
          kind: "500_before",
          times: Number.POSITIVE_INFINITY,
        });
      else fake.control.clearFaults({ method: "GET", path: customerPath(customerId) });
      provider.invalidatePaymentMethods(customerId);
    },
    setCardExpiry: async (customerId, paymentMethodId, expMonth, expYear) => {
      const method = await stripe.paymentMethods.retrieve(paymentMethodId);
      if (method.customer !== customerId) throw new Error(`No card ${paymentMethodId} for ${customerId}`);
      await stripe.paymentMethods.update(paymentMethodId, { card: { exp_month: expMonth, exp_year: expYear } });
      provider.invalidatePaymentMethods(customerId);
    },
    detachCard: async (customerId, paymentMethodId) => {
      const method = await stripe.paymentMethods.retrieve(paymentMethodId);
      if (method.customer !== customerId) throw new Error(`No card ${paymentMethodId} for ${customerId}`);
      await stripe.paymentMethods.detach(paymentMethodId);
      provider.invalidatePaymentMethods(customerId);
    },
    takeEvents: async () => {
      const events = fake.control.events();
      const start = lastTaken === null ? 0 : events.findIndex((event) => event.id === lastTaken) + 1;
      const taken = events.slice(start);
      lastTaken = taken.at(-1)?.id ?? lastTaken;
      // The product's own translation, as a webhook delivery would get it (the events are Stripe's, oldest first).
      return taken.map(billingEventOf);
    },
    refunds: (paymentId) => provider.listRefunds(paymentId),
    reset: () => {
      fake.control.clearFaults();
      fake.control.releaseHeld();
    },
  };
}

/**
 * A PaymentIntent's state in the probe's words, read from Stripe's own fields (deliberately not
 * through the product's outcome mapping, which the tests are checking).
 */
function intentState(intent: Stripe.PaymentIntent): PaymentState {
  const error = intent.last_payment_error;
  const needsAuthentication =
    error?.code === "authentication_required" || error?.decline_code === "authentication_required";
  if (intent.status === "succeeded") return "succeeded";
  if (intent.status === "requires_action") return "awaiting_cardholder";
  if (intent.status === "requires_payment_method") return needsAuthentication ? "awaiting_cardholder" : "failed";
  if (intent.status === "canceled") return "canceled";
  return "processing";
}

function toProbedIntent(intent: Stripe.PaymentIntent): ProbedPayment {
  const error = intent.last_payment_error;
  const state = intentState(intent);
  return {
    id: intent.id,
    topUpId: intent.metadata?.top_up_id ?? null,
    customerId: typeof intent.customer === "string" ? intent.customer : (intent.customer?.id ?? ""),
    paymentMethodId:
      typeof intent.payment_method === "string" ? intent.payment_method : (intent.payment_method?.id ?? null),
    amount: intent.amount,
    currency: intent.currency.toUpperCase(),
    state,
    failureCode: state === "failed" ? (error?.decline_code ?? error?.code ?? null) : null,
  };
}
