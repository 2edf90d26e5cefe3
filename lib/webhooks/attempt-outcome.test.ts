import { describe, expect, it } from "vitest";
import {
  type AttemptFacts,
  decideAttempt,
  OVERLOAD_WAIT_MS,
  RETRY_DELAYS_MS,
  RETRY_FOR_MS,
  retryAfterMs,
} from "./attempt-outcome";

const now = new Date("2026-11-29T12:00:00Z");
const failed = (facts: Partial<AttemptFacts> = {}): AttemptFacts => ({
  status: 503,
  timedOut: false,
  retryAfter: null,
  attempts: 1,
  now,
  giveUpAt: new Date(now.getTime() + RETRY_FOR_MS),
  failingSince: null,
  random: 0.5,
  ...facts,
});
const waitOf = (facts: Partial<AttemptFacts>) => {
  const outcome = decideAttempt(failed(facts));
  if (outcome.kind !== "retry") throw new Error(`not a retry: ${outcome.kind}`);
  return outcome.at.getTime() - now.getTime();
};

describe("what an attempt means", () => {
  it("a 2xx is delivered, whatever else", () => {
    for (const status of [200, 201, 204, 299]) {
      expect(decideAttempt(failed({ status, failingSince: new Date(0), giveUpAt: new Date(0) }))).toEqual({
        kind: "delivered",
      });
    }
  });

  it("a 410 disables the endpoint at once", () => {
    expect(decideAttempt(failed({ status: 410 }))).toEqual({
      kind: "disable",
      reason: "the endpoint answered 410 Gone",
    });
  });

  it("three days of nothing but failures disable the endpoint; a delivery three days old is given up", () => {
    const since = new Date(now.getTime() - RETRY_FOR_MS);
    expect(decideAttempt(failed({ failingSince: since }))).toEqual({
      kind: "disable",
      reason: "every delivery failed for 3 days",
    });
    expect(decideAttempt(failed({ failingSince: new Date(since.getTime() + 1) })).kind).toBe("retry");
    expect(decideAttempt(failed({ giveUpAt: now }))).toEqual({ kind: "give_up" });
  });

  it("anything else is tried again on the schedule, the first retry within 10 s", () => {
    RETRY_DELAYS_MS.forEach((delay, index) => {
      expect(waitOf({ attempts: index + 1 })).toBe(delay);
    });
    expect(waitOf({ attempts: 40 })).toBe(12 * 3_600_000);
    expect(waitOf({ status: null })).toBeLessThanOrEqual(10_000);
    expect(waitOf({ status: 302 })).toBe(RETRY_DELAYS_MS[0]);
  });

  it("moves each wait by up to 20% either way, so a crowd of retries spreads out", () => {
    expect(waitOf({ attempts: 2, random: 0 })).toBe(48_000);
    expect(waitOf({ attempts: 2, random: 0.999_999 })).toBe(72_000);
    expect(waitOf({ attempts: 2, random: 0.25 })).toBe(54_000);
  });

  it("waits at least 60 s after a timeout or a 429, jitter included", () => {
    for (const facts of [{ timedOut: true, status: null }, { status: 429 }]) {
      for (const random of [0, 0.5, 0.999]) {
        const wait = waitOf({ ...facts, random });
        expect(wait).toBeGreaterThanOrEqual(OVERLOAD_WAIT_MS);
        expect(wait).toBeLessThanOrEqual(OVERLOAD_WAIT_MS * 1.2);
      }
    }
    // A later attempt's own wait is longer already: it stands.
    expect(waitOf({ status: 429, attempts: 3 })).toBe(5 * 60_000);
    expect(waitOf({ status: 503 })).toBe(5_000);
  });

  it("honours Retry-After within reason: never shorter than the schedule, at most twice it", () => {
    expect(waitOf({ attempts: 2, retryAfter: "90" })).toBe(90_000);
    expect(waitOf({ attempts: 2, retryAfter: "3600" })).toBe(120_000);
    expect(waitOf({ attempts: 2, retryAfter: "1" })).toBe(60_000);
    expect(waitOf({ status: 429, retryAfter: "100" })).toBe(100_000);
    const date = new Date(now.getTime() + 100_000).toUTCString();
    expect(waitOf({ attempts: 2, retryAfter: date })).toBe(100_000);
    expect(waitOf({ attempts: 2, retryAfter: "soon" })).toBe(60_000);
  });
});

describe("Retry-After", () => {
  it("reads whole or decimal seconds, rounded up, and HTTP dates; anything else is ignored", () => {
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs(" 7 ", now)).toBe(7_000);
    expect(retryAfterMs("120.1", now)).toBe(121_000);
    expect(retryAfterMs("Sun, 29 Nov 2026 12:01:00 GMT", now)).toBe(60_000);
    expect(retryAfterMs("Sun, 29 Nov 2026 11:00:00 GMT", now)).toBe(0);
    for (const header of [null, "", "-5", "1e3", "tomorrow", "0x10"]) expect(retryAfterMs(header, now)).toBeNull();
  });
});
