import Stripe from "stripe";

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
  /** CONTRACT.md §6 STRIPE_API_URL: another Stripe-compatible server (a test server, stripe-mock). */
  apiUrl?: string;
}

/**
 * The SDK client, pinned to the API version this code and its types were written for, pointed at
 * STRIPE_API_URL's host, port and protocol when one is given.
 */
export function createStripeClient(settings: StripeSettings): Stripe {
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
