import { AsyncLocalStorage } from "node:async_hooks";
import type { BillingProvider } from "@/lib/billing/provider";
import { log } from "@/lib/observability/log";
import { metrics, secondsSince } from "@/lib/observability/metrics";

/** The provider calls that leave the process (or, for the simulated provider, stand for one). */
const OPERATIONS = new Set<string>([
  "listPaymentMethods",
  "getPrices",
  "customerExists",
  "checkCredentials",
  "charge",
  "retrievePayment",
  "describePayment",
  "receiptUrl",
  "findPayment",
  "cancelPayment",
  "refund",
  "listRefunds",
  "retrieveDispute",
  "beginAuthentication",
  "startCardSetup",
  "finishCardSetup",
  "createCustomer",
  "addCards",
  "setDefaultPaymentMethod",
  "removePaymentMethod",
]);

interface CallContext {
  /** The provider's ids of the HTTP requests this call made (Stripe's req_…), retries included. */
  requestIds: string[];
}

const globalForCalls = globalThis as unknown as { pointsProviderCalls?: AsyncLocalStorage<CallContext> };
globalForCalls.pointsProviderCalls ??= new AsyncLocalStorage<CallContext>();
const calls = globalForCalls.pointsProviderCalls;

/** Called by the Stripe client for each response it gets: the id is added to the call being made. */
export function noteProviderRequestId(requestId: string | null | undefined): void {
  if (requestId) calls.getStore()?.requestIds.push(requestId);
}

/**
 * The provider, with every call timed, counted and logged once (operation, duration, outcome, the
 * provider's request id): one decorator for both providers, made where the runtime builds it.
 * Everything else (names, budgets, testMode, verifyWebhook) passes through untouched.
 */
export function instrumentProvider(provider: BillingProvider): BillingProvider {
  return new Proxy(provider, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (typeof property !== "string" || !OPERATIONS.has(property)) return value.bind(target);
      return (...args: unknown[]) => timed(target.name, property, () => value.apply(target, args) as Promise<unknown>);
    },
  });
}

/**
 * Providers whose calls are HTTP requests with ids of their own. The others' calls run outside the
 * call context: an AsyncLocalStorage, once used, costs every promise the process makes.
 */
const REQUEST_ID_PROVIDERS = new Set(["stripe"]);

async function timed<T>(provider: string, operation: string, run: () => Promise<T>): Promise<T> {
  const context: CallContext = { requestIds: [] };
  const started = performance.now();
  try {
    const result = await (REQUEST_ID_PROVIDERS.has(provider) ? calls.run(context, run) : run());
    const seconds = secondsSince(started);
    metrics().providerDuration.observe({ provider, operation, outcome: "ok" }, seconds);
    log().info(
      {
        event: "provider_call",
        provider,
        operation,
        outcome: "ok",
        duration_ms: Math.round(seconds * 1000),
        ...resultFields(result),
        ...requestIdField(context),
      },
      "provider call",
    );
    return result;
  } catch (error) {
    const seconds = secondsSince(started);
    const kind = errorKind(error);
    metrics().providerDuration.observe({ provider, operation, outcome: "error" }, seconds);
    metrics().providerErrors.inc({ provider, operation, kind });
    log().warn(
      {
        event: "provider_call",
        provider,
        operation,
        outcome: "error",
        error_kind: kind,
        error: error instanceof Error ? error.message : String(error),
        duration_ms: Math.round(seconds * 1000),
        ...requestIdField(context, error),
      },
      "provider call failed",
    );
    throw error;
  }
}

function requestIdField(context: CallContext, error?: unknown): { provider_request_id?: string } {
  const fromError = errorRequestId(error);
  const id = fromError ?? context.requestIds.at(-1);
  return id ? { provider_request_id: id } : {};
}

/** Stripe's errors carry `requestId`; a refusal carries `providerRequestId`. */
function errorRequestId(error: unknown): string | null {
  if (!error || typeof error !== "object") return null;
  const { requestId, providerRequestId } = error as { requestId?: unknown; providerRequestId?: unknown };
  if (typeof providerRequestId === "string") return providerRequestId;
  return typeof requestId === "string" ? requestId : null;
}

/** Errors by name, not class: Next may load the provider module twice (see BillingProvider). */
function errorKind(error: unknown): string {
  const name = error instanceof Error ? error.name : "";
  if (name === "ProviderUnavailableError" || name === "ProviderDeadlineError") return "unavailable";
  if (name === "ProviderRefusedError") return "refused";
  return "other";
}

/** For a payment's answer, its status and id; nothing else a provider returns goes to the log. */
function resultFields(result: unknown): { payment_status?: string; payment_id?: string } {
  if (!result || typeof result !== "object" || !("status" in result)) return {};
  const { status, paymentId } = result as { status?: unknown; paymentId?: unknown };
  return {
    ...(typeof status === "string" ? { payment_status: status } : {}),
    ...(typeof paymentId === "string" ? { payment_id: paymentId } : {}),
  };
}
