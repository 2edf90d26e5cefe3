/**
 * The error side of the OpenAPI document: one envelope schema per status an operation answers,
 * its `error.code` limited to the codes that operation can give with that status, and one example
 * per code. Statuses come from errorStatus (lib/points/errors.ts), the one table the responses use.
 */
import { z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { topUpSchema } from "@/lib/points/api/schemas";
import { type ErrorCode, errorStatus } from "@/lib/points/errors";
import { exampleFailedTopUp, exampleSpend, exampleTopUp } from "./examples";

/** What each code means, for the reference and the examples. */
export const errorMeanings: Record<ErrorCode, string> = {
  invalid_api_key: "No `Authorization: Bearer <key>`, or the key is unknown or revoked.",
  not_available: "The organisation is not eligible for API purchases (an operator setting).",
  api_purchases_disabled: "An admin has not enabled API purchases in the dashboard.",
  insufficient_scope:
    "The key's scope does not allow this: buying needs a `purchase` key, spending a `purchase` or `spend` key.",
  insufficient_points:
    "The spendable balance is smaller than the Points to spend (held Points cannot be spent); nothing was spent.",
  invalid_request: "The body or query is invalid: `details.fields` names every offending field and why.",
  currency_required: "No `currency` given and the organisation has no saved currency.",
  payment_methods_unavailable: "The billing provider did not answer; retry after `Retry-After` seconds.",
  database_unavailable:
    "The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice.",
  billing_customer_missing:
    "The billing provider no longer knows the organisation's customer; the service's operator must relink it.",
  billing_credentials_refused:
    "The billing provider refuses the service's own API key; the service's operator must fix it.",
  billing_provider_mismatch:
    "Operator commands only: the purchase was charged through another billing provider than the one this service runs with.",
  invalid_payment_method: "`payment_source_id` is not a usable saved payment method of this organisation.",
  payment_method_required: "Several payment methods and no default: name one in `payment_source_id`.",
  no_payment_method: "The organisation has no usable payment method; an admin must add one.",
  reference_conflict:
    "The reference was used with other terms; `data.top_up` is the stored purchase (for a spend, `details.spend` is the stored spend).",
  purchase_in_progress: "Another request is working on this reference right now; retry in a few seconds.",
  payment_failed: "The payment failed; nothing was charged. `data.top_up.failure` says why.",
  payment_action_required:
    "The cardholder must authenticate in the dashboard, which credits the Points at once; a retry with the same reference then answers the paid purchase.",
  payment_unresolved: "The payment's outcome is not known yet; retry with the same reference, it never charges twice.",
  limit_exceeded:
    "An organisation limit refuses it: `details.limit` is `max_points_per_top_up` or `max_points_balance`.",
  frequency_limit_reached: "Too many purchases in the window; retry after `Retry-After` seconds.",
  daily_limit_reached:
    "The organisation's Points in the last 24 hours would pass its daily limit; retry after `Retry-After` seconds.",
  key_daily_limit_reached:
    "This key's own daily Points cap would be passed; retry after `Retry-After` seconds, or use another key.",
  currency_not_available: "The billing provider has no price for this bundle in this currency.",
  request_too_large: "The body is over 64 KiB.",
  not_found: "No such purchase for this organisation, or no such endpoint.",
  events_expired:
    "The events after `after` are older than 30 days and gone; `details.oldest_sequence` is the oldest kept. Read the current state, then continue from there.",
  method_not_allowed: "The endpoint does not serve this method; `Allow` lists the ones it does.",
  unauthorized: "Sign in first (dashboard only).",
  forbidden: "Not allowed for this user (dashboard only).",
  internal_error: "Something failed on the service's side; a purchase is safe to retry with the same reference.",
};

/** Codes that answer with the stored purchase in `data` (docs/contract.md §1). */
const PURCHASE_DATA_CODES = new Set<ErrorCode>([
  "payment_failed",
  "payment_action_required",
  "payment_unresolved",
  "reference_conflict",
  "purchase_in_progress",
]);

export const purchaseDataSchema = z.object({
  top_up: topUpSchema,
  points_balance: z
    .number()
    .int()
    .min(0)
    .meta({ description: "The organisation's spendable balance after the request." }),
});

function errorEnvelope(codes: readonly ErrorCode[], storedPurchase = true) {
  const withData = storedPurchase ? codes.filter((code) => PURCHASE_DATA_CODES.has(code)) : [];
  const error = z.object({
    code: z.enum(codes as [ErrorCode, ...ErrorCode[]]).meta({ description: "Stable, snake_case: branch on it." }),
    message: z.string().meta({ description: "One sentence a person can act on." }),
    details: z
      .record(z.string(), z.unknown())
      .meta({ description: "Facts about the error, such as `fields` or `limit`." }),
  });
  const base = { status: z.literal("error"), error };
  if (withData.length === 0) return z.object(base);
  // Every code here carries the purchase: `data` is required. Mixed with others, it may be absent.
  return withData.length === codes.length
    ? z.object({ ...base, data: purchaseDataSchema })
    : z.object({ ...base, data: purchaseDataSchema.optional() });
}

/** Any error envelope, whatever its code: what an unknown path or method under /v3 answers. */
export const errorEnvelopeSchema = errorEnvelope(Object.keys(errorStatus) as ErrorCode[]).meta({
  id: "Error",
  unusedIO: "output",
});

const retryAfter = {
  "Retry-After": {
    description: "Whole seconds until a retry can succeed.",
    schema: { type: "integer", minimum: 0 },
  },
} as const;

export const replayedHeader = {
  "Idempotent-Replayed": {
    description: "`true` when this request made no new purchase: `data.top_up` is the one stored under this reference.",
    schema: { type: "string", enum: ["true"] },
  },
} as const;

export const requestIdHeader = {
  "X-Request-Id": {
    description: "The request's id: yours when you sent a well-formed one.",
    schema: { type: "string" },
    required: true,
  },
} as const;

/**
 * The error responses of one operation: every code it may answer, grouped by status. Each status
 * gets its envelope schema and an example per code.
 */
export function errorResponses(
  codes: readonly ErrorCode[],
  options: { storedPurchase?: boolean } = {},
): Record<string, ZodOpenApiResponseObject> {
  // Errors about a stored purchase carry it in `data`; a spend's endpoint has no purchase to carry.
  const withPurchase = (code: ErrorCode) => options.storedPurchase !== false && PURCHASE_DATA_CODES.has(code);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Record<string, unknown> = { ...requestIdHeader };
    if (group.some((code) => errorStatusNeedsRetryAfter(code))) Object.assign(headers, retryAfter);
    if (group.some(withPurchase)) Object.assign(headers, replayedHeader);
    responses[String(status)] = {
      description: group.map((code) => `\`${code}\`: ${errorMeanings[code]}`).join("\n\n"),
      headers: headers as ZodOpenApiResponseObject["headers"],
      content: {
        "application/json": {
          schema: errorEnvelope(group, options.storedPurchase !== false),
          examples: Object.fromEntries(
            group.map((code) => [
              code,
              {
                summary: errorMeanings[code],
                value: {
                  status: "error",
                  error: {
                    code,
                    message: errorMeanings[code].replaceAll("`", ""),
                    details: exampleDetails(code, options),
                  },
                  ...(withPurchase(code) ? { data: exampleData(code) } : {}),
                },
              },
            ]),
          ),
        },
      },
    };
  }
  return responses;
}

function errorStatusNeedsRetryAfter(code: ErrorCode): boolean {
  return errorStatus[code] === 429 || code === "payment_methods_unavailable";
}

function exampleDetails(code: ErrorCode, options: { storedPurchase?: boolean } = {}): Record<string, unknown> {
  if (options.storedPurchase === false && code === "reference_conflict") {
    return { spend: exampleSpend, points_balance: 880, fields: ["points"] };
  }
  if (options.storedPurchase === false && code === "insufficient_scope") {
    return { scope: "read", required_scope: "spend" };
  }
  switch (code) {
    case "insufficient_points":
      return { points_balance: 80, held_points: 0, points: 120 };
    case "invalid_request":
      return { fields: { points: "must be one of the bundles 100, 250, 500, 1000, 2500, 5000, 7500" } };
    case "limit_exceeded":
      return { limit: "max_points_balance" };
    case "insufficient_scope":
      return { scope: "read", required_scope: "purchase" };
    case "request_too_large":
      return { max_bytes: 65536 };
    default:
      return {};
  }
}

function exampleData(code: ErrorCode) {
  const topUp =
    code === "payment_failed"
      ? exampleFailedTopUp
      : code === "payment_action_required"
        ? {
            ...exampleFailedTopUp,
            status: "awaiting_payment" as const,
            failure: { code: "authentication_required", message: "The card needs 3-D Secure." },
          }
        : code === "reference_conflict"
          ? exampleTopUp
          : { ...exampleTopUp, status: "processing" as const, paid_at: null };
  return { top_up: topUp, points_balance: 8350 };
}
