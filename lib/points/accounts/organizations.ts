import { and, eq, ne } from "drizzle-orm";
import { generatePassword } from "@/lib/auth/password";
import type { BillingProvider, ProviderPaymentMethod } from "@/lib/billing/provider";
import type { Currency } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { type Organization, organizations } from "@/lib/db/schema";
import { newId, randomString } from "@/lib/ids";
import { paymentMethodLabel } from "../../billing/card-label";
import { recordAudit } from "../audit";
import { PointsError, ProvisioningError } from "../errors";
import { emitSettingsChange, settingsEventData } from "../events/events";
import type { Services } from "../services";
import { type CreatedApiKey, createApiKey } from "./api-keys";
import { assertEmailUnused, insertUser, normaliseEmail } from "./users";

export interface OrganizationSettings {
  currency?: Currency | null;
  apiPurchasesEnabled?: boolean;
  apiAvailable?: boolean;
  maxPointsPerTopUp?: number | null;
  maxPointsBalance?: number | null;
  frequencyLimit?: { count: number; windowSeconds: number } | null;
  dailyPointsLimit?: number | null;
  /** Paid Points expire this many days after purchase; null: never. */
  paidPointsExpireAfterDays?: number | null;
}

export interface ProvisionedPaymentMethod {
  id: string;
  label: string;
  kind: string | null;
  isDefault: boolean;
}

export interface CreateOrganizationInput {
  name: string;
  settings?: OrganizationSettings;
  /** Simulated test cards to save, in order. */
  cards?: string[];
  defaultCardIndex?: number;
  simulateOutage?: boolean;
  adminEmail?: string;
  /** An existing customer at the billing provider (Stripe's cus_…) to link instead of creating one. */
  billingCustomerId?: string;
  /** The first API key's name; omitted: "Unnamed key", as `org create` makes it. */
  keyName?: string;
}

export interface CreatedOrganization {
  organization: Organization;
  apiKey: CreatedApiKey;
  paymentMethods: ProvisionedPaymentMethod[];
  admin: { userId: string; email: string; password: string };
}

/** An organisation with its billing customer, cards, first API key and first admin, all or nothing. */
export async function createOrganization(
  services: Services,
  input: CreateOrganizationInput,
): Promise<CreatedOrganization> {
  const name = input.name.trim();
  if (!name) {
    throw new ProvisioningError("The organisation needs a non-empty name.", { fields: { name: "must not be empty." } });
  }
  const cards = input.cards ?? [];
  for (const kind of cards) assertCardKind(services.provider, kind);
  assertCardIndex(input.defaultCardIndex, cards.length);
  const setOutage = input.simulateOutage === undefined ? null : outageSwitch(services.provider, input.simulateOutage);
  if (input.billingCustomerId !== undefined) await assertCustomerLinkable(services, input.billingCustomerId);
  const adminEmail = normaliseEmail(input.adminEmail ?? `admin-${randomString(6).toLowerCase()}@${slug(name)}.example`);
  // Checked before the provider makes a customer, so a refused email leaves nothing anywhere; the
  // unique index still settles a race, inside the transaction.
  await assertEmailUnused(services.db, adminEmail);
  const { password: adminPassword, passwordHash } = await generatePassword();

  const id = newId("organization");
  // The provider is called before the transaction, never inside one, whichever it is: a customer
  // left behind by a failure later is harmless, and named by its organization_id metadata.
  const billingCustomerId =
    input.billingCustomerId ?? (await services.provider.createCustomer({ organizationId: id, name }));
  const added = cards.length
    ? await services.provider.addCards({
        customerId: billingCustomerId,
        kinds: cards,
        defaultIndex: input.defaultCardIndex,
      })
    : [];
  if (setOutage) await setOutage(billingCustomerId);

  return services.db.transaction(async (tx) => {
    const now = services.clock.now();
    const [organization] = await tx
      .insert(organizations)
      .values({
        id,
        name,
        billingCustomerId,
        apiAvailable: true,
        apiPurchasesEnabled: false,
        ...settingsColumns(input.settings ?? {}),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .catch((error: unknown) => {
        // Another create linked the same customer after our check: the index decides, and the
        // loser is refused as if the check had seen it.
        if (isUniqueViolation(error, "organizations_billing_customer_idx"))
          throw customerAlreadyLinked(billingCustomerId);
        throw error;
      });
    if (!organization) throw new Error("The organisation was not created.");
    await recordAudit(tx, {
      organizationId: id,
      action: "organization.created",
      target: id,
      after: { name, ...(settingsEventData(organization).settings as object) },
      at: now,
    });
    const apiKey = await createApiKey(tx, id, services.clock, { name: input.keyName });
    const userId = await insertUser(tx, { organizationId: id, email: adminEmail, passwordHash, role: "admin", now });
    return {
      organization,
      apiKey,
      paymentMethods: added.map(toProvisioned),
      admin: { userId, email: adminEmail, password: adminPassword },
    };
  });
}

/**
 * One billing customer backs one organisation: a second organisation on it would list, and buy
 * on, the first one's cards. Checked before any provider call, so a refused link changes nothing
 * there either; the unique index on organizations.billing_customer_id settles a race.
 */
async function assertCustomerUnlinked(db: Db, billingCustomerId: string, exceptOrganizationId?: string): Promise<void> {
  const sameCustomer = eq(organizations.billingCustomerId, billingCustomerId);
  const [linked] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(exceptOrganizationId ? and(sameCustomer, ne(organizations.id, exceptOrganizationId)) : sameCustomer)
    .limit(1);
  if (linked) throw customerAlreadyLinked(billingCustomerId);
}

function customerAlreadyLinked(billingCustomerId: string): ProvisioningError {
  // Says that another organisation has it, never which: the operator may not be entitled to know.
  return new ProvisioningError(
    `The billing customer ${billingCustomerId} is already linked to another organisation; each organisation needs a customer of its own.`,
    { reason: "billing_customer_taken" },
  );
}

export interface UpdateOrganizationInput {
  settings?: OrganizationSettings;
  defaultCardIndex?: number;
  simulateOutage?: boolean;
  /**
   * Relinks the billing customer: an existing one the provider knows and no other organisation
   * has (`link`), or a new one made at the provider (`create`), for a customer the provider lost.
   */
  billingCustomer?: { link: string } | { create: true };
}

export async function updateOrganization(
  services: Services,
  organizationId: string,
  input: UpdateOrganizationInput,
): Promise<{ organization: Organization; paymentMethods: ProvisionedPaymentMethod[] }> {
  const organization = await getOrganization(services.db, organizationId);
  if (!organization) throw new ProvisioningError(`No organisation ${organizationId}.`);
  const setOutage = input.simulateOutage === undefined ? null : outageSwitch(services.provider, input.simulateOutage);
  const customerId = input.billingCustomer
    ? await relinkedCustomer(services, organization, input.billingCustomer)
    : organization.billingCustomerId;
  const methods =
    input.defaultCardIndex !== undefined ? await allPaymentMethods(services, { billingCustomerId: customerId }) : [];
  assertCardIndex(input.defaultCardIndex, methods.length);

  const updated = await services.db.transaction(async (tx) => {
    const columns = settingsColumns(input.settings ?? {});
    const [row] = await tx
      .update(organizations)
      .set({ ...columns, billingCustomerId: customerId, updatedAt: services.clock.now() })
      .where(eq(organizations.id, organizationId))
      .returning()
      .catch((error: unknown) => {
        if (isUniqueViolation(error, "organizations_billing_customer_idx")) throw customerAlreadyLinked(customerId);
        throw error;
      });
    return row ? emitSettingsChange(tx, organization, row, services.clock.now()) : organization;
  });
  // After the transaction, whichever the provider is: a provider call never runs inside one.
  if (input.defaultCardIndex !== undefined) {
    await services.provider.setDefaultPaymentMethod(customerId, methods[input.defaultCardIndex]?.id ?? null);
  }
  if (setOutage) await setOutage(customerId);
  return { organization: updated, paymentMethods: await listProvisionedPaymentMethods(services, updated) };
}

/**
 * The customer an organisation is to be relinked to, checked before anything is written: one no
 * other organisation has (as `org create` checks) and the provider knows, or a new one. A new
 * customer's idempotency key names the one it replaces, so it is not the organisation's first
 * customer again (Stripe would answer that one, deleted, for a day).
 */
async function relinkedCustomer(
  services: Services,
  organization: Organization,
  target: NonNullable<UpdateOrganizationInput["billingCustomer"]>,
): Promise<string> {
  if ("create" in target) {
    return services.provider.createCustomer({
      organizationId: organization.id,
      name: organization.name,
      replacing: organization.billingCustomerId,
    });
  }
  await assertCustomerLinkable(services, target.link, organization.id);
  return target.link;
}

/** A customer an organisation may be linked to: no other organisation's, and one the provider knows. */
async function assertCustomerLinkable(
  services: Services,
  customerId: string,
  exceptOrganizationId?: string,
): Promise<void> {
  await assertCustomerUnlinked(services.db, customerId, exceptOrganizationId);
  if (!(await services.provider.customerExists(customerId))) {
    const problem = `names a customer the billing provider does not know (${customerId}); check the ID, or leave it to the command to make one (org create without --stripe-customer, org update --new-stripe-customer).`;
    throw new ProvisioningError(`The billing customer ${problem}`, { fields: { billingCustomerId: problem } });
  }
}

/** Every saved card, expired ones included, as the operator sees them. */
export async function listProvisionedPaymentMethods(
  services: Services,
  organization: Pick<Organization, "billingCustomerId">,
): Promise<ProvisionedPaymentMethod[]> {
  return (await allPaymentMethods(services, organization)).map(toProvisioned);
}

async function allPaymentMethods(
  services: Services,
  organization: Pick<Organization, "billingCustomerId">,
): Promise<ProviderPaymentMethod[]> {
  // The operator sees the cards even while an outage is being simulated.
  const testMode = services.provider.testMode;
  return testMode?.listAllPaymentMethods
    ? testMode.listAllPaymentMethods(organization.billingCustomerId)
    : services.provider.listPaymentMethods(organization.billingCustomerId);
}

export async function getOrganization(db: Db, organizationId: string): Promise<Organization | undefined> {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, organizationId));
  return row;
}

/** The organisation a signed-in admin acts for; refused when it was deleted since the page loaded. */
export async function requireOrganization(db: Db, organizationId: string): Promise<Organization> {
  const organization = await getOrganization(db, organizationId);
  if (!organization) throw new PointsError("not_found", "This organisation no longer exists.");
  return organization;
}

function settingsColumns(settings: OrganizationSettings): Partial<Organization> {
  const columns: Partial<Organization> = {};
  if (settings.currency !== undefined) columns.currency = settings.currency;
  if (settings.apiPurchasesEnabled !== undefined) columns.apiPurchasesEnabled = settings.apiPurchasesEnabled;
  if (settings.apiAvailable !== undefined) columns.apiAvailable = settings.apiAvailable;
  if (settings.maxPointsPerTopUp !== undefined) columns.maxPointsPerTopUp = settings.maxPointsPerTopUp;
  if (settings.maxPointsBalance !== undefined) columns.maxPointsBalance = settings.maxPointsBalance;
  if (settings.dailyPointsLimit !== undefined) columns.dailyPointsLimit = settings.dailyPointsLimit;
  if (settings.paidPointsExpireAfterDays !== undefined) {
    columns.paidPointsExpireAfterDays = settings.paidPointsExpireAfterDays;
  }
  if (settings.frequencyLimit !== undefined) {
    columns.frequencyLimitCount = settings.frequencyLimit?.count ?? null;
    columns.frequencyLimitWindowSeconds = settings.frequencyLimit?.windowSeconds ?? null;
  }
  return columns;
}

function toProvisioned(method: ProviderPaymentMethod): ProvisionedPaymentMethod {
  return { id: method.id, label: paymentMethodLabel(method), kind: method.kind ?? null, isDefault: method.isDefault };
}

/** The provider's outage switch set to `on`, or a refusal when it has none (only the simulated provider does). */
function outageSwitch(provider: BillingProvider, on: boolean): (customerId: string) => Promise<void> {
  const testMode = provider.testMode;
  const setOutage = testMode?.setOutage;
  if (setOutage) return (customerId) => setOutage.call(testMode, customerId, on);
  const problem = "works only with the simulated billing provider (no STRIPE_SECRET_KEY).";
  throw new ProvisioningError(`Simulating an outage ${problem}`, { fields: { simulateOutage: problem } });
}

function assertCardKind(provider: BillingProvider, kind: string): void {
  const kinds = provider.testMode?.cardKinds() ?? [];
  if (kinds.includes(kind)) return;
  const refused = provider.testMode?.cardKindRefusal?.(kind);
  if (refused) throw new ProvisioningError(`Card ${kind}: ${refused}`, { fields: { cards: `${kind}: ${refused}` } });
  // Still in the operator's words: lib/points/accounts/organizations.test.ts pins this message as it is.
  throw new ProvisioningError(
    kinds.length
      ? `Unknown --card "${kind}": use ${kinds.slice(0, -1).join(", ")} or ${kinds.at(-1)}.`
      : "This billing provider has no test cards to save.",
  );
}

function assertCardIndex(index: number | undefined, count: number): void {
  if (index === undefined) return;
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    const problem =
      count === 0 ? "needs at least one card." : `must be a 0-based index below ${count}, the number of cards.`;
    throw new ProvisioningError(`The default card ${problem}`, { fields: { defaultCardIndex: problem } });
  }
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 30) || "org"
  );
}
