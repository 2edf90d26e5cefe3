import type Stripe from "stripe";
import type { PriceTable } from "@/lib/billing/provider";
import { BUNDLES, CURRENCIES } from "@/lib/catalog";
import { priceLookupKey } from "./provider";

export interface PriceSetupRow {
  points: number;
  lookupKey: string;
  priceId: string;
  /** created: there was none; replaced: the amounts changed (Stripe prices are immutable); unchanged. */
  status: "created" | "replaced" | "unchanged";
}

/** Stripe keeps one currency as the Price's own and the others as currency_options. */
const BASE_CURRENCY = "USD";

/**
 * Makes Stripe's prices match a price table, idempotently: one Product, and one active one-time
 * Price per bundle with lookup key `points_<N>`, its amount in USD and `currency_options` for GBP
 * and EUR. A Price whose amounts already match is left alone; one that differs is replaced by a
 * new Price that takes over its lookup key (Stripe's prices cannot change amount), and the old
 * one is deactivated. Running it twice changes nothing the second time.
 */
export async function setupStripePrices(
  stripe: Stripe,
  table: PriceTable,
): Promise<{ productId: string; prices: PriceSetupRow[] }> {
  for (const points of BUNDLES) {
    for (const currency of CURRENCIES) {
      const amount = table[currency][points];
      if (!Number.isInteger(amount) || (amount ?? 0) <= 0) {
        throw new Error(`The price table has no positive whole amount for ${points} Points in ${currency}.`);
      }
    }
  }
  const existing = await stripe.prices.list({
    lookup_keys: BUNDLES.map(priceLookupKey),
    active: true,
    limit: 100,
    expand: ["data.currency_options"],
  });
  const productOf = (price: Stripe.Price) => (typeof price.product === "string" ? price.product : price.product.id);
  const productId =
    existing.data[0] !== undefined
      ? productOf(existing.data[0])
      : (await stripe.products.create({ name: "Points", metadata: { points_product: "true" } })).id;

  const prices: PriceSetupRow[] = [];
  for (const points of BUNDLES) {
    const lookupKey = priceLookupKey(points);
    const current = existing.data.find((price) => price.lookup_key === lookupKey);
    if (current && matches(current, table, points)) {
      prices.push({ points, lookupKey, priceId: current.id, status: "unchanged" });
      continue;
    }
    const currencyOptions: Record<string, { unit_amount: number }> = {};
    for (const currency of CURRENCIES) {
      if (currency !== BASE_CURRENCY)
        currencyOptions[currency.toLowerCase()] = { unit_amount: table[currency][points] ?? 0 };
    }
    const created = await stripe.prices.create({
      product: productId,
      currency: BASE_CURRENCY.toLowerCase(),
      unit_amount: table[BASE_CURRENCY][points] ?? 0,
      currency_options: currencyOptions,
      lookup_key: lookupKey,
      transfer_lookup_key: true,
      metadata: { points: String(points) },
      nickname: `${points} Points`,
    });
    if (current) await stripe.prices.update(current.id, { active: false });
    prices.push({ points, lookupKey, priceId: created.id, status: current ? "replaced" : "created" });
  }
  return { productId, prices };
}

function matches(price: Stripe.Price, table: PriceTable, points: number): boolean {
  return CURRENCIES.every((currency) => {
    const wire = currency.toLowerCase();
    const amount = price.currency_options?.[wire]?.unit_amount ?? (price.currency === wire ? price.unit_amount : null);
    return price.type === "one_time" && amount === table[currency][points as keyof PriceTable[typeof currency]];
  });
}
