import { createHash, randomBytes } from "node:crypto";
import type Stripe from "stripe";
import type { TestCard } from "./cards";

/*
 * Stripe's objects, built whole and typed with the SDK's own types, so the compiler holds this
 * test server to the shapes Stripe sends for the API version stripe-node 23 pins.
 */

export function stripeId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
}

export function customerObject(input: {
  id: string;
  created: number;
  name: string | null;
  email: string | null;
  metadata: Record<string, string>;
}): Stripe.Customer {
  return {
    id: input.id,
    object: "customer",
    balance: 0,
    created: input.created,
    default_source: null,
    description: null,
    email: input.email,
    name: input.name,
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: input.metadata,
    shipping: null,
  };
}

export function paymentMethodObject(input: {
  id: string;
  created: number;
  card: TestCard;
  expYear: number;
}): Stripe.PaymentMethod {
  const { card } = input;
  return {
    id: input.id,
    object: "payment_method",
    billing_details: {
      address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
      email: null,
      name: null,
      phone: null,
      tax_id: null,
    },
    card: {
      brand: card.brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: "pass" },
      country: "US",
      display_brand: card.brand,
      exp_month: card.expired ? 1 : 12,
      exp_year: input.expYear,
      fingerprint: createHash("sha256").update(card.number).digest("base64url").slice(0, 16),
      funding: "credit",
      generated_from: null,
      last4: card.number.slice(-4),
      networks: { available: [card.brand], preferred: null },
      regulated_status: "unregulated",
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: input.created,
    customer: null,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: "card",
  };
}

export function paymentIntentObject(input: {
  id: string;
  created: number;
  amount: number;
  currency: string;
  customer: string | null;
  paymentMethod: string | null;
  metadata: Record<string, string>;
  description: string | null;
}): Stripe.PaymentIntent {
  return {
    id: input.id,
    object: "payment_intent",
    allowed_payment_method_types: null,
    amount: input.amount,
    amount_capturable: 0,
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: "automatic",
    client_secret: `${input.id}_secret_${randomBytes(8).toString("hex")}`,
    confirmation_method: "automatic",
    created: input.created,
    currency: input.currency,
    customer: input.customer,
    customer_account: null,
    description: input.description,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    managed_payments: null,
    metadata: input.metadata,
    next_action: null,
    on_behalf_of: null,
    payment_method: input.paymentMethod,
    payment_method_configuration_details: null,
    payment_method_options: null,
    payment_method_types: ["card"],
    payment_record: null,
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: "requires_payment_method",
    transfer_group: null,
  };
}

export function productObject(input: {
  id: string;
  created: number;
  name: string;
  metadata: Record<string, string>;
}): Stripe.Product {
  return {
    id: input.id,
    object: "product",
    active: true,
    created: input.created,
    description: null,
    images: [],
    livemode: false,
    marketing_features: [],
    metadata: input.metadata,
    name: input.name,
    package_dimensions: null,
    shippable: null,
    tax_details: null,
    type: "service",
    updated: input.created,
    url: null,
  };
}

/** One currency's amount on a Price, as the wire carries it (`unit_amount_decimal` a string). */
export interface WireCurrencyOption {
  custom_unit_amount: null;
  tax_behavior: "unspecified";
  unit_amount: number;
  unit_amount_decimal: string;
}

/**
 * A Price as the wire carries it. The SDK turns `unit_amount_decimal` (a decimal string on the
 * wire) into its Decimal type, and refuses anything else, so the wire form is typed here as such.
 */
export type WirePrice = Omit<Stripe.Price, "unit_amount_decimal" | "currency_options"> & {
  unit_amount_decimal: string | null;
  currency_options?: Record<string, WireCurrencyOption>;
};

export function priceObject(input: {
  id: string;
  created: number;
  product: string;
  currency: string;
  unitAmount: number;
  lookupKey: string | null;
  metadata: Record<string, string>;
  nickname: string | null;
}): WirePrice {
  return {
    id: input.id,
    object: "price",
    active: true,
    billing_scheme: "per_unit",
    created: input.created,
    currency: input.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: input.lookupKey,
    metadata: input.metadata,
    nickname: input.nickname,
    product: input.product,
    recurring: null,
    tax_behavior: "unspecified",
    tiers_mode: null,
    transform_quantity: null,
    type: "one_time",
    unit_amount: input.unitAmount,
    unit_amount_decimal: String(input.unitAmount),
  };
}

export function setupIntentObject(input: {
  id: string;
  created: number;
  customer: string;
  paymentMethod: string;
}): Stripe.SetupIntent {
  return {
    id: input.id,
    object: "setup_intent",
    allowed_payment_method_types: null,
    application: null,
    automatic_payment_methods: null,
    cancellation_reason: null,
    client_secret: `${input.id}_secret_${randomBytes(8).toString("hex")}`,
    created: input.created,
    customer: input.customer,
    description: null,
    excluded_payment_method_types: null,
    last_setup_error: null,
    latest_attempt: null,
    livemode: false,
    mandate: null,
    metadata: {},
    next_action: null,
    on_behalf_of: null,
    payment_method: input.paymentMethod,
    payment_method_configuration_details: null,
    payment_method_options: null,
    payment_method_types: ["card"],
    single_use_mandate: null,
    status: "succeeded",
    usage: "off_session",
  };
}

export function checkoutSessionObject(input: {
  id: string;
  created: number;
  customer: string;
  successUrl: string | null;
  cancelUrl: string | null;
  url: string;
  metadata: Record<string, string>;
  currency: string | null;
}): Stripe.Checkout.Session {
  return {
    id: input.id,
    object: "checkout.session",
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: null,
    amount_total: null,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: input.cancelUrl,
    client_reference_id: null,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: input.created,
    currency: input.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: input.customer,
    customer_account: null,
    customer_creation: null,
    customer_details: null,
    customer_email: null,
    discounts: null,
    expires_at: input.created + 24 * 60 * 60,
    integration_identifier: null,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: input.metadata,
    mode: "setup",
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: "always",
    payment_method_configuration_details: null,
    payment_method_options: null,
    payment_method_types: ["card"],
    payment_status: "no_payment_required",
    permissions: null,
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: "open",
    submit_type: null,
    subscription: null,
    success_url: input.successUrl,
    total_details: null,
    ui_mode: "hosted",
    url: input.url,
    wallet_options: null,
  };
}

/** The API version stripe-node 23 sends; the compiler checks it is the SDK's own. */
const API_VERSION: Stripe.LatestApiVersion = "2026-10-28.endive";

export type EventType = Stripe.Event["type"];
/** The event of one type, whose `data.object` the SDK types (a PaymentIntent for `payment_intent.*`). */
export type EventOf<T extends EventType> = Extract<Stripe.Event, { type: T }>;

/**
 * What changed, as an event's `data.previous_attributes` says it: each changed field's value
 * before, and of a changed hash (`invoice_settings`, `card`, `metadata`) only its changed keys.
 * The SDK types it `Partial<T>`, which would ask for every key of such a hash.
 */
export type PreviousAttributes<T> = {
  [K in keyof T]?: NonNullable<T[K]> extends readonly unknown[]
    ? T[K]
    : NonNullable<T[K]> extends object
      ? Partial<NonNullable<T[K]>> | Extract<T[K], null>
      : T[K];
};

export function eventObject<T extends EventType>(input: {
  id: string;
  created: number;
  type: T;
  object: EventOf<T>["data"]["object"];
  previousAttributes?: PreviousAttributes<EventOf<T>["data"]["object"]>;
  pendingWebhooks: number;
}): EventOf<T> {
  const event = {
    id: input.id,
    object: "event",
    api_version: API_VERSION,
    created: input.created,
    data: {
      object: input.object,
      ...(input.previousAttributes ? { previous_attributes: input.previousAttributes } : {}),
    },
    livemode: false,
    pending_webhooks: input.pendingWebhooks,
    request: { id: null, idempotency_key: null },
    type: input.type,
  } satisfies Omit<Stripe.Event, "type" | "data"> & { type: EventType; data: Stripe.Event.Data };
  // The compiler cannot narrow the union by a generic `type`: the signature ties `type` to `object`.
  return event as unknown as EventOf<T>;
}
