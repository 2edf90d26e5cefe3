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
  /** Sends in flight at once to one endpoint, from this sender (one while the endpoint is failing). */
  perEndpoint?: number;
  /** Sends in flight at once for one organisation, from this sender, however many endpoints it has. */
  perOrganization?: number;
}

/**
 * One instance's webhook sender. Each tick turns new events into deliveries and claims what is
 * due, as many as it has free slots, and starts sending them without waiting for them: a receiver
 * that takes its full 15 s holds one slot, never the tick, so other organisations' deliveries go on.
 * Each finished send claims again at once, so a backlog drains at the receivers' pace, not one
 * batch per tick. Claims run one at a time (a tick's too), each for the slots free when it starts,
 * so the sends in flight never pass `capacity`, nor an endpoint's or an organisation's share.
 */
export class WebhookSender {
  private readonly inFlight = new Set<Promise<DeliveryResult | null>>();
  /** Sends in flight per endpoint, from this sender. */
  private readonly perEndpointInFlight = new Map<string, number>();
  /** Sends in flight per organisation, from this sender. */
  private readonly perOrganizationInFlight = new Map<string, number>();
  private readonly capacity: number;
  private readonly perEndpoint: number;
  private readonly perOrganization: number;
  private stopped = false;

  constructor(
    private readonly services: { db: Db; clock: Clock },
    private readonly options: SenderOptions,
  ) {
    this.capacity = options.capacity ?? 32;
    this.perEndpoint = options.perEndpoint ?? 4;
    this.perOrganization = options.perOrganization ?? 8;
  }

  /** Fans out and starts the sends that fit; resolves once they are started, with how many. */
  async tick(): Promise<number> {
    if (this.stopped) return 0;
    const made = await fanOut(this.services);
    const claimed = await this.claimNow();
    if (made > 0 || claimed > 0) {
      log().debug(
        { event: "webhook_tick", deliveries_made: made, claimed, in_flight: this.inFlight.size },
        "webhook sender: deliveries made and claimed",
      );
    }
    return claimed;
  }

  /** Claims run one after another through this chain; `claims` counts those queued or running. */
  private queue: Promise<unknown> = Promise.resolve();
  private claims = 0;
  /** A claim asked for by a finished send is queued and not yet started: more such asks join it. */
  private soonQueued = false;

  /** Queues a claim after the ones before it; answers how many it claimed. */
  private enqueue(claim: () => Promise<number>): Promise<number> {
    this.claims += 1;
    const run = this.queue.then(claim).finally(() => {
      this.claims -= 1;
    });
    this.queue = run.catch(() => 0);
    return run;
  }

  private claimNow(): Promise<number> {
    return this.enqueue(() => this.claimAndStart());
  }

  private async claimAndStart(): Promise<number> {
    const claimed = await claimDeliveries(this.services, {
      max: this.capacity - this.inFlight.size,
      perEndpoint: this.perEndpoint,
      perOrganization: this.perOrganization,
      inFlightByEndpoint: this.perEndpointInFlight,
      inFlightByOrganization: this.perOrganizationInFlight,
    });
    for (const delivery of claimed) this.start(delivery);
    return claimed.length;
  }

  private start(claimed: ClaimedDelivery): void {
    const endpointId = claimed.endpoint.id;
    const organizationId = claimed.endpoint.organizationId;
    this.perEndpointInFlight.set(endpointId, (this.perEndpointInFlight.get(endpointId) ?? 0) + 1);
    this.perOrganizationInFlight.set(organizationId, (this.perOrganizationInFlight.get(organizationId) ?? 0) + 1);
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
      const leftForOrganization = (this.perOrganizationInFlight.get(organizationId) ?? 1) - 1;
      if (leftForOrganization > 0) this.perOrganizationInFlight.set(organizationId, leftForOrganization);
      else this.perOrganizationInFlight.delete(organizationId);
      this.claimSoon();
    });
  }

  /** A slot came free: claim again, after the claim running (asks made meanwhile join one claim). */
  private claimSoon(): void {
    if (this.stopped || this.soonQueued) return;
    this.soonQueued = true;
    void this.enqueue(async () => {
      this.soonQueued = false;
      return this.stopped ? 0 : this.claimAndStart();
    }).catch((error: unknown) => {
      log().warn({ event: "webhook_claim_failed", error: errorSummary(error) }, "Claiming webhook deliveries failed.");
    });
  }

  /** Waits for every send in flight (and the claims they started) to finish and be recorded. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.claims > 0) {
      await Promise.allSettled([...this.inFlight, this.queue]);
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
