import type Stripe from "stripe";
import type { DeliveryLogEntry } from "./events";
import type { FaultKind, FaultSpec, Faults } from "./faults";
import type { IdempotencyKeys } from "./idempotency";
import { finishAuthentication, settleProcessing } from "./resources/payment-intents";
import type { Store } from "./store";

/*
 * The test API: what tests may do that Stripe's API cannot (faults, the clock, the cardholder's
 * steps, holding and repeating deliveries), in process through `control` or over HTTP under /_test.
 */

export interface RequestLogEntry {
  method: string;
  path: string;
  idempotencyKey: string | null;
  replayed: boolean;
  status: number;
  fault: FaultKind | null;
}

/** The in-process test API; /_test over HTTP offers the same. */
export interface FakeStripeControl {
  /** Queues a fault for the next matching request(s). */
  fault(spec: FaultSpec): void;
  /** Drops queued faults: all of them, or only those queued for exactly this method and path. */
  clearFaults(filter?: { method?: string; path?: string }): void;
  /** Releases every request held by a `hold` fault. */
  releaseHeld(): void;
  heldCount(): number;
  /** Moves the server's clock (object timestamps, the 24-hour key expiry). */
  advanceClock(ms: number): void;
  now(): number;
  requests(filter?: { method?: string; path?: string }): RequestLogEntry[];
  paymentIntents(filter?: { customer?: string }): Stripe.PaymentIntent[];
  /** Refunds, oldest first (optionally one PaymentIntent's). */
  refunds(filter?: { paymentIntent?: string }): Stripe.Refund[];
  /** Disputes, oldest first (optionally one PaymentIntent's). */
  disputes(filter?: { paymentIntent?: string }): Stripe.Dispute[];
  /** The cardholder's step on the 3-D Secure page, without a browser. */
  completeAuthentication(paymentIntentId: string, succeed: boolean): Stripe.PaymentIntent;
  /** A processing PaymentIntent settles (a bank debit clearing, or failing). */
  settleProcessing(paymentIntentId: string, succeed: boolean): Stripe.PaymentIntent;
  events(): Stripe.Event[];
  /** Deliveries wait until released; `order` then says in which order they go. */
  holdDeliveries(): void;
  releaseDeliveries(order?: "sent" | "reverse"): Promise<void>;
  /** The next event is delivered twice. */
  duplicateNextDelivery(): void;
  redeliver(eventId: string): Promise<number>;
  deliveries(): DeliveryLogEntry[];
  /** Resolves when every delivery started so far has been answered. */
  settled(): Promise<void>;
  setWebhook(url: string | null, secret?: string): void;
  reset(): void;
}

/** The server's parts the test API reaches into. */
export interface FakeStripeParts {
  store: Store;
  keys: IdempotencyKeys;
  faults: Faults;
  requests: RequestLogEntry[];
}

export function createControl({ store, keys, faults, requests }: FakeStripeParts): FakeStripeControl {
  const { events, clock } = store;
  return {
    fault: (spec) => faults.add(spec),
    clearFaults: (filter) => faults.clear(filter),
    releaseHeld: () => faults.releaseHeld(),
    heldCount: () => faults.heldCount(),
    advanceClock: (ms) => clock.advance(ms),
    now: () => clock.now(),
    requests: (filter = {}) =>
      requests.filter(
        (entry) =>
          (!filter.method || entry.method === filter.method) && (!filter.path || entry.path.startsWith(filter.path)),
      ),
    paymentIntents: (filter = {}) =>
      [...store.intents.values()].filter((intent) => !filter.customer || intent.customer === filter.customer),
    refunds: (filter = {}) =>
      [...store.refunds.values()].filter(
        (refund) => !filter.paymentIntent || refund.payment_intent === filter.paymentIntent,
      ),
    disputes: (filter = {}) =>
      [...store.disputes.values()].filter(
        (dispute) => !filter.paymentIntent || dispute.payment_intent === filter.paymentIntent,
      ),
    completeAuthentication: (id, succeed) => finishAuthentication(store, id, succeed),
    settleProcessing: (id, succeed) => settleProcessing(store, id, succeed),
    events: () => events.all(),
    holdDeliveries: () => events.hold(),
    releaseDeliveries: (order = "sent") => events.release(order),
    duplicateNextDelivery: () => events.duplicateNextDelivery(),
    redeliver: async (eventId) => {
      const event = events.find(eventId);
      if (!event) throw new Error(`No event ${eventId}`);
      return events.deliver(event);
    },
    deliveries: () => events.deliveries(),
    settled: () => events.settled(),
    setWebhook: (url, secret) => events.setEndpoint(url, secret),
    reset: () => {
      store.clear();
      keys.clear();
      faults.clear();
      requests.length = 0;
      faults.releaseHeld();
    },
  };
}

interface TestAnswer {
  status: number;
  body: unknown;
}

const done = (body: unknown): TestAnswer => ({ status: 200, body });

/** The same test API over HTTP: JSON in, JSON out, under /_test (never a Stripe path). */
export async function testApi(
  control: FakeStripeControl,
  method: string,
  path: string,
  body: Record<string, unknown>,
): Promise<TestAnswer> {
  const id = String(body.id ?? "");
  switch (`${method} ${path}`) {
    case "POST /_test/faults":
      control.fault(body as unknown as FaultSpec);
      return done({ queued: true });
    case "DELETE /_test/faults":
      control.clearFaults();
      return done({ cleared: true });
    case "POST /_test/release":
      control.releaseHeld();
      return done({ released: true });
    case "POST /_test/clock":
      control.advanceClock(Number(body.advance_ms ?? 0));
      return done({ now: control.now() });
    case "GET /_test/requests":
      return done({ data: control.requests() });
    case "POST /_test/authenticate":
      return done(control.completeAuthentication(id, body.succeed !== false));
    case "POST /_test/settle":
      return done(control.settleProcessing(id, body.succeed !== false));
    case "POST /_test/deliveries/hold":
      control.holdDeliveries();
      return done({ held: true });
    case "POST /_test/deliveries/release":
      await control.releaseDeliveries(body.order === "reverse" ? "reverse" : "sent");
      return done({ released: true });
    case "POST /_test/deliveries/duplicate":
      control.duplicateNextDelivery();
      return done({ duplicate: true });
    case "POST /_test/redeliver":
      return done({ status: await control.redeliver(id) });
    case "GET /_test/deliveries":
      return done({ data: control.deliveries() });
    case "POST /_test/reset":
      control.reset();
      return done({ reset: true });
    default:
      return { status: 404, body: { error: { message: `No test endpoint ${method} ${path}` } } };
  }
}
