import { eq } from "drizzle-orm";
import type { Currency } from "@/lib/catalog";
import { isCurrency } from "@/lib/catalog";
import { organizations } from "@/lib/db/schema";
import { requireOrganization } from "../accounts/organizations";
import { PointsError } from "../errors";
import { emitSettingsChange } from "../events/events";
import type { Services } from "../services";
import { type BillingProblemCode, isBillingProblem } from "./billing-problems";
import { announceDefaultPaymentMethod } from "./payment-method-events";
import { listUsablePaymentMethods, type PaymentMethod } from "./payment-methods";

/** What an admin saves in Settings. The REST API follows only this saved state (docs/contract.md §4 steps 3, 5, 6). */
export interface SettingsInput {
  apiPurchasesEnabled: boolean;
  currency: Currency | null;
  /**
   * The default payment method, which must be one of the organisation's usable saved methods;
   * null clears the default; undefined leaves it as it is (the form could not list the methods).
   */
  defaultPaymentMethodId?: string | null;
}

/** What a save changed. */
export type SettingsChange = "apiPurchasesEnabled" | "currency" | "defaultPaymentMethod";

export interface SavedSettings {
  apiPurchasesEnabled: boolean;
  /** The operator's eligibility switch: when false, the API answers 404 whatever is saved here. */
  apiAvailable: boolean;
  currency: Currency | null;
}

export interface SettingsView extends SavedSettings {
  defaultPaymentMethodId: string | null;
  /** The usable methods a default can be chosen from, or null when the provider cannot list them now. */
  paymentMethods: PaymentMethod[] | null;
  /** Why the provider refuses this organisation until an operator acts, if it does. */
  billingProblem: BillingProblemCode | null;
}

/** The saved settings and the choices the form offers. */
export async function getSettings(services: Services, organizationId: string): Promise<SettingsView> {
  const organization = await requireOrganization(services.db, organizationId);
  let paymentMethods: PaymentMethod[] | null;
  let billingProblem: BillingProblemCode | null = null;
  try {
    paymentMethods = await listUsablePaymentMethods(services, organization);
  } catch (error) {
    if (isBillingProblem(error)) billingProblem = error.code;
    else if (!(error instanceof PointsError && error.code === "payment_methods_unavailable")) throw error;
    paymentMethods = null;
  }
  return {
    apiPurchasesEnabled: organization.apiPurchasesEnabled,
    apiAvailable: organization.apiAvailable,
    currency: isCurrency(organization.currency) ? organization.currency : null,
    defaultPaymentMethodId: paymentMethods?.find((method) => method.isDefault)?.id ?? null,
    paymentMethods,
    billingProblem,
  };
}

/**
 * Saves the organisation's settings in one place: the API switch, the default currency and the
 * default payment method (kept by the billing provider, as Stripe keeps a customer's default).
 * Nothing is changed when any part is refused.
 */
export async function saveSettings(
  services: Services,
  organizationId: string,
  input: SettingsInput,
): Promise<SavedSettings & { changed: SettingsChange[] }> {
  if (input.currency !== null && !isCurrency(input.currency)) {
    throw fieldError("currency", "Choose USD, GBP, EUR or no default currency.");
  }
  const organization = await requireOrganization(services.db, organizationId);
  const defaultId = input.defaultPaymentMethodId;
  let defaultChanged = defaultId === null;
  if (typeof defaultId === "string") {
    // Only this organisation's usable methods qualify: another organisation's ID is refused the
    // same way as an unknown one, so the form cannot be used to probe for IDs.
    const methods = await listUsablePaymentMethods(services, organization);
    defaultChanged = !methods.some((method) => method.id === defaultId && method.isDefault);
    if (!methods.some((method) => method.id === defaultId)) {
      throw fieldError("defaultPaymentMethodId", "Choose one of this organisation's usable saved payment methods.");
    }
  }

  // The provider is told first, outside any transaction, whichever it is: if it refuses, nothing is saved.
  if (defaultId !== undefined) {
    await services.provider.setDefaultPaymentMethod(organization.billingCustomerId, defaultId);
    if (defaultChanged) {
      await announceDefaultPaymentMethod(services, organizationId, defaultId, {
        action: "payment_method.default_changed",
        target: defaultId ?? organizationId,
        after: { default: defaultId },
      });
    }
  }
  return services.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(organizations)
      .set({
        apiPurchasesEnabled: input.apiPurchasesEnabled,
        currency: input.currency,
        updatedAt: services.clock.now(),
      })
      .where(eq(organizations.id, organizationId))
      .returning();
    if (!updated) throw new Error(`Organisation ${organizationId} vanished while saving its settings.`);
    await emitSettingsChange(tx, organization, updated, services.clock.now());
    const changed: SettingsChange[] = [];
    if (updated.apiPurchasesEnabled !== organization.apiPurchasesEnabled) changed.push("apiPurchasesEnabled");
    if (updated.currency !== organization.currency) changed.push("currency");
    if (defaultChanged) changed.push("defaultPaymentMethod");
    return {
      changed,
      apiPurchasesEnabled: updated.apiPurchasesEnabled,
      apiAvailable: updated.apiAvailable,
      currency: isCurrency(updated.currency) ? updated.currency : null,
    };
  });
}

function fieldError(field: string, message: string): PointsError {
  return new PointsError("invalid_request", message, { details: { fields: { [field]: message } } });
}
