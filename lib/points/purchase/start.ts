import { and, eq } from "drizzle-orm";
import { organizations, type Organization, type TopUp, topUps } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { purchaseTransition } from "@/lib/observability/purchases";
import type { Bundle, Currency } from "../catalog";
import { PointsError } from "../errors";
import type { Db } from "@/lib/db/client";
import { assertWithinLimits, type KeyCap, type LimitSettings } from "../limits";
import { listUsablePaymentMethods, type PaymentMethod, resolvePaymentMethod } from "../payment-methods";
import { getPriceTable } from "../prices";
import type { Services } from "../services";
import type { TopUpRequest } from "../top-up-request";
import { takeLease } from "./lease";
import type { PurchaseOutcome, PurchaseResult } from "./outcome";
import type { PurchaseOptions } from "./test-hooks";

export interface PurchaseInput {
  organization: Organization;
  request: TopUpRequest;
  source: "api" | "dashboard";
  /** The API key an API purchase is made with: recorded on the purchase, and its cap applies. */
  apiKey?: KeyCap;
}

export type Started =
  | { kind: "answer"; result: PurchaseResult }
  | { kind: "current"; topUpId: string }
  | { kind: "work"; topUp: TopUp; replayed: boolean };

/** The price table, or why it could not be read: a failure only matters for a new purchase. */
export type Priced = { table: Awaited<ReturnType<typeof getPriceTable>> } | { error: unknown };

/**
 * P1: records the purchase row, `pending`, holding a lease, or decides the replay, in one
 * transaction under the organisation's row lock.
 */
export async function startPurchase(
  services: Services,
  input: PurchaseInput,
  terms: PurchaseTerms,
  priced: Priced,
  lease: { now: Date; leaseMs: number; lockToken: string },
  options: PurchaseOptions,
): Promise<Started> {
  const { organization, request, source, apiKey } = input;
  const { currency, paymentMethodId, paymentMethodLabel } = terms;
  const { now, leaseMs, lockToken } = lease;
  return services.db.transaction(async (tx) => {
    // The organisation's row lock serialises the decisions of one organisation's purchases:
    // limits are checked and the row inserted with no concurrent purchase in between.
    const [org] = await tx.select().from(organizations).where(eq(organizations.id, organization.id)).for("update");
    if (!org) throw new Error(`Organisation ${organization.id} vanished.`);
    const [existing] = await tx
      .select()
      .from(topUps)
      .where(and(eq(topUps.organizationId, org.id), eq(topUps.reference, request.reference)));

    if (existing) {
      // Step 7: a replay is answered before any limit, and does not count toward one.
      const replay = (outcome: PurchaseOutcome): Started => ({
        kind: "answer",
        result: { outcome, topUp: existing, pointsBalance: org.pointsBalance, replayed: true },
      });
      if (
        existing.points !== request.points ||
        existing.currency !== currency ||
        existing.paymentSourceId !== paymentMethodId
      ) {
        return replay("reference_conflict");
      }
      if (existing.status === "paid") return replay("paid");
      if (existing.status === "failed") return replay("failed");
      if (existing.lockedUntil && existing.lockedUntil > now) return replay("purchase_in_progress");
      await options.beforeTakeover?.(existing);
      const leased = await takeLease(tx, existing.id, lockToken, now, leaseMs);
      // Another request (a retry, the reconciler, a webhook) took it first: answer what it is now.
      if (!leased) return { kind: "current", topUpId: existing.id } satisfies Started;
      return { kind: "work", topUp: leased, replayed: true } satisfies Started;
    }

    const amount = await checkNewPurchase(tx, org, request.points, currency, priced, now, apiKey);
    const id = newId("topUp");
    const [created] = await tx
      .insert(topUps)
      .values({
        id,
        organizationId: org.id,
        reference: request.reference,
        points: request.points,
        currency,
        amount,
        paymentSourceId: paymentMethodId,
        paymentMethodLabel,
        billingCustomerId: org.billingCustomerId,
        source,
        apiKeyId: apiKey?.id ?? null,
        status: "pending",
        providerIdempotencyKey: `topup_${id}`,
        lockToken,
        lockedUntil: new Date(now.getTime() + leaseMs),
        attempts: 1,
        createdAt: now,
        updatedAt: now,
      })
      // The unique (organization_id, reference) index is the second guard behind the row lock.
      .onConflictDoNothing({ target: [topUps.organizationId, topUps.reference] })
      .returning();
    if (!created) throw new Error(`Reference ${request.reference} appeared under the organisation lock.`);
    purchaseTransition(created, null);
    return { kind: "work", topUp: created, replayed: false } satisfies Started;
  });
}

/** The resolved currency and payment method; the card's label is stored with a new purchase. */
export interface PurchaseTerms {
  currency: Currency;
  paymentMethodId: string;
  /** Null when the method was not listed (a stored purchase's retry): no row is made then. */
  paymentMethodLabel: string | null;
}

/**
 * Steps 5 and 6: the currency and payment method this request means. A retry whose reference is
 * stored and whose explicit fields match is answered from the stored purchase even when the
 * provider cannot list payment methods now, or its card has since expired or been removed: its
 * payment is already at the provider, and asking about it needs no listing.
 */
export async function resolvePurchaseTerms(
  services: Services,
  organization: Organization,
  request: TopUpRequest,
): Promise<PurchaseTerms> {
  const [stored] = await services.db
    .select()
    .from(topUps)
    .where(and(eq(topUps.organizationId, organization.id), eq(topUps.reference, request.reference)));
  const explicitMatch =
    stored &&
    stored.points === request.points &&
    (request.currency === undefined || request.currency === stored.currency) &&
    (request.paymentSourceId === undefined || request.paymentSourceId === stored.paymentSourceId);
  if (stored && explicitMatch) {
    const currency = request.currency ?? (organization.currency as Currency | null) ?? (stored.currency as Currency);
    if (request.paymentSourceId !== undefined) {
      return { currency, paymentMethodId: request.paymentSourceId, paymentMethodLabel: null };
    }
    try {
      const methods = await listUsablePaymentMethods(services, organization);
      const method = resolvePaymentMethod(methods, undefined);
      return { currency, paymentMethodId: method.id, paymentMethodLabel: method.label };
    } catch (error) {
      if (error instanceof PointsError && UNLISTABLE.has(error.code)) {
        return { currency, paymentMethodId: stored.paymentSourceId, paymentMethodLabel: null };
      }
      throw error;
    }
  }
  const { currency, method } = await resolveNewPurchaseTerms(services, organization, request);
  return { currency, paymentMethodId: method.id, paymentMethodLabel: method.label };
}

/** Steps 5 and 6 for a purchase that no stored one answers (and for a quote): currency, then method. */
export async function resolveNewPurchaseTerms(
  services: Services,
  organization: Organization,
  request: Pick<TopUpRequest, "currency" | "paymentSourceId">,
): Promise<{ currency: Currency; method: PaymentMethod }> {
  const currency = resolveCurrency(organization, request.currency);
  const methods = await listUsablePaymentMethods(services, organization);
  const method = resolvePaymentMethod(methods, request.paymentSourceId);
  return { currency, method };
}

/** The provider's prices, read before any transaction; a failure only matters for a new purchase. */
export function readPrices(services: Services): Promise<Priced> {
  return getPriceTable(services).then(
    (table) => ({ table }),
    (error: unknown) => ({ error }),
  );
}

/**
 * Steps 8 to 10's price, for a new purchase: the limits, the rate limits, then the bundle's price
 * in the currency, which it returns. The purchase runs it under the organisation's row lock just
 * before it records the purchase; a quote runs the same function and records nothing.
 */
export async function checkNewPurchase(
  tx: Db,
  org: LimitSettings,
  points: Bundle,
  currency: Currency,
  priced: Priced,
  now: Date,
  apiKey?: KeyCap,
): Promise<number> {
  await assertWithinLimits(tx, org, points, now, apiKey);
  if ("error" in priced) throw priced.error;
  const amount = priced.table[currency]?.[points];
  if (amount === undefined) {
    throw new PointsError(
      "currency_not_available",
      `The ${points} Points bundle has no price in ${currency}; choose another currency.`,
      { details: { points, currency } },
    );
  }
  return amount;
}

/** Why a default method cannot be named now; for a stored purchase its own method stands. */
const UNLISTABLE = new Set([
  "payment_methods_unavailable",
  "billing_customer_missing",
  "billing_credentials_refused",
  "no_payment_method",
  "payment_method_required",
]);

/** Step 5: the request's currency, else the organisation's saved one. */
export function resolveCurrency(organization: Pick<Organization, "currency">, requested?: Currency): Currency {
  const currency = requested ?? (organization.currency as Currency | null);
  if (!currency) {
    throw new PointsError(
      "currency_required",
      "The organisation has no saved currency: send `currency` (USD, GBP or EUR) or save one in Settings.",
      { details: { fields: { currency: "is required because the organisation has no saved currency" } } },
    );
  }
  return currency;
}
