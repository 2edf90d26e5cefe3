/*
 * What one delivery attempt means, decided without the database: delivered, tried again at a
 * time, given up, or the endpoint disabled. Svix's worker is the model for the timing.
 */

/** Deliveries are retried for this long after they are made; an endpoint failing this long is disabled. */
export const RETRY_FOR_MS = 3 * 24 * 3_600_000;

/**
 * After the nth failed attempt, the wait before the next, before jitter: the first retry within
 * 10 s, then growing (as Standard Webhooks' reference schedule), every 12 hours at the end, until
 * the delivery is three days old.
 */
export const RETRY_DELAYS_MS = [
  5_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  12 * 3_600_000,
] as const;

/** Each wait is moved by up to this share either way, so retries of many deliveries spread out. */
export const JITTER = 0.2;
/** The least wait after a timeout or a 429: a receiver that is overloaded is given time. */
export const OVERLOAD_WAIT_MS = 60_000;

export function retryDelayMs(attemptsMade: number): number {
  return RETRY_DELAYS_MS[Math.min(attemptsMade, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0];
}

/** What the attempt got and where the delivery and its endpoint stood. */
export interface AttemptFacts {
  /** The answer's status, or null with none. */
  status: number | null;
  timedOut: boolean;
  /** The answer's Retry-After header as sent, or null. */
  retryAfter: string | null;
  /** Attempts made, this one included. */
  attempts: number;
  now: Date;
  /** When the delivery is given up if still failing. */
  giveUpAt: Date;
  /** Since when the endpoint's attempts all failed, before this one; null if the last one succeeded. */
  failingSince: Date | null;
  /** A number in [0, 1): the jitter's draw (Math.random in the sender, fixed in tests). */
  random: number;
}

export type AttemptOutcome =
  | { kind: "delivered" }
  | { kind: "retry"; at: Date }
  | { kind: "give_up" }
  | { kind: "disable"; reason: string };

export function isDelivered(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/**
 * The attempt's outcome: a 2xx is delivered; a 410 disables the endpoint; so do three days of
 * nothing but failures; a delivery three days old is given up; anything else is tried again
 * after nextWaitMs.
 */
export function decideAttempt(facts: AttemptFacts): AttemptOutcome {
  if (isDelivered(facts.status)) return { kind: "delivered" };
  if (facts.status === 410) return { kind: "disable", reason: "the endpoint answered 410 Gone" };
  const failingSince = facts.failingSince ?? facts.now;
  if (facts.now.getTime() - failingSince.getTime() >= RETRY_FOR_MS) {
    return { kind: "disable", reason: "every delivery failed for 3 days" };
  }
  if (facts.now >= facts.giveUpAt) return { kind: "give_up" };
  return { kind: "retry", at: new Date(facts.now.getTime() + nextWaitMs(facts)) };
}

/**
 * The wait before the next attempt: the schedule's, at least OVERLOAD_WAIT_MS after a timeout or a
 * 429, moved toward the receiver's Retry-After (never shorter than that wait, never past twice it),
 * then jittered by up to JITTER either way; after a timeout or a 429 never under OVERLOAD_WAIT_MS.
 */
export function nextWaitMs(
  facts: Pick<AttemptFacts, "status" | "timedOut" | "retryAfter" | "attempts" | "now" | "random">,
): number {
  const overloaded = facts.timedOut || facts.status === 429;
  let wait = retryDelayMs(facts.attempts);
  if (overloaded) wait = Math.max(wait, OVERLOAD_WAIT_MS);
  const asked = retryAfterMs(facts.retryAfter, facts.now);
  if (asked !== null) wait = Math.min(Math.max(asked, wait), 2 * wait);
  const jittered = Math.round(wait * (1 + (2 * facts.random - 1) * JITTER));
  return overloaded ? Math.max(jittered, OVERLOAD_WAIT_MS) : jittered;
}

/** A Retry-After header as milliseconds from now: whole or decimal seconds, or an HTTP date; null if neither. */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text)) * 1000;
  if (!/[A-Za-z]/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}
