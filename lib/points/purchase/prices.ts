import type { PriceTable } from "@/lib/billing/provider";
import { BUNDLES, type Bundle, type Currency } from "@/lib/catalog";
import { log } from "@/lib/observability/log";
import { billingProblemOf } from "../cards/billing-problems";
import { PointsError } from "../errors";
import type { Services } from "../services";

export interface BundlePrice {
  points: Bundle;
  /** Minor units as the billing provider prices it, or null when it has no price in this currency. */
  amount: number | null;
}

/**
 * The billing provider's prices. A refused key answers 409 billing_credentials_refused; when it
 * cannot answer, the caller can only wait and retry: 502 payment_methods_unavailable, the one 5xx
 * the contract allows.
 */
export async function getPriceTable(services: Services): Promise<PriceTable> {
  try {
    return await services.provider.getPrices();
  } catch (error) {
    const problem = billingProblemOf(services.provider, error);
    if (problem) throw problem;
    log().error(
      { event: "pricing_failed" },
      `Pricing failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
    throw new PointsError(
      "payment_methods_unavailable",
      "Prices are temporarily unavailable from the billing provider; wait a moment and try again.",
      { retryAfterSeconds: 30, cause: error },
    );
  }
}

/**
 * The seven bundles with the billing provider's price in one currency, smallest first. The
 * dashboard shows exactly what purchasePoints will charge, because both read getPriceTable.
 */
export async function getBundlePrices(services: Services, currency: Currency): Promise<BundlePrice[]> {
  const prices = (await getPriceTable(services))[currency] ?? {};
  return BUNDLES.map((points) => ({ points, amount: prices[points] ?? null }));
}
