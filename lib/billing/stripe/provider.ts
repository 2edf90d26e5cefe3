import type Stripe from "stripe";
import type {
  BillingProvider,
  CardSetupStart,
  ChargeOutcome,
  ChargeRequest,
  FindPaymentRequest,
  FinishedCardSetup,
  PaymentFacts,
  PriceTable,
  ProviderDispute,
  ProviderPaymentMethod,
  ProviderRefund,
  ProvisionCardsInput,
  RefundRefusal,
  RefundRequest,
  TestMode,
  WebhookVerdict,
} from "@/lib/billing/provider";
import { ProviderRefusedError } from "@/lib/billing/provider";
import { BUNDLES, CURRENCIES } from "@/lib/catalog";
import type { Clock } from "@/lib/clock";
import { declineOutcome, isPoisonedKeyReplay, toProviderMethod } from "./answers";
import { STRIPE_CALL_BUDGET_MS, stripeErrorType } from "./client";
import {
  attachTestCards,
  createCustomer,
  finishCardSetup,
  removePaymentMethod,
  setDefaultPaymentMethod,
  startCardSetup,
} from "./customers";
import { billingEventOf, idOf } from "./events";
import { outcomeOfPaymentIntent } from "./map-outcome";
import {
  assertStripeTestMode,
  createStripeRefund,
  DISPUTE_TEST_EVIDENCE,
  listStripeRefunds,
  retrieveStripeDispute,
  toProviderRefund,
} from "./refunds-disputes";
import { stripeReadError } from "./refusals";
import { stripeTestCardKinds, stripeTestCardToken } from "./test-cards";
import { malformedEvent, verifyStripeWebhook, WebhookRefusal } from "./webhook";

/** Prices change rarely and a purchase prices before charging: a minute's cache saves a call per purchase. */
const PRICE_CACHE_MS = 60_000;
/** Short, and dropped on every payment-method, customer or card-setup webhook (verifyWebhook). */
const METHODS_CACHE_MS = 10_000;
/** Stripe forgets an idempotency key 24 hours after its first use. */
const STRIPE_IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** How far back findPayment pages through a customer's PaymentIntents at most. */
const FIND_PAYMENT_MAX_ITEMS = 1_000;

/** The lookup key of a bundle's Price at Stripe: `points_<N>` (npm run points -- stripe setup-prices). */
export function priceLookupKey(points: number): string {
  return `points_${points}`;
}

/**
 * Stripe as the billing provider (docs/contract.md §6): prices by lookup key, the organisation's
 * customer and its saved cards, one off-session PaymentIntent per purchase under the purchase's
 * idempotency key. Every call carries the client's timeout and retry budget (client.ts).
 */
export class StripeBillingProvider implements BillingProvider {
  readonly name = "stripe" as const;
  readonly displayName = "Stripe";
  readonly keyVariable = "STRIPE_SECRET_KEY";
  readonly callBudgetMs = STRIPE_CALL_BUDGET_MS;
  readonly idempotencyKeyTtlMs = STRIPE_IDEMPOTENCY_KEY_TTL_MS;
  /**
   * Test cards, and what Stripe's test mode lets an operator do: decide a dispute by its magic
   * evidence, refund as the dashboard would. The cardholder authenticates on Stripe's side.
   */
  readonly testMode: TestMode = {
    cardKinds: () => stripeTestCardKinds(this.testServer),
    cardKindRefusal: (kind) => {
      const mapped = this.testCardToken(kind);
      return "refused" in mapped ? mapped.refused : null;
    },
    settleDispute: (disputeId, outcome) => this.settleDispute(disputeId, outcome),
    refundAtProvider: (paymentId, amount) => this.refundAtProvider(paymentId, amount),
  };
  private prices: { table: PriceTable; at: number } | null = null;
  private methods = new Map<string, { list: ProviderPaymentMethod[]; at: number }>();

  constructor(
    readonly stripe: Stripe,
    private readonly clock: Clock,
    /** True when STRIPE_API_URL points at a Stripe-compatible test server, which offers more test cards. */
    private readonly testServer = false,
    /** STRIPE_WEBHOOK_SECRET: without it, every webhook is refused. */
    private readonly webhookSecret?: string,
  ) {}

  async listPaymentMethods(customerId: string): Promise<ProviderPaymentMethod[]> {
    const cached = this.methods.get(customerId);
    if (cached && this.clock.now().getTime() - cached.at < METHODS_CACHE_MS) return cached.list;
    try {
      const [customer, cards] = await Promise.all([
        this.stripe.customers.retrieve(customerId),
        this.stripe.paymentMethods.list({ customer: customerId, type: "card", limit: 100 }),
      ]);
      if (customer.deleted) {
        throw new ProviderRefusedError("customer_missing", {
          customerId,
          providerCode: "customer_deleted",
          providerRequestId: customer.lastResponse?.requestId ?? null,
        });
      }
      const defaultId = idOf(customer.invoice_settings.default_payment_method);
      const list = cards.data.flatMap((method) =>
        method.card ? [toProviderMethod(method, method.card, defaultId)] : [],
      );
      this.methods.set(customerId, { list, at: this.clock.now().getTime() });
      return list;
    } catch (error) {
      throw stripeReadError(error, "Stripe did not list the payment methods.", customerId);
    }
  }

  async customerExists(customerId: string): Promise<boolean> {
    try {
      const customer = await this.stripe.customers.retrieve(customerId);
      return !customer.deleted;
    } catch (error) {
      const refusal = stripeReadError(error, "Stripe did not answer about the customer.", customerId);
      if (refusal instanceof ProviderRefusedError && refusal.reason === "customer_missing") return false;
      throw refusal;
    }
  }

  /** Lists one Price: the cheapest call that needs a valid key, without retries, cut off at timeoutMs. */
  async checkCredentials(timeoutMs: number): Promise<void> {
    try {
      await this.stripe.prices.list({ limit: 1 }, { timeout: timeoutMs, maxNetworkRetries: 0 });
    } catch (error) {
      throw stripeReadError(error, "Stripe could not be reached.");
    }
  }

  /** The test payment method for a `--card KIND`, or why this Stripe cannot attach one. */
  testCardToken(kind: string): { token: string } | { refused: string } {
    return stripeTestCardToken(kind, this.testServer);
  }

  /** Drops a customer's cached card list (all of them without one): it changed, or a webhook said so. */
  invalidatePaymentMethods(customerId?: string): void {
    if (customerId) this.methods.delete(customerId);
    else this.methods.clear();
  }

  async getPrices(): Promise<PriceTable> {
    if (this.prices && this.clock.now().getTime() - this.prices.at < PRICE_CACHE_MS) return this.prices.table;
    const list = await this.stripe.prices
      .list({ lookup_keys: BUNDLES.map(priceLookupKey), active: true, limit: 100, expand: ["data.currency_options"] })
      .catch((error: unknown) => {
        throw stripeReadError(error, "Stripe did not list the prices.");
      });
    const table: PriceTable = { USD: {}, GBP: {}, EUR: {} };
    for (const price of list.data) {
      const bundle = BUNDLES.find((points) => priceLookupKey(points) === price.lookup_key);
      if (!bundle || price.type !== "one_time") continue;
      for (const currency of CURRENCIES) {
        const wire = currency.toLowerCase();
        const amount =
          price.currency_options?.[wire]?.unit_amount ?? (price.currency === wire ? price.unit_amount : null);
        // No price in a currency is "not available", never a guess (422 currency_not_available).
        if (typeof amount === "number" && amount > 0) table[currency][bundle] = amount;
      }
    }
    this.prices = { table, at: this.clock.now().getTime() };
    return table;
  }

  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: request.amount,
          currency: request.currency.toLowerCase(),
          customer: request.customerId,
          payment_method: request.paymentMethodId,
          off_session: true,
          confirm: true,
          metadata: request.metadata,
          description: `${request.metadata.reference} (Points top-up ${request.metadata.top_up_id})`,
        },
        { idempotencyKey: request.idempotencyKey },
      );
      return outcomeOfPaymentIntent(intent);
    } catch (error) {
      if (isPoisonedKeyReplay(error)) {
        // Stripe stored a 500 under this key after it began executing: every re-send will answer the
        // same 500, so the charge's fate is read from the PaymentIntents themselves.
        const found = await this.findPayment({
          topUpId: request.metadata.top_up_id,
          customerId: request.customerId,
          createdAfter: new Date(this.clock.now().getTime() - 25 * 60 * 60 * 1000),
        });
        if (found) return found;
      }
      return declineOutcome(error);
    }
  }

  async retrievePayment(paymentId: string): Promise<ChargeOutcome> {
    return outcomeOfPaymentIntent(await this.stripe.paymentIntents.retrieve(paymentId));
  }

  async describePayment(paymentId: string): Promise<PaymentFacts | null> {
    try {
      const intent = await this.stripe.paymentIntents.retrieve(paymentId);
      return {
        paymentId: intent.id,
        amount: intent.amount,
        currency: intent.currency.toUpperCase(),
        customerId: idOf(intent.customer),
        topUpId: intent.metadata?.top_up_id ?? null,
      };
    } catch (error) {
      if (
        stripeErrorType(error) === "StripeInvalidRequestError" &&
        (error as { statusCode?: number }).statusCode === 404
      )
        return null;
      throw error;
    }
  }

  async receiptUrl(paymentId: string): Promise<string | null> {
    const intent = await this.stripe.paymentIntents.retrieve(paymentId);
    const chargeId = idOf(intent.latest_charge);
    if (!chargeId) return null;
    return (await this.stripe.charges.retrieve(chargeId)).receipt_url ?? null;
  }

  refund(request: RefundRequest): Promise<ProviderRefund | RefundRefusal> {
    return createStripeRefund(this.stripe, request);
  }

  listRefunds(paymentId: string): Promise<ProviderRefund[]> {
    return listStripeRefunds(this.stripe, paymentId);
  }

  retrieveDispute(disputeId: string): Promise<ProviderDispute | null> {
    return retrieveStripeDispute(this.stripe, disputeId);
  }

  /**
   * Test mode only: submits the evidence Stripe's test mode decides a dispute by. Refused, before
   * any request, unless the key is a test key (or the API a test server): on a live dispute that
   * text would be this merchant's real answer to the bank.
   */
  private async settleDispute(disputeId: string, outcome: "won" | "lost"): Promise<void> {
    assertStripeTestMode(this.stripe, this.testServer, `submit test evidence on dispute ${disputeId}`);
    const dispute = await this.stripe.disputes.retrieve(disputeId);
    if (dispute.livemode) throw new Error(`Refusing to submit test evidence on ${disputeId}: it is a live dispute.`);
    await this.stripe.disputes.update(disputeId, {
      evidence: { uncategorized_text: DISPUTE_TEST_EVIDENCE[outcome] },
      submit: true,
    });
  }

  /** Test mode only: a refund made at Stripe, as its dashboard makes one (no metadata, no idempotency key). */
  private async refundAtProvider(paymentId: string, amount: number): Promise<ProviderRefund> {
    assertStripeTestMode(this.stripe, this.testServer, `refund ${paymentId} outside the service`);
    return toProviderRefund(await this.stripe.refunds.create({ payment_intent: paymentId, amount }), paymentId);
  }

  async verifyWebhook(request: Request, now: Date): Promise<WebhookVerdict> {
    let event: Stripe.Event;
    try {
      event = await verifyStripeWebhook(this.stripe, request, this.webhookSecret, now);
    } catch (error) {
      if (error instanceof WebhookRefusal) return { kind: "refused", status: error.status, message: error.message };
      throw error;
    }
    const malformed = malformedEvent(event);
    if (malformed) return { kind: "ignored", reason: malformed };
    const received = billingEventOf(event);
    // The cached card list goes as soon as Stripe says the cards changed, whatever the domain does next.
    if (received.kind === "payment_methods_changed" || received.kind === "card_setup_completed") {
      this.invalidatePaymentMethods(received.customerId ?? undefined);
    }
    return { kind: "event", event: received };
  }

  /**
   * Lists the customer's PaymentIntents since the purchase began and matches metadata.top_up_id.
   * Not Stripe's search: its index can lag behind by up to an hour.
   */
  async findPayment(request: FindPaymentRequest): Promise<ChargeOutcome | null> {
    const found: Stripe.PaymentIntent[] = [];
    let seen = 0;
    for await (const intent of this.stripe.paymentIntents.list({
      customer: request.customerId,
      created: { gte: Math.floor(request.createdAfter.getTime() / 1000) },
      limit: 100,
    })) {
      if (intent.metadata?.top_up_id === request.topUpId) found.push(intent);
      seen += 1;
      if (seen >= FIND_PAYMENT_MAX_ITEMS) {
        throw new Error(`More than ${FIND_PAYMENT_MAX_ITEMS} PaymentIntents to search for ${request.topUpId}.`);
      }
    }
    if (found.length > 1) throw new Error(`${found.length} PaymentIntents carry top-up ${request.topUpId}.`);
    return found[0] ? outcomeOfPaymentIntent(found[0]) : null;
  }

  async cancelPayment(paymentId: string): Promise<ChargeOutcome> {
    try {
      return outcomeOfPaymentIntent(await this.stripe.paymentIntents.cancel(paymentId));
    } catch (error) {
      // Stripe refuses to cancel an intent that already succeeded (or is canceled): say what it is.
      if (stripeErrorType(error) === "StripeInvalidRequestError") return this.retrievePayment(paymentId);
      throw error;
    }
  }

  /** Confirms the same PaymentIntent on-session; 3-D Secure then happens at next_action's URL. */
  async beginAuthentication(
    paymentId: string,
    returnUrl: string,
  ): Promise<{ redirectUrl: string } | { outcome: ChargeOutcome }> {
    const current = await this.stripe.paymentIntents.retrieve(paymentId);
    const outcome = outcomeOfPaymentIntent(current);
    if (outcome.status !== "requires_action") return { outcome };
    const intent =
      current.status === "requires_action"
        ? current
        : await this.stripe.paymentIntents
            .confirm(paymentId, {
              payment_method: idOf(current.payment_method) ?? undefined,
              return_url: returnUrl,
              off_session: false,
            })
            .catch((error: unknown) => {
              // A card error here is the on-session attempt's answer: the intent says what it is now.
              if (stripeErrorType(error) === "StripeCardError") return this.stripe.paymentIntents.retrieve(paymentId);
              throw error;
            });
    const url = intent.next_action?.redirect_to_url?.url;
    return url ? { redirectUrl: url } : { outcome: outcomeOfPaymentIntent(intent) };
  }

  startCardSetup(customerId: string, setup: CardSetupStart): Promise<{ url: string }> {
    return startCardSetup(this.stripe, customerId, setup);
  }

  async finishCardSetup(customerId: string, sessionId: string): Promise<FinishedCardSetup | null> {
    const finished = await finishCardSetup(this.stripe, customerId, sessionId);
    this.invalidatePaymentMethods(customerId);
    return finished;
  }

  createCustomer(input: { organizationId: string; name: string; replacing?: string }): Promise<string> {
    return createCustomer(this.stripe, input);
  }

  /** Test mode only: attaches Stripe's test payment method for each kind (docs/contract.md §6). */
  async addCards(input: ProvisionCardsInput): Promise<ProviderPaymentMethod[]> {
    const added = await attachTestCards(this.stripe, input, (kind) => this.testCardToken(kind));
    if (input.defaultIndex !== undefined) {
      const chosen = added[input.defaultIndex];
      if (!chosen) throw new Error(`No card at index ${input.defaultIndex}`);
      await this.setDefaultPaymentMethod(input.customerId, chosen.id);
    }
    this.invalidatePaymentMethods(input.customerId);
    return added;
  }

  async setDefaultPaymentMethod(customerId: string, paymentMethodId: string | null): Promise<void> {
    await setDefaultPaymentMethod(this.stripe, customerId, paymentMethodId);
    this.invalidatePaymentMethods(customerId);
  }

  async removePaymentMethod(customerId: string, paymentMethodId: string): Promise<boolean> {
    try {
      return await removePaymentMethod(this.stripe, customerId, paymentMethodId);
    } finally {
      this.invalidatePaymentMethods(customerId);
    }
  }
}
