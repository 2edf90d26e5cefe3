import { operatorTrustsForwardedHeaders } from "@/lib/auth/trust";
import { randomString } from "@/lib/ids";
import type { BillingProvider, TestMode } from "@/lib/billing/provider";
import { TEST_CARDS, type TestCardKind } from "@/lib/billing/simulated";
import type { Currency } from "./catalog";
import { TEST_CARD_BEHAVIOUR, testCardBehaviour } from "./test-card-behaviour";
import { isCurrency } from "./catalog";
import { PointsError } from "./errors";
import { getOrganization, listProvisionedPaymentMethods, requireOrganization } from "./organizations";
import {
  isExpired,
  listUsablePaymentMethods,
  makeFirstCardDefault,
  type PaymentMethod,
  paymentMethodLabel,
} from "./payment-methods";
import type { Services } from "./services";

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
);

/** How cards are added here, by what the provider can do, never by its name. */
export interface PaymentDetailsCapabilities {
  /** Test cards are added and removed on this page (the simulated provider). */
  testCards: boolean;
  /** Cards are saved on the provider's own page (Stripe Checkout in setup mode). */
  cardSetupPage: boolean;
}

type CardManagingTestMode = TestMode & Required<Pick<TestMode, "removeCard">>;

/**
 * The test mode that lets an admin add and remove test cards here (one that can remove a card as
 * well as add it), or null when cards are saved elsewhere (Stripe: its Checkout page).
 */
function dashboardTestCards(provider: BillingProvider): CardManagingTestMode | null {
  const testMode = provider.testMode;
  return testMode?.removeCard ? (testMode as CardManagingTestMode) : null;
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

/** The test cards an admin can add with the simulated provider, with what each one does when charged. */
export const TEST_CARD_CHOICES: { kind: TestCardKind; label: string; behaviour: string }[] = (
  Object.keys(TEST_CARDS) as TestCardKind[]
).map((kind) => ({
  kind,
  label: paymentMethodLabel(TEST_CARDS[kind]).replace(" •••• ", " "),
  behaviour: TEST_CARD_BEHAVIOUR[kind],
}));

/**
 * Saves a simulated test card for the organisation. Only the simulated provider has test cards;
 * with Stripe, cards are added through a Checkout session in setup mode instead.
 */
export async function addTestCard(
  services: Services,
  organizationId: string,
  kind: string,
): Promise<PaymentMethod & { usable: boolean }> {
  const testMode = dashboardTestCards(services.provider);
  if (!testMode) {
    throw new PointsError("forbidden", "Test cards exist only with the simulated billing provider.");
  }
  if (!testMode.cardKinds().includes(kind)) {
    const message = `Choose one of the test cards: ${testMode.cardKinds().join(", ")}.`;
    throw new PointsError("invalid_request", message, { details: { fields: { kind: message } } });
  }
  const organization = await requireOrganization(services.db, organizationId);
  // One card of each kind: a second would look exactly like the first and behave the same.
  const saved = await listProvisionedPaymentMethods(services, organization);
  const twin = saved.find((method) => method.kind === kind);
  if (twin) {
    const message = `${twin.label} (${testCardBehaviour(kind)}) is already saved; each test card can be saved once.`;
    throw new PointsError("invalid_request", message, { details: { fields: { kind: message } } });
  }
  const [added] = await services.provider.addCards({ customerId: organization.billingCustomerId, kinds: [kind] });
  if (!added) throw new Error("The provider did not add the test card.");
  // An expired test card is saved like any other, but never listed by the API or charged.
  return { ...added, label: paymentMethodLabel(added), usable: !isExpired(added, services.clock.now()) };
}

/**
 * Removes a simulated test card (as Stripe's detach would a real one): never listed or charged
 * again. If it was the default, the organisation has no default until an admin chooses one.
 * Purchases already made with it keep resolving through their stored payments.
 */
export async function removeTestCard(
  services: Services,
  organizationId: string,
  paymentMethodId: string,
): Promise<{ wasDefault: boolean }> {
  const testMode = dashboardTestCards(services.provider);
  if (!testMode) {
    throw new PointsError("forbidden", "Test cards exist only with the simulated billing provider.");
  }
  const organization = await requireOrganization(services.db, organizationId);
  const saved = await listProvisionedPaymentMethods(services, organization);
  const card = saved.find((method) => method.id === paymentMethodId);
  // Another organisation's card is "not found", exactly like an unknown one.
  if (!card || !(await testMode.removeCard(organization.billingCustomerId, paymentMethodId))) {
    throw new PointsError(
      "not_found",
      "This card is no longer saved in this organisation (it may have been removed already). Reload the page to see the saved cards.",
    );
  }
  return { wasDefault: card.isDefault };
}

/**
 * This deployment's own URL, for the example request: the public URL when the operator set one
 * (AUTH_URL / NEXTAUTH_URL), else the Host the request arrived with. A proxy's X-Forwarded-* is
 * read only when the operator declared it trusted (lib/auth/trust.ts). Anything that does not look
 * like a host falls back to localhost, so a forged header cannot put markup or another command
 * into the example.
 */
export function deploymentUrl(header: (name: string) => string | null): string {
  const configured = process.env.AUTH_URL ?? process.env.NEXTAUTH_URL;
  if (configured && /^https?:\/\/[A-Za-z0-9.:[\]-]+\/?$/.test(configured)) return configured.replace(/\/$/, "");
  const first = (value: string | null) => value?.split(",")[0]?.trim() ?? "";
  const trusted = operatorTrustsForwardedHeaders();
  const forwardedProto = trusted ? first(header("x-forwarded-proto")).toLowerCase() : "";
  const host = (trusted ? first(header("x-forwarded-host")) : "") || first(header("host"));
  const safeHost = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? host : "localhost:3000";
  const isLocal = /^(localhost|127\.|\[::1\])/.test(safeHost);
  const proto = forwardedProto === "http" || forwardedProto === "https" ? forwardedProto : isLocal ? "http" : "https";
  return `${proto}://${safeHost}`;
}

/**
 * A ready-to-paste purchase with this method, never with a real key. Its reference is new each
 * time the page is shown: a reference names one purchase, so pasting an old example again would
 * replay that purchase (or answer 409 with other parameters) rather than buy.
 */
export function curlExample(input: {
  baseUrl: string;
  paymentSourceId: string;
  currency: Currency | null;
  reference?: string;
}): string {
  const body = JSON.stringify({
    points: 100,
    currency: input.currency ?? "USD",
    payment_source_id: input.paymentSourceId,
    reference: input.reference ?? `order-${randomString(10).toLowerCase()}`,
  });
  return [
    `curl -X POST ${input.baseUrl}/v3/points/top-ups \\`,
    `  -H "Authorization: Bearer <YOUR_API_KEY>" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${body}'`,
  ].join("\n");
}

/**
 * Adding a card with a provider that saves cards on its own page (Stripe Checkout in setup mode):
 * where to send the admin. They come back to /dashboard/payment-details/added.
 */
export async function startAddingCard(services: Services, organizationId: string, origin: string): Promise<string> {
  const start = services.provider.startCardSetup?.bind(services.provider);
  if (!start) throw new PointsError("forbidden", "With the simulated billing provider, add a test card instead.");
  const organization = await requireOrganization(services.db, organizationId);
  const { url } = await start(organization.billingCustomerId, {
    successUrl: `${origin}/dashboard/payment-details/added?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${origin}/dashboard/payment-details`,
  });
  return url;
}

/**
 * Back from the provider's page: the card is saved already (the provider attached it); the
 * organisation's first card becomes its default. The checkout.session.completed webhook does the
 * same, so whichever comes first, the result is one card and one default.
 */
export async function finishAddingCard(services: Services, organizationId: string, sessionId: string): Promise<boolean> {
  const finish = services.provider.finishCardSetup?.bind(services.provider);
  const organization = await getOrganization(services.db, organizationId);
  if (!finish || !organization) return false;
  const methodId = await finish(organization.billingCustomerId, sessionId);
  if (!methodId) return false;
  await makeFirstCardDefault(services, organization.billingCustomerId);
  return true;
}
