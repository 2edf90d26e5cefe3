import { brandOf, hasBrand } from "@/lib/brand";
import type { Bundle, Currency } from "@/lib/catalog";

/** A saved payment method as the provider reports it; usability (expiry) is decided in lib/points. */
export interface ProviderPaymentMethod {
  id: string;
  type: "card";
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  isDefault: boolean;
  /** The simulated test card behind it, when the provider knows one. */
  kind?: string;
}

/** Prices in minor units; a missing entry means the provider has no price for it. */
export type PriceTable = Record<Currency, Partial<Record<Bundle, number>>>;

export interface ChargeRequest {
  /** The purchase's own key (topup_<id>); never the client's reference, never regenerated. */
  idempotencyKey: string;
  customerId: string;
  paymentMethodId: string;
  amount: number;
  currency: Currency;
  metadata: { top_up_id: string; organization_id: string; reference: string };
}

/**
 * What the provider says about a payment. `processing` covers every unknown: the provider may
 * or may not have charged, so the purchase stays unresolved until asked again.
 */
export type ChargeOutcome =
  | { status: "succeeded"; paymentId: string }
  | { status: "failed"; paymentId: string | null; code: string; message: string }
  | { status: "requires_action"; paymentId: string; code: string; message: string }
  | { status: "processing"; paymentId: string | null };

const providerUnavailableBrand = brandOf("ProviderUnavailableError");

/** The provider cannot answer right now (listing methods, pricing): 502 payment_methods_unavailable. */
export class ProviderUnavailableError extends Error {
  readonly [providerUnavailableBrand] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(providerUnavailableBrand)(value);
  }
  constructor(message = "The billing provider did not answer.", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProviderUnavailableError";
  }
}

const providerRefusedBrand = brandOf("ProviderRefusedError");

/**
 * Why the provider refuses this service rather than failing for a moment: retrying will not help,
 * only the service's operator can (docs/contract.md §4 step 6).
 * - `customer_missing`: it no longer knows the organisation's customer (deleted, or another
 *   account's or mode's keys);
 * - `credentials_refused`: it refuses the service's own API key.
 */
export type ProviderRefusal = "customer_missing" | "credentials_refused";

/**
 * The provider refused the call for a reason that lasts until an operator mends it. Carries what
 * the operator's log needs (the provider's request id and error code), never the key.
 */
export class ProviderRefusedError extends Error {
  readonly [providerRefusedBrand] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(providerRefusedBrand)(value);
  }
  readonly reason: ProviderRefusal;
  /** The customer the provider does not know (customer_missing only). */
  readonly customerId: string | null;
  /** The provider's own error code (resource_missing, authentication_error…), for the log. */
  readonly providerCode: string | null;
  /** The provider's id of the refused request (Stripe's req_…), for the log. */
  readonly providerRequestId: string | null;

  constructor(
    reason: ProviderRefusal,
    details: { customerId?: string | null; providerCode?: string | null; providerRequestId?: string | null } = {},
  ) {
    super(
      reason === "customer_missing"
        ? `The billing provider has no customer ${details.customerId ?? ""}.`
        : "The billing provider refused the API key.",
    );
    this.name = "ProviderRefusedError";
    this.reason = reason;
    this.customerId = details.customerId ?? null;
    this.providerCode = details.providerCode ?? null;
    this.providerRequestId = details.providerRequestId ?? null;
  }
}

/** How to find the payment made for a purchase when its id was never learned (findPayment). */
export interface FindPaymentRequest {
  /** The purchase's id, as sent in the charge's metadata.top_up_id. */
  topUpId: string;
  customerId: string;
  /** No payment for the purchase can be older than this (its creation, less a margin). */
  createdAfter: Date;
}

/** What a payment is for, as the provider records it: checked before an event binds it to a purchase. */
export interface PaymentFacts {
  paymentId: string;
  amount: number;
  currency: string;
  customerId: string | null;
  /** The charge's metadata.top_up_id, or null when it carries none. */
  topUpId: string | null;
}

/**
 * What a provider's event says changed in a customer's saved cards: a card saved (`added`) or
 * removed (`removed`), or the default changed (`default`: the new one, null when the customer has
 * none now, and the one it replaced).
 */
/** Where the provider's card setup page sends the admin back, and who started it. */
export interface CardSetupStart {
  successUrl: string;
  cancelUrl: string;
  startedBy?: string;
}

/** A card saved on the provider's page, and the user who started saving it (null: not said). */
export interface FinishedCardSetup {
  paymentMethodId: string;
  startedBy: string | null;
}

export type PaymentMethodChange =
  | { change: "added" | "removed"; paymentMethodId: string }
  | { change: "default"; paymentMethodId: string | null; previousId: string | null };

/** What a provider's event says happened to a payment; each only says "ask about this payment now". */
export type PaymentEventKind = "payment_succeeded" | "payment_failed" | "payment_requires_action" | "payment_canceled";

/** A refund as the provider records it (Stripe: a Refund). */
export interface ProviderRefund {
  refundId: string;
  paymentId: string;
  /** Minor units of the payment's currency. */
  amount: number;
  /** Upper case, as the product names currencies. */
  currency: string;
  /**
   * `succeeded`: the money is on its way back to the cardholder; `pending`: accepted, not yet
   * done; `failed` / `canceled`: no money moved. Points follow `succeeded` only.
   */
  status: "pending" | "succeeded" | "failed" | "canceled";
  /** The refund request of this service that made it (metadata.refund_id, rf_…), or null for one made elsewhere. */
  requestId: string | null;
  created: Date;
}

export interface RefundRequest {
  /** Recorded with the request before it is sent (refund_<rf id>); a re-send under it refunds once. */
  idempotencyKey: string;
  paymentId: string;
  amount: number;
  metadata: { refund_id: string; top_up_id: string; points: string };
}

/** A provider's answer refusing a refund (more than is left, a disputed charge): nothing moved. */
export interface RefundRefusal {
  refused: true;
  code: string;
  message: string;
}

/** A dispute (chargeback, or an inquiry) on a payment, as the provider records it now. */
export interface ProviderDispute {
  disputeId: string;
  paymentId: string;
  amount: number;
  currency: string;
  /**
   * `open` until decided; `won` (an inquiry closed with no chargeback counts as won) or `lost`.
   */
  status: "open" | "won" | "lost";
  /** The disputed money was taken from the merchant (Stripe: charge.dispute.funds_withdrawn). */
  fundsWithdrawn: boolean;
  /** It was given back (Stripe: charge.dispute.funds_reinstated). */
  fundsReinstated: boolean;
  created: Date;
}

/**
 * A provider's webhook event in the service's own terms (lib/billing/stripe/events.ts makes them
 * from Stripe's), handled by lib/points/intake/billing-events.ts. Nothing in it is taken as the truth
 * about a payment, a refund or a dispute: the provider is asked.
 */
export type BillingEvent =
  | {
      kind: PaymentEventKind;
      paymentId: string;
      /** The customer the payment is charged to, as the event says. */
      customerId: string | null;
      /** The purchase the payment's metadata names (metadata.top_up_id), or null. */
      topUpId: string | null;
    }
  /** A payment's refunds may have changed (Stripe: charge.refunded, refund.created/updated/failed). */
  | { kind: "refunds_changed"; paymentId: string; customerId: string | null }
  /** A dispute was opened, moved money or closed (Stripe: charge.dispute.*). */
  | { kind: "dispute_changed"; disputeId: string; paymentId: string }
  /**
   * A customer's saved cards or default changed, wherever the change was made: `change` says how
   * when the event says so; without it, only what is cached about the cards is stale (an expiry
   * updated, a customer deleted). customerId is null when the event names no customer.
   */
  | { kind: "payment_methods_changed"; customerId: string | null; change?: PaymentMethodChange }
  /** A card was saved on the provider's own page (Stripe Checkout in setup mode), in this session. */
  | { kind: "card_setup_completed"; customerId: string; sessionId: string }
  /** Nothing this service acts on; the reason is answered to the provider. */
  | { kind: "ignored"; reason: string };

/** A received event: the provider's id (for dedupe) and its own name for the type, with what it means. */
export type ReceivedBillingEvent = BillingEvent & { id: string; type: string };

/** A webhook delivery, verified: an event to handle, a refusal to answer, or a signed event of no usable shape. */
export type WebhookVerdict =
  | { kind: "event"; event: ReceivedBillingEvent }
  | { kind: "refused"; status: number; message: string }
  | { kind: "ignored"; reason: string };

export interface ProvisionCardsInput {
  customerId: string;
  kinds: string[];
  /** 0-based index into kinds; undefined leaves no default. */
  defaultIndex?: number;
}

/**
 * What a provider offers in test mode only. Pages and services ask for these by presence, never
 * by the provider's class or name. Stripe offers test cards; the simulated provider also plays the
 * cardholder and the bank.
 */
export interface TestMode {
  /** The test card kinds this provider can save (`--card`, the demo organisation, Add test card), in order. */
  cardKinds(): readonly string[];
  /** Why a kind this provider does not offer cannot be saved, when it can say more than "unknown". */
  cardKindRefusal?(kind: string): string | null;
  /** The cardholder's authentication step, taken in the dashboard rather than on the provider's page. */
  completeAuthentication?(paymentId: string, succeed: boolean): Promise<ChargeOutcome>;
  /** Operator switch: listing this customer's cards fails (502) until switched off. */
  setOutage?(customerId: string, on: boolean): Promise<void>;
  /** Every saved card, as the operator sees them: answered even while an outage is simulated. */
  listAllPaymentMethods?(customerId: string): Promise<ProviderPaymentMethod[]>;
  /**
   * Decides an open dispute the way the provider's test mode does (Stripe: evidence
   * `winning_evidence` or `losing_evidence`); its events follow. Throws when there is no such open dispute.
   */
  settleDispute?(disputeId: string, outcome: "won" | "lost"): Promise<void>;
  /** A refund made at the provider itself, not through this service (Stripe's dashboard); its events follow. */
  refundAtProvider?(paymentId: string, amount: number): Promise<ProviderRefund>;
  /**
   * Events a provider without webhooks has not yet handed over (the simulated provider plays
   * Stripe's webhooks this way), oldest first; lib/points/intake/provider-events.ts delivers them.
   */
  pendingEvents?(limit: number): Promise<ReceivedBillingEvent[]>;
  /** Marks events as delivered, once handled. */
  markEventsDelivered?(ids: string[]): Promise<void>;
}

export interface BillingProvider {
  /** For messages and logs only: callers ask for a capability, never for a name. */
  readonly name: "simulated" | "stripe";
  /** How people know it, in messages: "Stripe", "the simulated billing provider". */
  readonly displayName: string;
  /** The environment variable holding its API key, named when the key is refused; null when it has none. */
  readonly keyVariable: string | null;
  /**
   * The longest one call may take, its own retries and backoff included (ms). Every call is cut
   * off there, and a purchase's lease must outlast the calls one settlement makes
   * (assertLeaseCoversProvider in lib/points/purchase/lease.ts), so a slow provider can never outlive
   * the lease silently.
   */
  readonly callBudgetMs: number;
  /**
   * How long the provider remembers an idempotency key (Stripe: 24 hours); after that the same key
   * is a new request. lib/points/purchase/settle.ts re-sends a charge under its key only well within this.
   */
  readonly idempotencyKeyTtlMs: number;
  /** Test cards and, for the simulated provider, the cardholder's and the bank's parts; absent in production. */
  readonly testMode?: TestMode;
  /**
   * Throws ProviderUnavailableError when it cannot answer now, ProviderRefusedError when it refuses
   * for a lasting reason (an unknown customer, a refused key).
   */
  listPaymentMethods(customerId: string): Promise<ProviderPaymentMethod[]>;
  /** Throws as listPaymentMethods does (a refused key is ProviderRefusedError). */
  getPrices(): Promise<PriceTable>;
  /** True when the provider knows this customer (and it is not deleted); throws when it cannot tell. */
  customerExists(customerId: string): Promise<boolean>;
  /**
   * One cheap call that says whether the provider accepts the service's credentials, for the
   * startup banner: throws ProviderRefusedError or ProviderUnavailableError. Absent when there are none.
   */
  checkCredentials?(timeoutMs: number): Promise<void>;
  /** Sends (or re-sends, under the same key) the charge. Throws only when the outcome is unknown. */
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  /** Asks about an existing payment; never charges. Throws only when the outcome is unknown. */
  retrievePayment(paymentId: string): Promise<ChargeOutcome>;
  /** The amount, currency, customer and purchase of an existing payment, or null when there is none. */
  describePayment(paymentId: string): Promise<PaymentFacts | null>;
  /**
   * The provider's own receipt of a payment, for a person (Stripe: the charge's receipt_url), or
   * null when it has none. Providers without receipts leave it out.
   */
  receiptUrl?(paymentId: string): Promise<string | null>;
  /**
   * The payment made for a purchase, found by its metadata.top_up_id, or null when the provider
   * has none. Used once an idempotency key may have been forgotten, before any new charge.
   * Never charges; throws when it cannot tell.
   */
  findPayment(request: FindPaymentRequest): Promise<ChargeOutcome | null>;
  /**
   * Cancels a payment still waiting for the cardholder, and answers its state afterwards: a
   * payment the cardholder completed first answers `succeeded`, not cancelled. Throws when unknown.
   */
  cancelPayment(paymentId: string): Promise<ChargeOutcome>;
  /**
   * Refunds part or all of a payment, under the request's idempotency key: the provider's refund,
   * or its refusal (more than is left, a disputed charge). Throws when the outcome is unknown (a
   * timeout, an outage): the refund may or may not exist, and a re-send under the key says which.
   */
  refund(request: RefundRequest): Promise<ProviderRefund | RefundRefusal>;
  /** Every refund of a payment, oldest first. Throws when the provider cannot answer. */
  listRefunds(paymentId: string): Promise<ProviderRefund[]>;
  /** A dispute as it stands now, or null when the provider has none by that id. Throws when it cannot answer. */
  retrieveDispute(disputeId: string): Promise<ProviderDispute | null>;
  /**
   * Starts the cardholder's authentication of a payment awaiting it, on the provider's own page:
   * the URL to send the cardholder to (who comes back to returnUrl), or the payment's state when
   * no page is needed. Absent for the simulated provider, whose step happens in the dashboard.
   */
  beginAuthentication?(
    paymentId: string,
    returnUrl: string,
  ): Promise<{ redirectUrl: string } | { outcome: ChargeOutcome }>;
  /**
   * Starts saving a card on the provider's own page (Stripe Checkout in setup mode): the URL to send
   * the admin to. `successUrl` may hold `{CHECKOUT_SESSION_ID}`; `startedBy`, the admin's user id, is
   * kept with the session. Absent for the simulated provider.
   */
  startCardSetup?(customerId: string, setup: CardSetupStart): Promise<{ url: string }>;
  /** The card a finished setup session saved for this customer, or null when it is not (yet) complete. */
  finishCardSetup?(customerId: string, sessionId: string): Promise<FinishedCardSetup | null>;

  /**
   * Verifies a webhook delivery (its signature under the provider's own webhook secret, its size,
   * age and shape) and turns it into a
   * BillingEvent, dropping whatever the provider itself caches that the event says changed.
   * Absent for a provider that sends none. Callers ask for it by what it does, never by class (nor
   * catch its errors by class): Next bundles the startup hook apart from the routes, so a class
   * can exist twice.
   */
  verifyWebhook?(request: Request, now: Date): Promise<WebhookVerdict>;

  /*
   * Provisioning, for the operator command and the dashboard. Like every provider call, made before
   * or after a database transaction, never inside one: a customer left behind by a later failure is
   * harmless, with either provider.
   */
  /** `replacing`: the customer this one replaces (org update --new-stripe-customer), so it is a new one. */
  createCustomer(input: { organizationId: string; name: string; replacing?: string }): Promise<string>;
  addCards(input: ProvisionCardsInput): Promise<ProviderPaymentMethod[]>;
  setDefaultPaymentMethod(customerId: string, paymentMethodId: string | null): Promise<void>;
  /**
   * Removes a saved card from the customer (Stripe: detach): never listed or charged again, and no
   * longer the default, so the customer has none until one is chosen. Payments already made with it
   * are untouched. False, with nothing changed, when the customer has no such card (another
   * customer's included); throws when the provider cannot answer.
   */
  removePaymentMethod(customerId: string, paymentMethodId: string): Promise<boolean>;
}
