import type { Bundle, Currency } from "@/lib/catalog";
import type { Organization } from "@/lib/db/schema";
import type { QuoteJson } from "../api/schemas";
import type { QuoteRequest } from "../api/top-up-request";
import { type PaymentMethod, toPaymentMethodJson } from "../cards/payment-methods";
import type { KeyCap } from "../limits/limits";
import type { Services } from "../services";
import { checkNewPurchase, readPrices, resolveNewPurchaseTerms } from "./start";

/** What a purchase with these terms would do now, if it were sent instead of the quote. */
export interface Quote {
  points: Bundle;
  currency: Currency;
  /** Minor units, as the billing provider prices the bundle now. */
  amount: number;
  paymentMethod: PaymentMethod;
  pointsBalanceAfter: number;
}

/**
 * Answers what purchasePoints would do with these terms now, or throws the PointsError of the
 * first check that would refuse it (docs/contract.md §4 steps 5, 6, 8, 9 and 10's price; step 7,
 * the reference, does not apply). It runs the purchase's own functions in the purchase's order,
 * charges nothing and writes nothing: no top-up row, no lease, nothing any limit counts. With the
 * API key it is asked with, the key's own daily cap refuses it as it would the key's purchase; a
 * read key may quote, and has no cap of its own to meet.
 */
export async function quotePurchase(
  services: Services,
  organization: Organization,
  request: QuoteRequest,
  apiKey?: KeyCap,
): Promise<Quote> {
  const { currency, method } = await resolveNewPurchaseTerms(services, organization, request);
  const priced = await readPrices(services);
  const now = services.clock.now();
  const amount = await checkNewPurchase(services.db, organization, request.points, currency, priced, now, apiKey);
  return {
    points: request.points,
    currency,
    amount,
    paymentMethod: method,
    pointsBalanceAfter: organization.pointsBalance + request.points,
  };
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
  };
}
