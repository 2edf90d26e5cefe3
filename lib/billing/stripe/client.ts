import Stripe from "stripe";
import { STRIPE_API_ORIGIN } from "@/lib/env";

/** Each call to Stripe gives up after this; the SDK then retries once (below). */
export const STRIPE_TIMEOUT_MS = 10_000;
/**
 * One retry, on connection errors, 409s and 5xx (the SDK re-sends with the same idempotency key).
 * Set deliberately: stripe-node's own default differs between its README and its code.
 */
export const STRIPE_MAX_NETWORK_RETRIES = 1;
/** Two attempts of STRIPE_TIMEOUT_MS, plus the SDK's backoff between them (at most a few seconds). */
export const STRIPE_CALL_BUDGET_MS = STRIPE_TIMEOUT_MS * (STRIPE_MAX_NETWORK_RETRIES + 1) + 3_000;

export interface StripeSettings {
  secretKey: string;
  /** STRIPE_API_URL (docs/contract.md): another Stripe-compatible server (a test server, stripe-mock). */
  apiUrl?: string;
  /** STRIPE_WEBHOOK_SECRET: verifies Stripe's webhooks (several, comma-separated, during a rotation). */
  webhookSecret?: string;
}

/** Stripe's own API: the only place a live key may go. */
export { STRIPE_API_ORIGIN };

/** Where the key will be sent, and whether that is a Stripe-compatible test server rather than Stripe. */
export interface StripeTarget {
  origin: string;
  testServer: boolean;
}

/**
 * Checks the key and STRIPE_API_URL together, and refuses what would hand a key to someone else: a
 * live key anywhere but Stripe's own API over https, and plain http anywhere but this machine.
 */
export function stripeTarget(settings: StripeSettings): StripeTarget {
  const mode = /^(?:sk|rk)_(test|live)_/.exec(settings.secretKey)?.[1];
  if (!mode) throw new Error("STRIPE_SECRET_KEY must be a Stripe secret key (sk_test_… or sk_live_…).");
  if (!settings.apiUrl) return { origin: STRIPE_API_ORIGIN, testServer: false };
  const url = new URL(settings.apiUrl);
  const origin = url.origin;
  if (origin === STRIPE_API_ORIGIN) return { origin, testServer: false };
  if (mode === "live") {
    throw new Error(
      `A live STRIPE_SECRET_KEY is sent only to Stripe's own API (${STRIPE_API_ORIGIN}), not to STRIPE_API_URL=${origin}: unset STRIPE_API_URL, or use a test key (sk_test_…) with a test server.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`STRIPE_API_URL must be an http(s) URL, not ${origin}.`);
  if (url.protocol === "http:" && !isLoopback(url.hostname)) {
    throw new Error(
      `STRIPE_API_URL=${origin} is plain http to another machine, where the key would travel in clear: use https, or a test server on this machine (127.0.0.1, localhost).`,
    );
  }
  return { origin, testServer: true };
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * The SDK client, pinned to the API version this code and its types were written for, pointed at
 * STRIPE_API_URL's host, port and protocol when one is given (after stripeTarget allowed it).
 */
export function createStripeClient(settings: StripeSettings): Stripe {
  stripeTarget(settings);
  const target = settings.apiUrl ? new URL(settings.apiUrl) : null;
  return new Stripe(settings.secretKey, {
    apiVersion: "2026-10-28.endive",
    timeout: STRIPE_TIMEOUT_MS,
    maxNetworkRetries: STRIPE_MAX_NETWORK_RETRIES,
    appInfo: { name: "points-purchase" },
    ...(target
      ? {
          host: target.hostname,
          port: target.port || (target.protocol === "http:" ? 80 : 443),
          protocol: target.protocol === "http:" ? "http" : "https",
        }
      : {}),
  });
}

/** The SDK's error kinds by name: robust where a bundler loads two copies of the module. */
export function stripeErrorType(error: unknown): string | null {
  if (typeof error !== "object" || error === null) return null;
  const type = (error as { type?: unknown }).type;
  return typeof type === "string" && type.startsWith("Stripe") ? type : null;
}
