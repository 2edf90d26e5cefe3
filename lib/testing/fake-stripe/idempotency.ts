import type { Answer, StripeErrorBody } from "./answers";
import type { Clock } from "./store";

/*
 * Stripe's idempotency rules: a key (scoped to the API key that sent it) replays the first answer;
 * the same key with other parameters or on another endpoint is refused with 400; while the first
 * request still runs, 409; validation errors are not stored; keys are forgotten after 24 hours.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export interface StoredKey {
  endpoint: string;
  params: string;
  createdAt: number;
  /** The first request's answer, once it has one; until then the key is in progress. */
  answer?: Answer;
}

/** What a key already holds: an answer to replay, or a refusal to send instead of running. */
export type Prior = { kind: "replay"; answer: Answer } | { kind: "refused"; answer: Answer<StripeErrorBody> };

export class IdempotencyKeys {
  private keys = new Map<string, StoredKey>();

  constructor(private readonly clock: Clock) {}

  /**
   * Looks the key up before a request runs. Undefined means run it: the key is then held as in
   * progress until `settle`.
   */
  claim(apiKey: string, key: string, endpoint: string, params: string): Prior | undefined {
    const scoped = `${apiKey}|${key}`;
    const stored = this.keys.get(scoped);
    if (stored && this.clock.now() - stored.createdAt > DAY_MS) this.keys.delete(scoped);
    const current = this.keys.get(scoped);
    if (!current) {
      this.keys.set(scoped, { endpoint, params, createdAt: this.clock.now() });
      return undefined;
    }
    if (!current.answer) {
      return refused(409, {
        type: "invalid_request_error",
        code: "idempotency_key_in_use",
        message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
      });
    }
    if (current.endpoint !== endpoint || current.params !== params) {
      return refused(400, {
        type: "idempotency_error",
        message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
      });
    }
    return { kind: "replay", answer: current.answer };
  }

  /** Stores the answer under the key, or forgets the key when the answer is not stored (transient). */
  settle(apiKey: string, key: string, answer: Answer): void {
    const scoped = `${apiKey}|${key}`;
    const entry = this.keys.get(scoped);
    if (answer.transient) this.keys.delete(scoped);
    else if (entry) entry.answer = answer;
  }

  clear(): void {
    this.keys.clear();
  }

  /** The keys that have an answer (one still in progress is not worth keeping: its request died with the server). */
  answered(): [string, StoredKey][] {
    return [...this.keys].filter(([, stored]) => stored.answer !== undefined);
  }

  restore(entries: [string, StoredKey][]): void {
    this.keys = new Map(entries);
  }
}

function refused(status: number, error: StripeErrorBody["error"]): Prior {
  return { kind: "refused", answer: { status, body: { error } } };
}
