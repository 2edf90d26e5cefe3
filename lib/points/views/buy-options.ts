import { type Currency, isCurrency } from "@/lib/catalog";
import type { Organization } from "@/lib/db/schema";
import { fallbackPaymentMethod, listUsablePaymentMethods, type PaymentMethod } from "../cards/payment-methods";
import { exceedsPerTopUpLimit } from "../limits/limits";
import { type BundlePrice, getBundlePrices } from "../purchase/prices";
import { lastPaidPoints } from "../purchase/top-ups";
import type { Services } from "../services";

/** A bundle as the Buy page offers it: its price, and why it cannot be chosen, if it cannot. */
export interface BundleOption extends BundlePrice {
  unavailable: "not_sold" | "over_limit" | null;
}

export interface BuyOptions {
  bundles: BundleOption[];
  /** The usable saved cards, the default first (the list the API offers). */
  methods: PaymentMethod[];
  /** The bundle asked for, if it can be bought. */
  bundle?: BundleOption & { amount: number };
  /** The card asked for if it is usable; with none asked for, the one a purchase would fall back to. */
  method?: PaymentMethod;
  /**
   * The bundle the picker starts on: the one asked for; else the one last bought, if it can be
   * bought now; else the smallest that can. Undefined only when none can.
   */
  preselected?: number;
}

/** The currency the Buy page prices in: the one asked for, else the organisation's saved one, else USD. */
export function buyCurrency(organization: Pick<Organization, "currency">, requested: string | undefined): Currency {
  if (isCurrency(requested)) return requested;
  return isCurrency(organization.currency) ? organization.currency : "USD";
}

/**
 * What the Buy page offers an organisation in one currency, by the rules a purchase is held to:
 * a bundle needs a price and must be within the per-top-up limit (assertWithinLimits), and the
 * card is the one asked for, or the default or only card (resolvePaymentMethod). Throws the
 * PointsError of an unavailable provider, as the purchase would.
 */
export async function getBuyOptions(
  services: Services,
  organization: Pick<Organization, "id" | "billingCustomerId" | "maxPointsPerTopUp">,
  params: { currency: Currency; points?: number; methodId?: string },
): Promise<BuyOptions> {
  const [prices, methods, lastBought] = await Promise.all([
    getBundlePrices(services, params.currency),
    listUsablePaymentMethods(services, organization),
    lastPaidPoints(services.db, organization.id),
  ]);
  const bundles = prices.map(
    (price): BundleOption => ({
      ...price,
      unavailable:
        price.amount === null ? "not_sold" : exceedsPerTopUpLimit(organization, price.points) ? "over_limit" : null,
    }),
  );
  const bundle = bundles.find((option) => option.points === params.points && option.unavailable === null);
  const method = params.methodId
    ? methods.find((candidate) => candidate.id === params.methodId)
    : fallbackPaymentMethod(methods);
  const available = bundles.filter((option) => option.unavailable === null);
  const preselected =
    bundle?.points ??
    available.find((option) => option.points === lastBought)?.points ??
    available.reduce<number | undefined>(
      (smallest, option) => Math.min(smallest ?? option.points, option.points),
      undefined,
    );
  return {
    bundles,
    methods,
    bundle: bundle && bundle.amount !== null ? { ...bundle, amount: bundle.amount } : undefined,
    method,
    preselected,
  };
}
