import { eq, getTableColumns } from "drizzle-orm";
import type { Bundle, Currency, TopUpSource } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { hotQuery, rowReader, sqlTime } from "@/lib/db/hot";
import { type Organization, organizations, type TopUp, topUps } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { purchaseTransition } from "@/lib/observability/purchases";
import type { TopUpRequest } from "../api/top-up-request";
import { recordAudit } from "../audit";
import { listUsablePaymentMethods, type PaymentMethod, resolvePaymentMethod } from "../cards/payment-methods";
import { PointsError } from "../errors";
import { assertWithinLimits, DAY_MS, type KeyCap, type LimitSettings, nothingToCountSql } from "../limits/limits";
import type { Services } from "../services";
import { chargedElsewhere, logChargedElsewhere } from "./charged-by";
import { takeLease } from "./lease";
import type { PurchaseOutcome, PurchaseResult } from "./outcome";
import { getPriceTable } from "./prices";
import type { PurchaseOptions } from "./test-hooks";
import { getTopUpByReference } from "./top-ups";

export interface PurchaseInput {
  organization: Organization;
  request: TopUpRequest;
  source: TopUpSource;
  /** The API key an API purchase is made with: recorded on the purchase, and its cap applies. */
  apiKey?: KeyCap;
  /**
   * The caller's own rule for a new purchase (auto-recharge's caps): run on the organisation's
   * locked row in the transaction that records the purchase, so no concurrent purchase passes it
   * between the check and the insert. What it throws rolls the recording back and reaches the caller.
   */
  guard?: (tx: Db, org: Organization, now: Date) => Promise<void>;
}

export type Started =
  | { kind: "answer"; result: PurchaseResult }
  | { kind: "current"; topUpId: string }
  | { kind: "work"; topUp: TopUp; replayed: boolean };

/** The price table, or why it could not be read: a failure only matters for a new purchase. */
export type Priced = { table: Awaited<ReturnType<typeof getPriceTable>> } | { error: unknown };

/**
 * P1: records the purchase row, already `processing` (from its commit on, the charge may be
 * sent) and holding a lease, or decides the replay, under the organisation's row lock. One
 * statement when no limit needs counting (recordAtOnce), else a transaction that counts them.
 */
export async function startPurchase(
  services: Services,
  input: PurchaseInput,
  terms: PurchaseTerms,
  priced: Priced,
  lease: { now: Date; leaseMs: number; lockToken: string },
  options: PurchaseOptions,
): Promise<Started> {
  const atOnce = await recordAtOnce(services, input, terms, priced, lease);
  if (atOnce) return atOnce;
  const { organization, request, apiKey } = input;
  const { now, leaseMs, lockToken } = lease;
  return services.db.transaction(async (tx) => {
    // The organisation's row lock serialises the decisions of one organisation's purchases:
    // limits are checked and the row inserted with no concurrent purchase in between.
    const [org] = await tx.select().from(organizations).where(eq(organizations.id, organization.id)).for("update");
    if (!org) throw new Error(`Organisation ${organization.id} vanished.`);
    const existing = await getTopUpByReference(tx, org.id, request.reference);

    if (existing) {
      const replay = decideReplay(services, existing, request, terms, org.pointsBalance, now);
      if (replay) return replay;
      await options.beforeTakeover?.(existing);
      const leased = await takeLease(tx, existing.id, lockToken, now, leaseMs);
      // Another request (a retry, the reconciler, a webhook) took it first: answer what it is now.
      if (!leased) return { kind: "current", topUpId: existing.id } satisfies Started;
      return { kind: "work", topUp: leased, replayed: true } satisfies Started;
    }

    await input.guard?.(tx, org, now);
    const amount = await checkNewPurchase(tx, org, request.points, terms.currency, priced, now, apiKey);
    const [created] = await tx
      .insert(topUps)
      .values(newTopUpRow(services, input, terms, amount, org.billingCustomerId, lease))
      // The unique (organization_id, reference) index is the second guard behind the row lock.
      .onConflictDoNothing({ target: [topUps.organizationId, topUps.reference] })
      .returning();
    if (!created) throw new Error(`Reference ${request.reference} appeared under the organisation lock.`);
    if (created.source === "dashboard") {
      await recordAudit(tx, {
        organizationId: org.id,
        action: "top_up.started",
        target: created.id,
        after: {
          reference: created.reference,
          points: created.points,
          currency: created.currency,
          amount: created.amount,
          payment_source_id: created.paymentSourceId,
        },
        at: now,
      });
    }
    purchaseTransition(created, null);
    return { kind: "work", topUp: created, replayed: false } satisfies Started;
  });
}

/**
 * Whether a stored purchase is the one these terms ask for (step 7): the same bundle, resolved
 * currency and payment method. Otherwise its reference answers 409 reference_conflict.
 */
export function sameTerms(
  stored: Pick<TopUp, "points" | "currency" | "paymentSourceId">,
  terms: { points: number; currency: string; paymentMethodId: string },
): boolean {
  return (
    stored.points === terms.points &&
    stored.currency === terms.currency &&
    stored.paymentSourceId === terms.paymentMethodId
  );
}

/**
 * Step 7: a stored purchase answers a request with its reference, before any limit and without
 * counting toward one. Null when the purchase is unresolved and its lease has run out: the
 * request takes the lease over and resumes it. An unresolved purchase another provider charged is
 * answered as it is stored (409 payment_unresolved, or 402 payment_action_required) and logged for
 * the operator: this instance's provider is never asked about it, and nothing is recorded.
 */
function decideReplay(
  services: Services,
  existing: TopUp,
  request: TopUpRequest,
  terms: PurchaseTerms,
  pointsBalance: number,
  now: Date,
): Started | null {
  const replay = (outcome: PurchaseOutcome): Started => ({
    kind: "answer",
    result: { outcome, topUp: existing, pointsBalance, replayed: true },
  });
  if (
    !sameTerms(existing, { points: request.points, currency: terms.currency, paymentMethodId: terms.paymentMethodId })
  ) {
    return replay("reference_conflict");
  }
  if (existing.status === "paid") return replay("paid");
  if (existing.status === "failed") return replay("failed");
  if (existing.lockedUntil && existing.lockedUntil > now) return replay("purchase_in_progress");
  if (chargedElsewhere(services.provider, existing)) {
    logChargedElsewhere(services.provider, existing, "a retry with its reference");
    return replay(existing.status === "awaiting_payment" ? "awaiting_payment" : "unresolved");
  }
  return null;
}

/** When Points bought now would expire: the organisation's paid_points_expire_after_days from now, or never (null). */
export function paidPointsExpireAt(
  organization: Pick<Organization, "paidPointsExpireAfterDays">,
  now: Date,
): Date | null {
  const days = organization.paidPointsExpireAfterDays;
  return days === null ? null : new Date(now.getTime() + days * DAY_MS);
}

/**
 * A new purchase's row: `processing` from the start, its lease held, its idempotency key fixed,
 * and the provider that charges it.
 */
function newTopUpRow(
  services: Pick<Services, "provider">,
  input: PurchaseInput,
  terms: PurchaseTerms,
  amount: number,
  billingCustomerId: string,
  lease: { now: Date; leaseMs: number; lockToken: string },
) {
  const { organization, request, source, apiKey } = input;
  const { now, leaseMs, lockToken } = lease;
  const id = newId("topUp");
  return {
    id,
    organizationId: organization.id,
    reference: request.reference,
    points: request.points,
    currency: terms.currency,
    amount,
    paymentSourceId: terms.paymentMethodId,
    paymentMethodLabel: terms.paymentMethodLabel,
    pointsExpireAt: paidPointsExpireAt(organization, now),
    billingCustomerId,
    provider: services.provider.name,
    source,
    apiKeyId: apiKey?.id ?? null,
    status: "processing",
    providerIdempotencyKey: `topup_${id}`,
    chargeAttemptedAt: now,
    lockToken,
    lockedUntil: new Date(now.getTime() + leaseMs),
    attempts: 1,
    createdAt: now,
    updatedAt: now,
  } satisfies typeof topUps.$inferInsert;
}

const TOP_UP_COLUMNS = getTableColumns(topUps);
const readTopUp = rowReader(topUps);

/**
 * P1 in one statement, for an organisation none of whose limits needs counting (no balance cap,
 * frequency or daily limit, a bundle within its per-top-up limit: limits.ts's nothingToCountSql)
 * and a key without a daily cap:
 * it locks the organisation's row and inserts the purchase unless its reference is taken, as the
 * transaction would, in the same lock order. The unique (organization_id, reference) index decides
 * that, not a lookup first: a lookup's cached plan may be one made before the table had statistics,
 * scanning all of the organisation's purchases. The stored purchase is read only when none was
 * inserted, for its replay. With nothing to count, such purchases need not wait for each other or
 * for the balance's writers: the lock is the one inserting a purchase takes anyway (key share).
 * Locking reads the row's newest committed version, so a limit saved before is obeyed; a
 * transaction that counts purchases under a limit takes the exclusive lock, so it waits for this
 * purchase's commit and counts it. Null when it cannot decide: limits to count, a price missing,
 * a stored purchase to take over, or a race on the reference; the transaction in startPurchase
 * decides those.
 */
function recordAtOnceSql(columns: Array<keyof typeof topUps.$inferInsert>): string {
  // $1 is the organisation; the row's values follow in `columns` order.
  const param = (key: keyof typeof topUps.$inferInsert) => `$${columns.indexOf(key) + 2}`;
  const names = [...columns.map((key) => `"${TOP_UP_COLUMNS[key].name}"`), "billing_customer_id"];
  const values = [...columns.map(param), "org.billing_customer_id"];
  const reference = param("reference");
  const points = param("points");
  return `with org as (
  select id, points_balance, billing_customer_id,
    ${nothingToCountSql(points)} as open
  from organizations where id = $1 for key share
),
inserted as (
  insert into top_ups (${names.join(", ")})
  select ${values.join(", ")} from org where org.open
  on conflict (organization_id, reference) do nothing
  returning *
),
existing as (
  select * from top_ups where organization_id = $1 and reference = ${reference} and not exists (select 1 from inserted)
)
select true as is_new, (select points_balance from org) as org_points_balance, inserted.* from inserted
union all
select false, (select points_balance from org), existing.* from existing`;
}
const recordAtOnceTexts = new Map<string, string>();

async function recordAtOnce(
  services: Services,
  input: PurchaseInput,
  terms: PurchaseTerms,
  priced: Priced,
  lease: { now: Date; leaseMs: number; lockToken: string },
): Promise<Started | null> {
  // A purchase made in the dashboard is audited in the transaction that records it, below; a
  // guard runs there too.
  if (
    "error" in priced ||
    input.source === "dashboard" ||
    input.guard ||
    (input.apiKey && input.apiKey.dailyPointsCap !== null)
  )
    return null;
  const amount = priced.table[terms.currency]?.[input.request.points];
  if (amount === undefined) return null;
  // The organisation's customer is read from its locked row, as the transaction does.
  const { billingCustomerId: _fromTheRow, ...row } = newTopUpRow(services, input, terms, amount, "", lease);
  const columns = Object.keys(row) as Array<keyof typeof row>;
  const shape = columns.join();
  const text = recordAtOnceTexts.get(shape) ?? recordAtOnceSql(columns);
  recordAtOnceTexts.set(shape, text);
  const params = columns.map((key) => {
    const value = row[key];
    return value instanceof Date ? sqlTime(value) : value;
  });
  const [found] = await hotQuery(services.db, text, [input.organization.id, ...params]);
  if (!found) return null;
  const topUp = readTopUp(found);
  if (found.is_new) {
    purchaseTransition(topUp, null);
    return { kind: "work", topUp, replayed: false };
  }
  return decideReplay(services, topUp, input.request, terms, Number(found.org_points_balance), lease.now);
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
 * payment is already at the provider, and asking about it needs no listing. The stored purchase
 * is read only when the terms cannot be resolved as a new purchase's; otherwise P1 finds it.
 */
export async function resolvePurchaseTerms(
  services: Services,
  organization: Organization,
  request: TopUpRequest,
): Promise<PurchaseTerms> {
  try {
    const { currency, method } = await resolveNewPurchaseTerms(services, organization, request);
    return { currency, paymentMethodId: method.id, paymentMethodLabel: method.label };
  } catch (error) {
    if (!(error instanceof PointsError)) throw error;
    const stored = await getTopUpByReference(services.db, organization.id, request.reference);
    const explicitMatch =
      stored &&
      stored.points === request.points &&
      (request.currency === undefined || request.currency === stored.currency) &&
      (request.paymentSourceId === undefined || request.paymentSourceId === stored.paymentSourceId);
    if (!stored || !explicitMatch) throw error;
    return storedPurchaseTerms(services, organization, request, stored);
  }
}

/** The terms of a retry of a stored purchase whose explicit fields match it. */
async function storedPurchaseTerms(
  services: Services,
  organization: Organization,
  request: TopUpRequest,
  stored: TopUp,
): Promise<PurchaseTerms> {
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
