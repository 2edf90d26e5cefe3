import { eq } from "drizzle-orm";
import {
  type PaymentMethodChange,
  type ProviderPaymentMethod,
  ProviderRefusedError,
  ProviderUnavailableError,
} from "@/lib/billing/provider";
import { type Organization, organizations } from "@/lib/db/schema";
import { announceCardSaved } from "../cards/card-setup";
import { announceCardAdded, announceCardRemoved, announceDefaultPaymentMethod } from "../cards/payment-method-events";
import { makeFirstCardDefault } from "../cards/payment-methods";
import type { Services } from "../services";

/*
 * The provider's events about an organisation's saved cards (Stripe's webhooks). A change made
 * through this service is announced by it too; one made at the provider itself (Stripe's
 * dashboard, another integration) only here. Either way each change is announced once
 * (lib/points/cards/payment-method-events.ts). A change made at the provider itself is not audited: no
 * user, API key or operator of this service made it (docs/contract.md §13). A card saved on the
 * provider's page is the admin's who started saving it, and audited as theirs.
 */

export interface CardEventOutcome {
  result: "handled" | "ignored";
  detail: string;
}

const NO_ORGANIZATION: CardEventOutcome = { result: "ignored", detail: "no organisation has this customer" };

async function organizationOf(
  services: Services,
  customerId: string,
): Promise<Pick<Organization, "id" | "billingCustomerId"> | undefined> {
  const [organization] = await services.db
    .select({ id: organizations.id, billingCustomerId: organizations.billingCustomerId })
    .from(organizations)
    .where(eq(organizations.billingCustomerId, customerId));
  return organization;
}

/**
 * A card saved on the provider's own page (Stripe Checkout in setup mode): the provider has
 * attached it to the customer already. It is announced (as its return page and the provider's
 * attachment event announce it) and audited as the admin who started saving it, and the
 * organisation's first card becomes its default, so it can be used at once.
 */
export async function cardSetUp(services: Services, customerId: string, sessionId: string): Promise<CardEventOutcome> {
  const organization = await organizationOf(services, customerId);
  if (!organization) return NO_ORGANIZATION;
  const finished = await services.provider.finishCardSetup?.(customerId, sessionId);
  if (finished) await announceCardSaved(services, organization.id, finished, "starter only");
  const made = await makeFirstCardDefault(services, organization);
  return { result: "handled", detail: made ? `default payment method set to ${made}` : "card saved" };
}

/** A card attached to or detached from the customer, or its default changed, wherever it was done. */
export async function paymentMethodsChanged(
  services: Services,
  customerId: string,
  change: PaymentMethodChange,
): Promise<CardEventOutcome> {
  const organization = await organizationOf(services, customerId);
  if (!organization) return NO_ORGANIZATION;
  if (change.change === "default") return defaultChanged(services, organization, change);
  const { paymentMethodId } = change;
  const announced =
    change.change === "added"
      ? await announceCardAdded(services, organization.id, paymentMethodId)
      : await announceCardRemoved(services, organization.id, paymentMethodId);
  return { result: "handled", detail: `${paymentMethodId} ${change.change}${announced ? "" : ", announced already"}` };
}

/**
 * The customer's default changed. The provider is asked which card it is now rather than the event
 * believed, so late or reordered deliveries announce the default as it is, and each only once. A
 * default cleared because its card was detached is no news of its own: the removal is announced.
 * When the provider cannot list the cards now, the event's own word is announced: an announcement
 * that waited for the provider's redelivery would be late, and an outage that lasts would fail the
 * event for good.
 */
async function defaultChanged(
  services: Services,
  organization: Pick<Organization, "id" | "billingCustomerId">,
  change: Extract<PaymentMethodChange, { change: "default" }>,
): Promise<CardEventOutcome> {
  const { previousId } = change;
  let methods: ProviderPaymentMethod[] | null;
  try {
    methods = await services.provider.listPaymentMethods(organization.billingCustomerId);
  } catch (error) {
    if (error instanceof ProviderRefusedError && error.reason === "customer_missing") {
      return { result: "ignored", detail: "the provider no longer knows this customer" };
    }
    if (!(error instanceof ProviderUnavailableError)) throw error;
    methods = null;
  }
  const current = methods ? (methods.find((method) => method.isDefault)?.id ?? null) : change.paymentMethodId;
  const detached = methods ? !methods.some((method) => method.id === previousId) : false;
  if (current === null && previousId !== null && detached) {
    return { result: "handled", detail: `the default went with its card ${previousId}` };
  }
  const announced = await announceDefaultPaymentMethod(services, organization.id, current);
  return {
    result: "handled",
    detail: `default payment method ${current ?? "cleared"}${announced ? "" : ", announced already"}`,
  };
}
