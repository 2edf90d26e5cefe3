import { createHmac, randomBytes } from "node:crypto";
import type Stripe from "stripe";
import { type EventOf, type EventType, eventObject, type PreviousAttributes, stripeId } from "./objects";
import type { Clock } from "./store";

/*
 * Stripe's events and their webhook deliveries: each event is recorded (GET /v1/events), then
 * POSTed to the endpoint signed as Stripe signs it, unless tests hold deliveries back, ask for a
 * duplicate, or redeliver one. Every attempt lands in the delivery log with what the app answered.
 */

export interface WebhookEndpoint {
  url?: string;
  secret?: string;
  /** Told of every delivery attempt once the endpoint answered (or could not be reached). */
  onDelivery?: (entry: DeliveryLogEntry) => void;
}

export interface DeliveryLogEntry {
  eventId: string;
  type: string;
  /** The endpoint's HTTP status, or -1 when it could not be reached. */
  status: number;
  /** The start of what the endpoint answered (its first 1,000 characters), as Stripe's dashboard shows it. */
  answer: string;
}

export class Events {
  private list: Stripe.Event[] = [];
  private log: DeliveryLogEntry[] = [];
  private held = false;
  private heldEvents: Stripe.Event[] = [];
  private duplicateNext = false;
  private inflight = new Set<Promise<unknown>>();
  private url: string | null;
  private secret: string;
  private readonly onDelivery: WebhookEndpoint["onDelivery"];

  constructor(
    private readonly clock: Clock,
    endpoint: WebhookEndpoint,
  ) {
    this.url = endpoint.url ?? null;
    this.secret = endpoint.secret ?? "whsec_fake";
    this.onDelivery = endpoint.onDelivery;
  }

  /**
   * Records an event of `type` about a snapshot of `object`, and delivers it (or holds it).
   * `previous`: what changed, as Stripe sends it on an update (and a detachment).
   */
  emit<T extends EventType>(
    type: T,
    object: EventOf<T>["data"]["object"],
    previous?: PreviousAttributes<EventOf<T>["data"]["object"]>,
  ): void {
    const event = eventObject({
      id: stripeId("evt"),
      created: this.clock.seconds(),
      type,
      object: structuredClone(object),
      previousAttributes: previous && structuredClone(previous),
      pendingWebhooks: this.url ? 1 : 0,
    });
    this.list.push(event);
    if (!this.url) return;
    if (this.held) {
      this.heldEvents.push(event);
      return;
    }
    const copies = this.duplicateNext ? 2 : 1;
    this.duplicateNext = false;
    for (let i = 0; i < copies; i += 1) this.track(this.deliver(event));
  }

  all(): Stripe.Event[] {
    return [...this.list];
  }

  /** Puts back the events a state file kept (GET /v1/events answers them again). */
  restore(events: Stripe.Event[]): void {
    this.list = [...events];
  }

  find(id: string): Stripe.Event | undefined {
    return this.list.find((candidate) => candidate.id === id);
  }

  hold(): void {
    this.held = true;
  }

  async release(order: "sent" | "reverse"): Promise<void> {
    this.held = false;
    const events = this.heldEvents.splice(0);
    if (order === "reverse") events.reverse();
    for (const event of events) await this.deliver(event);
  }

  duplicateNextDelivery(): void {
    this.duplicateNext = true;
  }

  deliveries(): DeliveryLogEntry[] {
    return [...this.log];
  }

  /** Resolves when every delivery started so far has been answered. */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  setEndpoint(url: string | null, secret?: string): void {
    this.url = url;
    if (secret) this.secret = secret;
  }

  /** Forgets the events and the delivery log; holds, a pending duplicate and the endpoint stay. */
  clear(): void {
    this.list = [];
    this.log = [];
  }

  private track(delivery: Promise<unknown>): void {
    this.inflight.add(delivery);
    delivery.finally(() => this.inflight.delete(delivery)).catch(() => {});
  }

  /** POSTs the event signed as Stripe signs it: `t=<seconds>,v1=<HMAC-SHA256 of "t.payload">`. */
  async deliver(event: Stripe.Event): Promise<number> {
    if (!this.url) return 0;
    const payload = JSON.stringify(event);
    const timestamp = this.clock.seconds();
    const signature = createHmac("sha256", this.secret).update(`${timestamp}.${payload}`).digest("hex");
    let status: number;
    let answer = "";
    try {
      const response = await fetch(this.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Stripe-Signature": `t=${timestamp},v1=${signature}` },
        body: payload,
        signal: AbortSignal.timeout(20_000),
      });
      status = response.status;
      answer = (await response.text()).slice(0, 1000);
    } catch {
      status = -1;
    }
    const entry = { eventId: event.id, type: event.type, status, answer };
    this.log.push(entry);
    this.onDelivery?.(entry);
    return status;
  }
}

/** A random whsec_ secret for a run that was given none. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64url")}`;
}
