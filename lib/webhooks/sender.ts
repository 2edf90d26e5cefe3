import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { log } from "@/lib/observability/log";
import { errorSummary } from "@/lib/points/purchase/outcome";
import { type DeliveryResult, sendClaimed } from "./attempt";
import { type ClaimedDelivery, claimDeliveries } from "./claim";
import { fanOut } from "./fan-out";
import type { SendOptions } from "./request";

export interface SenderOptions extends SendOptions {
  /** Sends in flight at once from this sender. */
  capacity?: number;
  /** Sends in flight at once to one endpoint, from this sender. */
  perEndpoint?: number;
}

/**
 * One instance's webhook sender. Each tick turns new events into deliveries and claims what is
 * due, as many as it has free slots, and starts sending them without waiting for them: a receiver
 * that takes its full 15 s holds one slot, never the tick, so other organisations' deliveries go on.
 * Each finished send claims again at once (one claim at a time, the rest coalesced), so a backlog
 * drains at the receivers' pace, not one batch per tick.
 */
export class WebhookSender {
  private readonly inFlight = new Set<Promise<DeliveryResult | null>>();
  /** Sends in flight per endpoint, from this sender. */
  private readonly perEndpointInFlight = new Map<string, number>();
  private readonly capacity: number;
  private readonly perEndpoint: number;
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  private stopped = false;

  constructor(
    private readonly services: { db: Db; clock: Clock },
    private readonly options: SenderOptions,
  ) {
    this.capacity = options.capacity ?? 32;
    this.perEndpoint = options.perEndpoint ?? 4;
  }

  /** Fans out and starts the sends that fit; resolves once they are started, with how many. */
  async tick(): Promise<number> {
    if (this.stopped) return 0;
    const made = await fanOut(this.services);
    const claimed = await this.claimAndStart();
    if (made > 0 || claimed > 0) {
      log().debug(
        { event: "webhook_tick", deliveries_made: made, claimed, in_flight: this.inFlight.size },
        "webhook sender: deliveries made and claimed",
      );
    }
    return claimed;
  }

  private async claimAndStart(): Promise<number> {
    const fullEndpoints = [...this.perEndpointInFlight]
      .filter(([, count]) => count >= this.perEndpoint)
      .map(([id]) => id);
    const claimed = await claimDeliveries(this.services, {
      max: this.capacity - this.inFlight.size,
      perEndpoint: this.perEndpoint,
      fullEndpoints,
    });
    for (const delivery of claimed) this.start(delivery);
    return claimed.length;
  }

  private start(claimed: ClaimedDelivery): void {
    const endpointId = claimed.endpoint.id;
    this.perEndpointInFlight.set(endpointId, (this.perEndpointInFlight.get(endpointId) ?? 0) + 1);
    const send = sendClaimed(this.services, claimed, this.options).catch((error: unknown) => {
      // The attempt could not be recorded (the database went away): the claim runs out and it is sent again.
      log().warn(
        { event: "webhook_record_failed", delivery_id: claimed.delivery.id, error: errorSummary(error) },
        "A webhook attempt could not be recorded; it will be tried again once its claim runs out.",
      );
      return null;
    });
    this.inFlight.add(send);
    void send.finally(() => {
      this.inFlight.delete(send);
      const left = (this.perEndpointInFlight.get(endpointId) ?? 1) - 1;
      if (left > 0) this.perEndpointInFlight.set(endpointId, left);
      else this.perEndpointInFlight.delete(endpointId);
      this.claimSoon();
    });
  }

  /** A slot came free: claim again now, or right after the claim already running. */
  private claimSoon(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = (async () => {
      try {
        do {
          this.claimAgain = false;
          await this.claimAndStart();
        } while (this.claimAgain && !this.stopped);
      } catch (error) {
        log().warn(
          { event: "webhook_claim_failed", error: errorSummary(error) },
          "Claiming webhook deliveries failed.",
        );
      } finally {
        this.claiming = null;
      }
    })();
  }

  /** Waits for every send in flight (and the claims they started) to finish and be recorded. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.claiming) {
      await Promise.allSettled([...this.inFlight, this.claiming]);
    }
  }

  /** Stops claiming (a shutdown) and waits for the sends in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }

  /** Ticks until nothing is due, waiting for each round's sends (tests, and the operator's one-off run). */
  async drain(maxRounds = 50): Promise<void> {
    for (let round = 0; round < maxRounds; round++) {
      const started = await this.tick();
      await this.idle();
      if (started === 0) return;
    }
  }
}
