import { ProviderRefusedError, ProviderUnavailableError } from "@/lib/billing/provider";
import { stripeErrorType } from "./client";

interface StripeErrorFields {
  code?: string;
  requestId?: string;
  statusCode?: number;
  message?: string;
}

/**
 * A Stripe error that will answer the same until an operator acts, as ProviderRefusedError: a 401
 * (the key is refused) or 403 (a restricted key without the permission), and a 404 resource_missing
 * on the customer. Null for anything else, which may pass. The key itself is never copied: Stripe's
 * own message (which names part of it) stays behind.
 */
export function stripeRefusal(error: unknown, customerId?: string): ProviderRefusedError | null {
  const type = stripeErrorType(error);
  const fields = error as StripeErrorFields;
  const providerRequestId = fields.requestId ?? null;
  if (type === "StripeAuthenticationError" || type === "StripePermissionError") {
    const fallback = type === "StripeAuthenticationError" ? "authentication_error" : "permission_error";
    return new ProviderRefusedError("credentials_refused", {
      providerCode: fields.code ?? fallback,
      providerRequestId,
    });
  }
  if (
    type === "StripeInvalidRequestError" &&
    fields.statusCode === 404 &&
    fields.code === "resource_missing" &&
    /^No such customer\b/.test(fields.message ?? "")
  ) {
    const named = /'(cus_[A-Za-z0-9_]+)'/.exec(fields.message ?? "")?.[1];
    return new ProviderRefusedError("customer_missing", {
      customerId: customerId ?? named ?? null,
      providerCode: fields.code,
      providerRequestId,
    });
  }
  return null;
}

/**
 * What a failed read (listing cards, pricing) means to callers: a lasting refusal, or the provider
 * cannot answer now (timeouts, dropped connections, 5xx, 429: 502 payment_methods_unavailable).
 */
export function stripeReadError(error: unknown, what: string, customerId?: string): Error {
  if (error instanceof ProviderRefusedError || error instanceof ProviderUnavailableError) return error;
  return stripeRefusal(error, customerId) ?? new ProviderUnavailableError(what, { cause: error });
}

/** Rethrows a lasting refusal as ProviderRefusedError, anything else as it is. */
export function rethrowRefusal(customerId?: string): (error: unknown) => never {
  return (error) => {
    throw stripeRefusal(error, customerId) ?? error;
  };
}
