import type Stripe from "stripe";
import { missing } from "./answers";
import type { TestCard } from "./cards";
import { Events, type WebhookEndpoint } from "./events";
import type { WireCurrencyOption, WirePrice } from "./objects";

/*
 * Stripe's state: the objects, the events, and the clock their timestamps come from. Routes,
 * pages and the test API change it only through these maps and `events.emit`.
 */

/** The server's clock: real time plus what the tests advanced it by. */
export class Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }
  seconds(): number {
    return Math.floor(this.now() / 1000);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  /** How far the tests moved the clock, for the state file. */
  offset(): number {
    return this.offsetMs;
  }
  reset(): void {
    this.offsetMs = 0;
  }
}

/** A saved PaymentMethod and the test card behind it (what its charges do). */
export interface StoredMethod {
  method: Stripe.PaymentMethod;
  card: TestCard;
}

/** A Price and its amounts per currency, which Stripe answers only when `currency_options` is expanded. */
export interface StoredPrice {
  price: WirePrice;
  options: Record<string, WireCurrencyOption>;
}

export class Store {
  readonly clock = new Clock();
  readonly events: Events;
  /** Where this server listens; the hosted pages' URLs start with it. */
  baseUrl = "";
  readonly customers = new Map<string, Stripe.Customer>();
  /** Customers deleted (DELETE /v1/customers/:id): retrieving one answers a stub, anything else 404. */
  readonly deletedCustomers = new Set<string>();
  readonly methods = new Map<string, StoredMethod>();
  readonly products = new Map<string, Stripe.Product>();
  readonly prices = new Map<string, StoredPrice>();
  readonly intents = new Map<string, Stripe.PaymentIntent>();
  readonly sessions = new Map<string, Stripe.Checkout.Session>();
  readonly setupIntents = new Map<string, Stripe.SetupIntent>();
  /** Each succeeded PaymentIntent's Charge (its latest_charge), which refunds and disputes hang on. */
  readonly charges = new Map<string, Stripe.Charge>();
  readonly refunds = new Map<string, Stripe.Refund>();
  readonly disputes = new Map<string, Stripe.Dispute>();

  constructor(webhook: WebhookEndpoint) {
    this.events = new Events(this.clock, webhook);
  }

  /** `param` names where the id came from, as Stripe's 404 does (`id` in the path, `customer` in a form). */
  customer(id: string, param = "id"): Stripe.Customer {
    const customer = this.customers.get(id);
    if (customer === undefined) throw missing("customer", id, param);
    return customer;
  }
  method(id: string): StoredMethod {
    return found(this.methods.get(id), "PaymentMethod", id);
  }
  product(id: string): Stripe.Product {
    return found(this.products.get(id), "product", id);
  }
  price(id: string): StoredPrice {
    return found(this.prices.get(id), "price", id);
  }
  intent(id: string, param = "id"): Stripe.PaymentIntent {
    return found(this.intents.get(id), "payment_intent", id, param);
  }
  charge(id: string, param = "id"): Stripe.Charge {
    return found(this.charges.get(id), "charge", id, param);
  }
  refund(id: string): Stripe.Refund {
    return found(this.refunds.get(id), "refund", id);
  }
  dispute(id: string): Stripe.Dispute {
    return found(this.disputes.get(id), "dispute", id);
  }
  session(id: string): Stripe.Checkout.Session {
    return found(this.sessions.get(id), "checkout.session", id);
  }
  setupIntent(id: string): Stripe.SetupIntent {
    return found(this.setupIntents.get(id), "setup_intent", id);
  }
  event(id: string): Stripe.Event {
    return found(this.events.find(id), "event", id);
  }

  /** Forgets every object and event, and puts the clock back (the webhook endpoint and holds stay). */
  clear(): void {
    for (const map of [
      this.customers,
      this.methods,
      this.products,
      this.prices,
      this.intents,
      this.sessions,
      this.setupIntents,
    ]) {
      map.clear();
    }
    for (const map of [this.charges, this.refunds, this.disputes]) {
      map.clear();
    }
    this.deletedCustomers.clear();
    this.events.clear();
    this.clock.reset();
  }
}

function found<T>(value: T | undefined, kind: string, id: string, param = "id"): T {
  if (value === undefined) throw missing(kind, id, param);
  return value;
}
