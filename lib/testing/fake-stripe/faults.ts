import type { Answer, Reply, StripeErrorBody } from "./answers";

/*
 * Faults tests inject into the Stripe API: a delay, an answer or a dropped connection before the
 * request runs, a request held until released, or a 500, a drop or a delay (the client's timeout)
 * after it ran (its effects kept).
 */

export type FaultKind =
  | "delay"
  | "500_before"
  | "execute_then_drop"
  | "execute_then_500"
  | "execute_then_delay"
  | "hold"
  | "409"
  | "drop_before";

export interface FaultSpec {
  method?: string;
  /** Matched against the path (without the query): a prefix, or a RegExp source when it starts with ^. */
  path: string;
  kind: FaultKind;
  delayMs?: number;
  /** How many requests it applies to (default 1); Infinity for a switch until cleared. */
  times?: number;
}

export interface Fault extends Required<Omit<FaultSpec, "delayMs">> {
  delayMs: number;
}

export class Faults {
  private queued: Fault[] = [];
  private held: (() => void)[] = [];

  add(spec: FaultSpec): void {
    this.queued.push({ method: spec.method ?? "", times: 1, delayMs: 0, ...spec });
  }

  /** Drops queued faults: all of them, or only those queued for exactly this method and path. */
  clear(filter?: { method?: string; path?: string }): void {
    this.queued = filter
      ? this.queued.filter(
          (fault) =>
            (filter.method !== undefined && fault.method !== filter.method) ||
            (filter.path !== undefined && fault.path !== filter.path),
        )
      : [];
  }

  /** The first fault queued for this request, counted as used once. */
  take(method: string, path: string): Fault | undefined {
    const index = this.queued.findIndex(
      (fault) =>
        (!fault.method || fault.method === method) &&
        (fault.path.startsWith("^") ? new RegExp(fault.path).test(path) : path.startsWith(fault.path)),
    );
    const fault = this.queued[index];
    if (!fault) return undefined;
    fault.times -= 1;
    if (fault.times <= 0) this.queued.splice(index, 1);
    return fault;
  }

  /** Resolves when the test releases held requests. */
  hold(): Promise<void> {
    return new Promise<void>((resolve) => this.held.push(resolve));
  }

  releaseHeld(): void {
    for (const release of this.held.splice(0)) release();
  }

  heldCount(): number {
    return this.held.length;
  }
}

/** Before the request runs: waits out a delay, or answers (500, 409) or drops instead of running it. */
export async function faultBefore(fault: Fault | undefined): Promise<Reply | undefined> {
  if (fault?.kind === "delay") await sleep(fault.delayMs);
  if (fault?.kind === "drop_before") return "drop";
  if (fault?.kind === "500_before") {
    return { status: 500, body: apiError("An unknown error occurred (injected before executing).") };
  }
  if (fault?.kind === "409") {
    return {
      status: 409,
      body: {
        error: {
          type: "invalid_request_error",
          code: "lock_timeout",
          message: "This object cannot be accessed right now (injected).",
        },
      },
    };
  }
  return undefined;
}

/** After the request ran, its effects kept: its answer waits delayMs (past the client's timeout, say). */
export async function delayAfter(fault: Fault | undefined): Promise<void> {
  if (fault?.kind === "execute_then_delay") await sleep(fault.delayMs);
}

/** After the request ran, its effects kept: a 500 instead of its answer. */
export function faultAfter(fault: Fault | undefined, answer: Answer): Answer {
  if (fault?.kind !== "execute_then_500") return answer;
  return { status: 500, body: apiError("An unknown error occurred (injected after executing).") };
}

function apiError(message: string): StripeErrorBody {
  return { error: { type: "api_error", message } };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
