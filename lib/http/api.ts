import { after } from "next/server";
import { readBodyWithin } from "@/lib/body";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { observeRequest } from "@/lib/http/observe";
import { randomString } from "@/lib/ids";
import { log } from "@/lib/observability/log";
import { toTopUpJson } from "@/lib/points/api/json";
import { type ErrorCode, errorStatus, PointsError } from "@/lib/points/errors";
import type { PurchaseResult } from "@/lib/points/purchase";
import type { Services } from "@/lib/points/services";
import { duplicateKeys } from "./duplicate-keys";

export const MAX_BODY_BYTES = 64 * 1024;
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;

/** The caller's X-Request-Id when it is well-formed, otherwise a new one (docs/contract.md §1). */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && REQUEST_ID_PATTERN.test(given) ? given : `req_${randomString(20)}`;
}

/** Below this an answer is not worth compressing: the compression middleware's own threshold. */
const COMPRESS_FROM_BYTES = 1024;

/**
 * An answer in JSON. A small one (most of the API's) is sent as it is: gzip would make it no
 * smaller and cost CPU at both ends. Next's compression applies no threshold to route handlers
 * (it drops their Content-Length), so `no-transform` tells it, as it tells any proxy, to leave it.
 */
function json(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(body);
  return new Response(text, {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": text.length < COMPRESS_FROM_BYTES ? "no-store, no-transform" : "no-store",
      "X-Content-Type-Options": "nosniff",
      "X-Request-Id": requestId,
      ...headers,
    },
  });
}

export function successResponse(
  status: number,
  data: Record<string, unknown>,
  requestId: string,
  headers?: Record<string, string>,
): Response {
  return json(status, { status: "success", data }, requestId, headers);
}

/** How soon a client may retry when the database was unreachable: a pooler or Postgres restarts in seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * A database that cannot be reached (a pooler or Postgres restarting, a dropped connection) is a
 * moment's outage: 502 database_unavailable with Retry-After, never a 500. Whatever the request
 * had written is in a committed transaction or none, so a retry with the same reference is safe.
 */
export function databaseUnavailable(error: unknown): PointsError | null {
  if (!isDatabaseUnavailable(error)) return null;
  return new PointsError(
    "database_unavailable",
    "The service cannot reach its database for a moment; retry with the same reference in a second, it is safe.",
    { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
  );
}

/** The one mapping from any thrown value to the error envelope; unknown errors say nothing about their cause. */
export function errorResponse(thrown: unknown, requestId: string): Response {
  const unavailable = databaseUnavailable(thrown);
  if (unavailable) {
    // The driver's own error, not drizzle's wrapper (whose message holds the query and its parameters).
    let cause = thrown as { code?: unknown; message?: unknown; cause?: unknown };
    while (cause.code === undefined && cause.cause) cause = cause.cause as typeof cause;
    log().warn(
      { event: "database_unavailable", code: cause.code ?? null, error: String(cause.message) },
      "database unavailable",
    );
  }
  const error = unavailable ?? thrown;
  if (!(error instanceof PointsError)) {
    log().error(
      {
        event: "unexpected_error",
        request_id: requestId,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      },
      "Unexpected error",
    );
    return json(
      500,
      {
        status: "error",
        error: {
          code: "internal_error",
          message: "Something went wrong on our side; retry with the same reference, it is safe.",
          details: {},
        },
      },
      requestId,
    );
  }
  if (error.cause !== undefined) {
    log().warn(
      { event: "error_cause", request_id: requestId, code: error.code, cause: describeCause(error.cause) },
      `Answered ${error.code}: ${describeCause(error.cause)}`,
    );
  }
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers["Retry-After"] = String(error.retryAfterSeconds);
  const body: Record<string, unknown> = {
    status: "error",
    error: { code: error.code, message: error.message, details: error.details },
  };
  if (error.topUp) {
    body.data = { top_up: toTopUpJson(error.topUp), points_balance: error.pointsBalance ?? 0 };
    headers["Idempotent-Replayed"] = "true";
  }
  return json(error.status, body, requestId, headers);
}

/** An error's cause for the log, in one line: its name and message, not its stack. */
function describeCause(cause: unknown): string {
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}

export function apiError(code: ErrorCode, message: string, requestId: string): Response {
  return errorResponse(new PointsError(code, message), requestId);
}

/**
 * The answers for the methods an endpoint does not serve: 405 in the envelope with `Allow`, and
 * OPTIONS answered in JSON too, so every response under /v3 keeps the contract's shape.
 */
export function otherMethods(allowed: string, hint: string) {
  const allow = `${allowed}, OPTIONS`;
  const notAllowed = (request: Request) =>
    handleApi(request, async (requestId) => {
      const response = apiError("method_not_allowed", hint, requestId);
      response.headers.set("Allow", allow);
      return response;
    });
  const options = (request: Request) =>
    handleApi(request, async (requestId) =>
      successResponse(200, { methods: allow.split(", ") }, requestId, { Allow: allow }),
    );
  return { notAllowed, options };
}

const outcomeErrors = {
  failed: ["payment_failed", "The payment failed"],
  awaiting_payment: ["payment_action_required", "The payment needs the cardholder's action"],
  unresolved: ["payment_unresolved", "The payment's outcome is not known yet"],
  reference_conflict: ["reference_conflict", "This reference was already used"],
  purchase_in_progress: ["purchase_in_progress", "Another request is working on this purchase right now"],
} as const satisfies Record<string, [ErrorCode, string]>;

/** A purchase's outcome as HTTP: 201 or 200 when paid, otherwise the error envelope with the purchase in `data`. */
export function purchaseResponse(result: PurchaseResult, requestId: string): Response {
  const replayHeaders: Record<string, string> = result.replayed ? { "Idempotent-Replayed": "true" } : {};
  const data = { top_up: toTopUpJson(result.topUp), points_balance: result.pointsBalance };
  if (result.outcome === "paid_now" || result.outcome === "paid") {
    return successResponse(result.outcome === "paid_now" ? 201 : 200, data, requestId, replayHeaders);
  }
  const [code, lead] = outcomeErrors[result.outcome];
  const body = {
    status: "error",
    error: { code, message: `${lead}: ${outcomeAdvice(result)}`, details: outcomeDetails(result) },
    data,
  };
  return json(errorStatus[code], body, requestId, replayHeaders);
}

function outcomeAdvice(result: PurchaseResult): string {
  const { topUp } = result;
  switch (result.outcome) {
    case "failed":
      return `${topUp.failureMessage ?? "it was declined"} Nothing was charged; a new purchase needs a new reference.`;
    case "awaiting_payment":
      return "an admin completes the authentication in the dashboard (History), which credits the Points at once; a retry with the same reference then answers the paid purchase, and never charges twice.";
    case "unresolved":
      return "retry with the same reference shortly; it will not charge twice.";
    case "reference_conflict":
      return "a retry must repeat the original points, currency and payment method; a new purchase needs a new reference.";
    default:
      return "retry with the same reference in a few seconds.";
  }
}

function outcomeDetails(result: PurchaseResult): Record<string, unknown> {
  const { topUp } = result;
  if (result.outcome === "failed" || result.outcome === "awaiting_payment") {
    return { failure_code: topUp.failureCode };
  }
  if (result.outcome === "reference_conflict") {
    return { reference: topUp.reference };
  }
  return {};
}

/** Reads a JSON body of at most 64 KiB. Returns the parsed value, or throws a PointsError. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const body = await readBodyWithin(request, MAX_BODY_BYTES);
  if (!body) {
    throw new PointsError("request_too_large", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, {
      details: { max_bytes: MAX_BODY_BYTES },
    });
  }
  const notJson = (why: string) =>
    new PointsError("invalid_request", "The request body must be a JSON object with the purchase's fields.", {
      details: { fields: { body: why } },
    });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw notJson("is not valid UTF-8");
  }
  if (text.trim() === "") throw notJson("is empty; send a JSON object");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw notJson("is not valid JSON");
  }
  const repeated = mayRepeatKeys(text, parsed) ? duplicateKeys(text) : [];
  if (repeated.length > 0) {
    throw new PointsError(
      "invalid_request",
      `The request body names ${repeated.join(", ")} more than once; send each field once.`,
      {
        details: { fields: Object.fromEntries(repeated.map((key) => [key, "appears more than once"])) },
      },
    );
  }
  return parsed;
}

/**
 * Whether a JSON text may name a key twice in one object: it cannot when it has no more `"…":`
 * than the parsed value has keys (each key written in the text is one; a repeated key leaves one
 * fewer in the value). Only then is the text walked key by key (duplicateKeys), so a plain
 * request body is parsed once.
 */
function mayRepeatKeys(text: string, parsed: unknown): boolean {
  const written = text.match(/"\s*:/g)?.length ?? 0;
  return written > countKeys(parsed, 0);
}

function countKeys(value: unknown, depth: number): number {
  if (value === null || typeof value !== "object" || depth > 32) return 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  let count = Array.isArray(value) ? 0 : items.length;
  for (const item of items) count += countKeys(item, depth + 1);
  return count;
}

/**
 * Runs a REST handler so that every response, error or not, has the envelope and X-Request-Id,
 * and is logged (one line) and timed (lib/http/observe.ts).
 */
export async function handleApi(
  request: Request,
  handler: (requestId: string) => Promise<Response>,
): Promise<Response> {
  const requestId = requestIdOf(request);
  return observeRequest(request, requestId, async () => {
    try {
      return await handler(requestId);
    } catch (error) {
      return errorResponse(error, requestId);
    }
  });
}

/** The services of a request whose deferred work (a recharge its change made due) runs once the answer is sent. */
export function deferredAfterAnswer<S extends Services>(services: S): S {
  return { ...services, defer: (task) => after(task) };
}
