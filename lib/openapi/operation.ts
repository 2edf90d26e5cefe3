/**
 * The parts every operation of the OpenAPI document is made of: the checks each kind of endpoint
 * runs first, the success envelope, and an operation with its key, headers and error responses.
 */
import { z } from "zod";
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from "zod-openapi";
import type { ErrorCode } from "@/lib/points/errors";
import { errorResponses, requestIdHeader } from "./errors";

/** The first checks of every endpoint with a key (docs/contract.md §4 steps 1-3). */
export const KEY_CHECKS = [
  "invalid_api_key",
  "not_available",
  "api_purchases_disabled",
] as const satisfies readonly ErrorCode[];
/** What asking the billing provider may answer (docs/contract.md §4 step 6, §5). */
export const PROVIDER_REFUSALS = [
  "payment_methods_unavailable",
  "billing_customer_missing",
  "billing_credentials_refused",
] as const satisfies readonly ErrorCode[];
/** The checks a purchase and its quote share after the key (§4 steps 4-6, 8-10). */
export const TERMS_CHECKS = [
  "request_too_large",
  "invalid_request",
  "currency_required",
  ...PROVIDER_REFUSALS,
  "invalid_payment_method",
  "payment_method_required",
  "no_payment_method",
  "limit_exceeded",
  "frequency_limit_reached",
  "daily_limit_reached",
  "key_daily_limit_reached",
  "currency_not_available",
] as const satisfies readonly ErrorCode[];

const requestHeaders = z.object({
  "X-Request-Id": z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/)
    .optional()
    .meta({ description: "Your id for this request, echoed back; one is made when absent or malformed." }),
});

export function success(
  description: string,
  data: z.ZodType,
  example: unknown,
  headers: Record<string, unknown> = {},
): ZodOpenApiResponseObject {
  return {
    description,
    headers: { ...requestIdHeader, ...headers } as ZodOpenApiResponseObject["headers"],
    content: {
      "application/json": {
        schema: z.object({ status: z.literal("success"), data }),
        example: { status: "success", data: example },
      },
    },
  };
}

export function operation(
  spec: Omit<ZodOpenApiOperationObject, "responses" | "security"> & {
    responses: Record<string, ZodOpenApiResponseObject>;
    errors: readonly ErrorCode[];
    /** False for an endpoint whose errors concern no stored purchase (spends). */
    storedPurchase?: boolean;
  },
): ZodOpenApiOperationObject {
  const { errors, responses, requestParams, storedPurchase, ...rest } = spec;
  return {
    ...rest,
    security: [{ apiKey: [] }],
    requestParams: { ...requestParams, header: requestHeaders },
    // Any endpoint may meet a database it cannot reach for a moment (a pooler or Postgres restarting).
    responses: { ...responses, ...errorResponses([...errors, "database_unavailable"], { storedPurchase }) },
  };
}
