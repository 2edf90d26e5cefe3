import type { TopUp } from "@/lib/db/schema";

/** The recovery points of a purchase, for tests that simulate a crash right after one. */
export type PurchasePhase = "recorded" | "charge_marked" | "charged" | "outcome_recorded";

export interface PurchaseOptions {
  /** How long a request may work on a purchase before another may take it over. */
  leaseMs?: number;
  /** Called after each phase commits; a test throws SimulatedCrash here to stop the request dead. */
  afterPhase?: (phase: PurchasePhase, topUp: TopUp) => Promise<void> | void;
  /** Called when a retry has seen a run-out lease and is about to take it; a test races another taker here. */
  beforeTakeover?: (topUp: TopUp) => Promise<void>;
}

/** Thrown by a test's afterPhase hook: the request stops as if the process died (no lease release). */
export class SimulatedCrash extends Error {
  constructor(phase: PurchasePhase) {
    super(`Simulated crash after ${phase}`);
    this.name = "SimulatedCrash";
  }
}
