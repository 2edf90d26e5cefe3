import type { Bundle, Currency } from "@/lib/catalog";
import { rowReader } from "@/lib/db/hot";
import type { EventRow, Spend, TopUp } from "@/lib/db/schema";
import { topUps } from "@/lib/db/schema";
import type { Balance } from "../balance/balance";
import type { PaymentMethod } from "../cards/payment-methods";
import type { EventJson, EventType } from "../events/events";
import type { BalanceJson, PaymentMethodJson, QuoteJson, SpendJson, TopUpJson } from "./schemas";

/*
 * The API's objects, each built field by field from the domain's so nothing internal leaks. The
 * feed, the webhooks, the CLI's JSON and the error details all send what these return, and
 * schemas.ts types each one for the OpenAPI document.
 */

export type { TopUpJson };

type DisputeJson = NonNullable<TopUpJson["dispute"]>;

/** The TopUp object of docs/contract.md §2, built field by field so nothing internal leaks. */
export function toTopUpJson(topUp: TopUp): TopUpJson {
  const hasFailure = topUp.status === "failed" || topUp.status === "awaiting_payment";
  return {
    id: topUp.id,
    reference: topUp.reference,
    points: topUp.points as TopUpJson["points"],
    currency: topUp.currency as TopUpJson["currency"],
    amount: topUp.amount,
    payment_source_id: topUp.paymentSourceId,
    status: topUp.status as TopUpJson["status"],
    failure: hasFailure && topUp.failureCode ? { code: topUp.failureCode, message: topUp.failureMessage ?? "" } : null,
    source: topUp.source as TopUpJson["source"],
    created_at: topUp.createdAt.toISOString(),
    paid_at: topUp.paidAt ? topUp.paidAt.toISOString() : null,
    refunded_points: topUp.refundedPoints,
    refunded_amount: topUp.refundedAmount,
    dispute: disputeOf(topUp),
    receipt_url: receiptUrlOf(topUp),
    points_expire_at: topUp.pointsExpireAt ? topUp.pointsExpireAt.toISOString() : null,
  };
}

/** The dispute as the API and the pages show it, or null when there has been none. */
export function disputeOf(topUp: TopUp) {
  if (!topUp.disputeStatus || !topUp.disputePointsState) return null;
  return {
    status: topUp.disputeStatus as DisputeJson["status"],
    points: topUp.disputePoints ?? 0,
    points_state: topUp.disputePointsState as DisputeJson["points_state"],
    opened_at: topUp.disputeOpenedAt ? topUp.disputeOpenedAt.toISOString() : null,
    closed_at: topUp.disputeClosedAt ? topUp.disputeClosedAt.toISOString() : null,
  };
}

/** Where a paid purchase's receipt is, in the dashboard. */
export function receiptPath(topUpId: string): string {
  return `/dashboard/receipts/${topUpId}`;
}

let publicOrigin: string | null | undefined;

/**
 * A paid purchase's receipt as a URL for the API's TopUp: absolute when the deployment's public URL
 * is configured (AUTH_URL or NEXTAUTH_URL, as the dashboard's links use), else the path on this
 * service; null until the purchase is paid.
 */
export function receiptUrlOf(topUp: Pick<TopUp, "id" | "status">): string | null {
  if (topUp.status !== "paid") return null;
  if (publicOrigin === undefined) {
    const configured = process.env.AUTH_URL ?? process.env.NEXTAUTH_URL ?? "";
    publicOrigin = /^https?:\/\/[A-Za-z0-9.:[\]-]+\/?$/.test(configured) ? configured.replace(/\/$/, "") : null;
  }
  return `${publicOrigin ?? ""}${receiptPath(topUp.id)}`;
}

const readTopUpRow = rowReader(topUps);

/** An event as the feed and the webhooks send it (docs/contract.md §8). */
export function toEventJson(row: EventRow): EventJson {
  const stored = row.data as Record<string, unknown>;
  const data =
    stored.top_up && typeof stored.top_up === "object"
      ? { ...stored, top_up: toTopUpJson(readTopUpRow(stored.top_up as Record<string, unknown>)) }
      : stored;
  return {
    id: row.id,
    type: row.type as EventType,
    sequence: row.sequence,
    created_at: row.createdAt.toISOString(),
    organization_id: row.organizationId,
    data,
  };
}

/**
 * The balance as JSON. Only the limits an operator configured are listed; an unconfigured limit is
 * absent, so `limits` is `{}` for an organisation without any.
 */
export function toBalanceJson(balance: Balance): BalanceJson {
  const { balance: cap, frequency, daily, maxPointsPerTopUp } = balance.limits;
  const limits: BalanceJson["limits"] = {};
  if (maxPointsPerTopUp !== null) limits.max_points_per_top_up = { limit: maxPointsPerTopUp };
  if (cap.limit !== null) {
    limits.max_points_balance = { limit: cap.limit, used: cap.used, remaining: cap.remaining ?? 0 };
  }
  if (frequency.limit && frequency.used !== null) {
    limits.frequency_limit = {
      limit: frequency.limit.count,
      window_seconds: frequency.limit.windowSeconds,
      used: frequency.used,
      remaining: frequency.remaining ?? 0,
    };
  }
  if (daily.limit !== null) {
    limits.daily_points_limit = { limit: daily.limit, used: daily.used, remaining: daily.remaining ?? 0 };
  }
  const key = balance.keyDaily;
  if (key && key.limit !== null) {
    limits.key_daily_points = { limit: key.limit, used: key.used, remaining: key.remaining ?? 0 };
  }
  return {
    points_balance: balance.pointsBalance,
    points_held: balance.pointsHeld,
    // Holds are not offered yet (docs/contract.md §16): nothing is reserved.
    points_reserved: 0,
    points_by_category: balance.pointsByCategory,
    expiring: balance.expiring.map((lot) => ({
      points: lot.points,
      category: lot.category,
      expires_at: lot.expiresAt.toISOString(),
    })),
    limits,
    next_purchase_at: balance.nextPurchaseAt.toISOString(),
  };
}

export function toPaymentMethodJson(method: PaymentMethod): PaymentMethodJson {
  return {
    id: method.id,
    label: method.label,
    type: method.type,
    brand: method.brand,
    last4: method.last4,
    exp_month: method.expMonth,
    exp_year: method.expYear,
    is_default: method.isDefault,
  };
}

/** The Spend object of the API, the feed and the webhooks. */
export function toSpendJson(spend: Spend): SpendJson {
  return {
    id: spend.id,
    reference: spend.reference,
    points: spend.points,
    description: spend.description,
    created_at: spend.createdAt.toISOString(),
  };
}

/** What a purchase with these terms would do now, if it were sent instead of the quote. */
export interface Quote {
  points: Bundle;
  currency: Currency;
  /** Minor units, as the billing provider prices the bundle now. */
  amount: number;
  paymentMethod: PaymentMethod;
  pointsBalanceAfter: number;
  /** When the Points it would buy would expire, were it bought now; null: never. */
  pointsExpireAt: Date | null;
}

/** The quote as JSON: a TopUp's terms, the method that would pay in full, and the balance it would leave. */
export function toQuoteJson(quote: Quote): QuoteJson {
  return {
    points: quote.points,
    currency: quote.currency,
    amount: quote.amount,
    payment_source_id: quote.paymentMethod.id,
    payment_method: toPaymentMethodJson(quote.paymentMethod),
    points_balance_after: quote.pointsBalanceAfter,
    points_expire_at: quote.pointsExpireAt ? quote.pointsExpireAt.toISOString() : null,
  };
}
