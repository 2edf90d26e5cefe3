import { brandOf, hasBrand } from "@/lib/brand";
import type { TopUp } from "@/lib/db/schema";

/**
 * Every error the service can answer with, and its HTTP status. docs/contract.md §4–5 names the
 * first group; the rest cover what the contract leaves to the transport (unknown paths, wrong
 * methods, oversized bodies) and the dashboard.
 */
export const errorStatus = {
  invalid_api_key: 403,
  not_available: 404,
  api_purchases_disabled: 403,
  insufficient_scope: 403,
  invalid_request: 422,
  currency_required: 422,
  payment_methods_unavailable: 502,
  database_unavailable: 502,
  billing_customer_missing: 409,
  billing_credentials_refused: 409,
  billing_provider_mismatch: 409,
  invalid_payment_method: 422,
  payment_method_required: 422,
  no_payment_method: 422,
  reference_conflict: 409,
  insufficient_points: 409,
  purchase_in_progress: 409,
  payment_failed: 402,
  payment_action_required: 402,
  payment_unresolved: 409,
  limit_exceeded: 409,
  frequency_limit_reached: 429,
  daily_limit_reached: 429,
  key_daily_limit_reached: 429,
  currency_not_available: 422,
  request_too_large: 413,
  not_found: 404,
  events_expired: 410,
  method_not_allowed: 405,
  unauthorized: 401,
  forbidden: 403,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface PointsErrorOptions {
  details?: Record<string, unknown>;
  /** For 429s: how long until a purchase could succeed. */
  retryAfterSeconds?: number;
  /** For errors about an existing purchase: it goes into the body's `data`. */
  topUp?: TopUp;
  pointsBalance?: number;
  /** What went wrong underneath (a provider's error): logged with the answer, never sent. */
  cause?: unknown;
}

const pointsErrorBrand = brandOf("PointsError");

/** The one error type of the domain; transports turn it into a response, never the reverse. */
export class PointsError extends Error {
  readonly [pointsErrorBrand] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(pointsErrorBrand)(value);
  }
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly retryAfterSeconds?: number;
  readonly topUp?: TopUp;
  readonly pointsBalance?: number;

  constructor(code: ErrorCode, message: string, options: PointsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PointsError";
    this.code = code;
    this.details = options.details ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.topUp = options.topUp;
    this.pointsBalance = options.pointsBalance;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export function isPointsError(error: unknown): error is PointsError {
  return error instanceof PointsError;
}

const provisioningErrorBrand = brandOf("ProvisioningError");

/** The refusals a caller can tell apart without reading the message. */
export type ProvisioningRefusal = "email_taken" | "billing_customer_taken";

export interface ProvisioningErrorOptions {
  /** Set when a caller may want to say it in its own words (the dashboard's member form does). */
  reason?: ProvisioningRefusal;
  /**
   * The input that is wrong, by its field name in the call's input (defaultCardIndex, role…), with
   * what is wrong with it as a phrase that follows the field's name ("must be a 0-based index…").
   * A transport names the field in its own words: the CLI by its flag (lib/cli/output.ts).
   */
  fields?: Record<string, string>;
}

/**
 * Bad input to a provisioning call (operator or admin), and nothing was changed: a PointsError
 * (invalid_request) that keeps its refusal reason as a property, for callers that branch on it.
 */
export class ProvisioningError extends PointsError {
  readonly [provisioningErrorBrand] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(provisioningErrorBrand)(value);
  }
  readonly reason?: ProvisioningRefusal;

  constructor(message: string, options: ProvisioningErrorOptions = {}) {
    const details: Record<string, unknown> = {};
    if (options.fields) details.fields = options.fields;
    if (options.reason) details.reason = options.reason;
    super("invalid_request", message, { details });
    this.name = "ProvisioningError";
    this.reason = options.reason;
  }
}
