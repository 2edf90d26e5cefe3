import type { BillingProvider } from "@/lib/billing/provider";
import { ProviderRefusedError } from "@/lib/billing/provider";
import { log } from "@/lib/observability/log";
import { PointsError } from "../errors";

/** The codes of a provider's lasting refusal (docs/contract.md §4 step 6): 409, no Retry-After. */
export type BillingProblemCode = "billing_customer_missing" | "billing_credentials_refused";

export function isBillingProblem(error: unknown): error is PointsError & { code: BillingProblemCode } {
  return (
    error instanceof PointsError &&
    (error.code === "billing_customer_missing" || error.code === "billing_credentials_refused")
  );
}

type Named = Pick<BillingProvider, "displayName" | "keyVariable">;

/** The provider's name as people know it, to start a sentence with. */
export function providerDisplayName(provider: Named): string {
  return provider.displayName.charAt(0).toUpperCase() + provider.displayName.slice(1);
}

/** What is wrong, said in one sentence to whoever called: nothing of the key, nor the customer's id. */
function problemError(provider: Named, refusal: ProviderRefusedError): PointsError {
  const who = providerDisplayName(provider);
  return refusal.reason === "customer_missing"
    ? new PointsError(
        "billing_customer_missing",
        `${who} no longer knows this organisation's billing customer, so nothing can be listed or charged; retrying will not help: the service's operator must relink the customer.`,
      )
    : new PointsError(
        "billing_credentials_refused",
        `${who} refused this service's API key, so nothing can be listed or charged; retrying will not help: the service's operator must set a valid key.`,
      );
}

/** At most this many causes are remembered; the oldest is forgotten first. */
const MAX_CAUSES = 1_000;
/** Shared by every bundled copy of this module in the process (lib/brand.ts says why there are two). */
const LOGGED_KEY = Symbol.for("points.billingProblemsLogged");

function loggedCauses(): Set<string> {
  const holder = globalThis as { [LOGGED_KEY]?: Set<string> };
  holder[LOGGED_KEY] ??= new Set<string>();
  return holder[LOGGED_KEY];
}

function causeOf(refusal: ProviderRefusedError): string {
  return refusal.reason === "customer_missing" ? `customer_missing:${refusal.customerId ?? ""}` : "credentials_refused";
}

/** The operator's log line for a refusal: what, the provider's code and request id, and how to mend it. */
export function billingProblemLogLine(provider: Named, refusal: ProviderRefusedError, organizationId?: string): string {
  const who = provider.displayName;
  const said = [refusal.providerCode, refusal.providerRequestId ? `request ${refusal.providerRequestId}` : null]
    .filter(Boolean)
    .join(", ");
  if (refusal.reason === "credentials_refused") {
    const variable = provider.keyVariable ?? "the provider's key";
    return `billing: ${who} refused the API key${said ? ` (${said})` : ""}: check ${variable}`;
  }
  const org = organizationId ?? "ORG_ID";
  const customer = refusal.customerId ?? "its customer";
  return (
    `billing: ${who} has no customer ${customer}${organizationId ? ` (organisation ${organizationId})` : ""}${said ? `: ${said}` : ""}. ` +
    `Relink it: npm run points -- org update ${org} --stripe-customer cus_… or --new-stripe-customer`
  );
}

/**
 * Logs a refusal once per cause (a customer, or the key) per process, at error level, with what
 * the operator runs or sets to mend it: many requests failing for the same reason make one line,
 * and a cause logs again once it was mended (forgetBillingProblems) and came back. Answers whether
 * it logged.
 */
export function logBillingProblemOnce(
  provider: Named,
  refusal: ProviderRefusedError,
  organizationId?: string,
): boolean {
  const causes = loggedCauses();
  const cause = causeOf(refusal);
  if (causes.has(cause)) return false;
  if (causes.size >= MAX_CAUSES) {
    const oldest = causes.values().next().value;
    if (oldest !== undefined) causes.delete(oldest);
  }
  causes.add(cause);
  log().error(
    {
      event: "billing_problem",
      reason: refusal.reason,
      ...(organizationId ? { organization_id: organizationId } : {}),
      ...(refusal.customerId ? { customer_id: refusal.customerId } : {}),
      provider_code: refusal.providerCode,
      provider_request_id: refusal.providerRequestId,
    },
    billingProblemLogLine(provider, refusal, organizationId),
  );
  return true;
}

/** A call that needed them succeeded: the key, and this customer if named, are fine again. */
export function forgetBillingProblems(customerId?: string): void {
  const causes = loggedCauses();
  causes.delete("credentials_refused");
  if (customerId !== undefined) causes.delete(`customer_missing:${customerId}`);
}

/**
 * A provider's lasting refusal as the service's PointsError, logged once per cause; null when the
 * error is something else (which the caller handles as before).
 */
export function billingProblemOf(provider: Named, error: unknown, organizationId?: string): PointsError | null {
  if (!(error instanceof ProviderRefusedError)) return null;
  logBillingProblemOnce(provider, error, organizationId);
  return problemError(provider, error);
}

/**
 * The dashboard's words for a lasting refusal, for an organisation's admins and members: what is
 * wrong and that support mends it. How to mend it (a command, a variable) is the operator's, in the
 * log line logBillingProblemOnce writes.
 */
export function billingProblemNotice(code: BillingProblemCode, provider: Named): { title: string; body: string } {
  const who = providerDisplayName(provider);
  const what =
    code === "billing_credentials_refused"
      ? `${who} is not accepting this service's connection at the moment`
      : `${who} no longer knows this organisation's customer account`;
  return {
    title: "Payments are unavailable right now",
    body: `${what}, so no card can be listed or charged. Contact support to have it restored.`,
  };
}
