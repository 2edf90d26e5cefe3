import { type Currency, isCurrency } from "@/lib/catalog";
import { listProvisionedPaymentMethods, requireOrganization } from "../accounts/organizations";
import { PointsError } from "../errors";
import type { Services } from "../services";
import { type BillingProblemCode, isBillingProblem } from "./billing-problems";
import { listUsablePaymentMethods, type PaymentMethod } from "./payment-methods";
import { dashboardTestCards } from "./test-cards";

/** A card is flagged on the Payment details page when its last usable day is this close. */
export const EXPIRY_WARNING_MONTHS = 2;

export interface PaymentDetailsMethod extends PaymentMethod {
  /** Usable now, but its expiry month ends within EXPIRY_WARNING_MONTHS. */
  expiresSoon: boolean;
}

export type PaymentDetails = {
  apiPurchasesEnabled: boolean;
  apiAvailable: boolean;
  /** The saved default currency, used in the example request; null when none is saved. */
  currency: Currency | null;
  /** For display only; what the page offers follows `capabilities`. */
  providerName: "simulated" | "stripe";
  capabilities: PaymentDetailsCapabilities;
} & (
  | {
      status: "ok";
      /** The same list GET /v3/points/payment-methods answers with: usable methods, the default first. */
      methods: PaymentDetailsMethod[];
      /** Saved methods the API will not accept (expired), named so the admin knows why they are missing. */
      unusable: { id: string; label: string }[];
      /** The test-card kinds already saved (simulated provider): each can be saved once. */
      savedKinds: string[];
    }
  | { status: "unavailable"; message: string }
  /** The provider refuses this organisation until an operator acts (BillingProblemNotice says how). */
  | { status: "refused"; problem: BillingProblemCode }
);

/** How cards are added here, by what the provider can do, never by its name. */
export interface PaymentDetailsCapabilities {
  /** Test cards are added and removed on this page (the simulated provider). */
  testCards: boolean;
  /** Cards are saved on the provider's own page (Stripe Checkout in setup mode). */
  cardSetupPage: boolean;
}

/**
 * Everything the Payment details page shows for one organisation. Whether the IDs may be shown
 * (spec 2.3: only once API purchases are enabled) is the page's decision, from apiPurchasesEnabled.
 */
export async function getPaymentDetails(services: Services, organizationId: string): Promise<PaymentDetails> {
  const organization = await requireOrganization(services.db, organizationId);
  const base = {
    apiPurchasesEnabled: organization.apiPurchasesEnabled,
    apiAvailable: organization.apiAvailable,
    currency: isCurrency(organization.currency) ? organization.currency : null,
    providerName: services.provider.name,
    capabilities: {
      testCards: dashboardTestCards(services.provider) !== null,
      cardSetupPage: services.provider.startCardSetup !== undefined,
    },
  };
  let usable: PaymentMethod[];
  try {
    usable = await listUsablePaymentMethods(services, organization);
  } catch (error) {
    if (isBillingProblem(error)) return { ...base, status: "refused", problem: error.code };
    if (error instanceof PointsError && error.code === "payment_methods_unavailable") {
      return { ...base, status: "unavailable", message: error.message };
    }
    throw error;
  }
  const now = services.clock.now();
  const usableIds = new Set(usable.map((method) => method.id));
  const saved = await listProvisionedPaymentMethods(services, organization);
  return {
    ...base,
    status: "ok",
    methods: usable.map((method) => ({ ...method, expiresSoon: expiresSoon(method, now) })),
    unusable: saved.filter((method) => !usableIds.has(method.id)).map(({ id, label }) => ({ id, label })),
    savedKinds: saved.flatMap((method) => (method.kind ? [method.kind] : [])),
  };
}

/**
 * True when a card's last usable day (the end of its expiry month, UTC, as isExpired counts it)
 * falls within EXPIRY_WARNING_MONTHS of now.
 */
export function expiresSoon(method: Pick<PaymentMethod, "expMonth" | "expYear">, now: Date): boolean {
  // Date.UTC takes a 0-based month, so expMonth itself is the first month after expiry.
  const firstUnusable = Date.UTC(method.expYear, method.expMonth, 1);
  const horizon = Date.UTC(
    now.getUTCFullYear(),
    now.getUTCMonth() + EXPIRY_WARNING_MONTHS,
    now.getUTCDate(),
    now.getUTCHours(),
    now.getUTCMinutes(),
  );
  return firstUnusable > now.getTime() && firstUnusable <= horizon;
}
