import { paymentMethodLabel } from "@/lib/billing/card-label";
import { withDeadline } from "@/lib/billing/deadline";
import { type ProviderPaymentMethod, ProviderUnavailableError } from "@/lib/billing/provider";
import type { Organization } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { PointsError } from "../errors";
import type { Services } from "../services";
import { billingProblemOf, forgetBillingProblems } from "./billing-problems";
import { announceDefaultPaymentMethod } from "./payment-method-events";

export interface PaymentMethod {
  id: string;
  label: string;
  type: "card";
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  isDefault: boolean;
  kind?: string;
}

/** A card is usable through the last day of its expiry month (UTC). */
export function isExpired(method: Pick<ProviderPaymentMethod, "expMonth" | "expYear">, now: Date): boolean {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  return method.expYear < year || (method.expYear === year && method.expMonth < month);
}

function paymentMethodsUnavailable(cause: unknown): PointsError {
  return new PointsError(
    "payment_methods_unavailable",
    "Payment methods are temporarily unavailable from the billing provider; wait a moment and try again.",
    { retryAfterSeconds: 30, cause },
  );
}

/**
 * The organisation's saved payment methods usable for a purchase: expired and detached cards
 * left out, the default first. The one list both the API and the dashboard show. A provider that
 * refuses for a lasting reason answers 409 billing_customer_missing or billing_credentials_refused
 * (logged once per cause); any other failure 502, since the caller can only wait and retry.
 */
export async function listUsablePaymentMethods(
  services: Services,
  organization: Pick<Organization, "billingCustomerId"> & { id?: string },
): Promise<PaymentMethod[]> {
  let methods: ProviderPaymentMethod[];
  const { provider } = services;
  try {
    methods = await withDeadline(provider.listPaymentMethods(organization.billingCustomerId), provider.callBudgetMs);
  } catch (error) {
    const problem = billingProblemOf(provider, error, organization.id);
    if (problem) throw problem;
    if (!(error instanceof ProviderUnavailableError))
      log().error({ event: "list_payment_methods_failed", err: error }, "Listing payment methods failed");
    throw paymentMethodsUnavailable(error);
  }
  forgetBillingProblems(organization.billingCustomerId);
  const now = services.clock.now();
  return methods
    .filter((method) => !isExpired(method, now))
    .map((method) => ({ ...method, label: paymentMethodLabel(method) }))
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
}

/** The method that pays when none is named: the default, or the only usable one; none otherwise. */
export function fallbackPaymentMethod(methods: PaymentMethod[]): PaymentMethod | undefined {
  return methods.find((method) => method.isDefault) ?? (methods.length === 1 ? methods[0] : undefined);
}

/** Step 6 of docs/contract.md §4: which saved method pays, from the usable list. */
export function resolvePaymentMethod(methods: PaymentMethod[], requestedId: string | undefined): PaymentMethod {
  if (requestedId !== undefined) {
    const found = methods.find((method) => method.id === requestedId);
    if (found) return found;
    // Also the answer for another organisation's method: nothing hints that it exists.
    throw new PointsError(
      "invalid_payment_method",
      "`payment_source_id` is not a usable saved payment method of this organisation; list them with GET /v3/points/payment-methods.",
      { details: { fields: { payment_source_id: "is not a usable saved payment method of this organisation" } } },
    );
  }
  const fallback = fallbackPaymentMethod(methods);
  if (fallback) return fallback;
  if (methods.length === 0) {
    throw new PointsError(
      "no_payment_method",
      "The organisation has no usable saved payment method: add one in the dashboard's Payment details.",
    );
  }
  throw new PointsError(
    "payment_method_required",
    "The organisation has several saved payment methods and no default: send `payment_source_id` or choose a default in Settings.",
  );
}

/**
 * When an organisation's customer has cards but no default, the only or first card becomes the
 * default, and is announced so. Used by the card-setup return page and the card_setup_completed
 * billing event alike.
 */
export async function makeFirstCardDefault(
  services: Services,
  organization: Pick<Organization, "id" | "billingCustomerId">,
): Promise<string | null> {
  const methods = await services.provider.listPaymentMethods(organization.billingCustomerId);
  const first = methods[0];
  if (!first || methods.some((method) => method.isDefault)) return null;
  await services.provider.setDefaultPaymentMethod(organization.billingCustomerId, first.id);
  await announceDefaultPaymentMethod(services, organization.id, first.id);
  return first.id;
}
