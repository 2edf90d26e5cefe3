import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { log } from "@/lib/observability/log";
import { errorSummary } from "@/lib/points/purchase/outcome";
import {
  type ClaimedDelivery,
  claimDeliveries,
  type DeliveryResult,
  fanOut,
  type SendOptions,
  sendClaimed,
} from "./delivery";

export interface SenderOptions extends SendOptions {
  /** Sends in flight at once from this sender. */
  capacity?: number;
  /** Sends in flight at once to one endpoint, across every sender. */
  perEndpoint?: number;
}

/**
 * One instance's webhook sender. Each tick turns new events into deliveries and claims what is
 * due, as many as it has free slots, and starts sending them without waiting for them: a receiver
 * that takes its full 15 s holds one slot, never the tick, so other organisations' deliveries go on.
 */
export class WebhookSender {
  private readonly inFlight = new Set<Promise<DeliveryResult | null>>();
  private readonly capacity: number;
  private readonly perEndpoint: number;

  constructor(
    private readonly services: { db: Db; clock: Clock },
    private readonly options: SenderOptions,
  ) {
    this.capacity = options.capacity ?? 32;
    this.perEndpoint = options.perEndpoint ?? 4;
  }

  /** Fans out and starts the sends that fit; resolves once they are started, with how many. */
  async tick(): Promise<number> {
    await fanOut(this.services);
    const claimed = await claimDeliveries(this.services, {
      max: this.capacity - this.inFlight.size,
      perEndpoint: this.perEndpoint,
    });
    for (const delivery of claimed) this.start(delivery);
    return claimed.length;
  }

  private start(claimed: ClaimedDelivery): void {
    const send = sendClaimed(this.services, claimed, this.options).catch((error: unknown) => {
      // The attempt could not be recorded (the database went away): the claim runs out and it is sent again.
      log().warn(
        { event: "webhook_record_failed", delivery_id: claimed.delivery.id, error: errorSummary(error) },
        "A webhook attempt could not be recorded; it will be tried again once its claim runs out.",
      );
      return null;
    });
    this.inFlight.add(send);
    void send.finally(() => this.inFlight.delete(send));
  }

  /** Waits for every send in flight to finish and be recorded. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
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
