import { BUNDLES, type Bundle, type Currency } from "./catalog";
import { PointsError } from "./errors";
import type { Services } from "./services";

export interface BundlePrice {
  points: Bundle;
  /** Minor units as the billing provider prices it, or null when it has no price in this currency. */
  amount: number | null;
}

/**
 * The seven bundles with the billing provider's price in one currency, smallest first. The
 * dashboard shows exactly what purchasePoints will charge, because both read the same provider.
 */
export async function getBundlePrices(services: Services, currency: Currency): Promise<BundlePrice[]> {
  let table: Awaited<ReturnType<Services["provider"]["getPrices"]>>;
  try {
    table = await services.provider.getPrices();
  } catch (error) {
    console.error("Pricing failed:", error instanceof Error ? `${error.name}: ${error.message}` : error);
    // The same code a purchase answers when it cannot be priced: the caller can only wait and retry.
    throw new PointsError(
      "payment_methods_unavailable",
      "Prices are temporarily unavailable from the billing provider; wait a moment and try again.",
      { retryAfterSeconds: 30 },
    );
  }
  const prices = table[currency] ?? {};
  return BUNDLES.map((points) => ({ points, amount: prices[points] ?? null }));
}
