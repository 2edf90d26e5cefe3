import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import type { Runtime } from "@/lib/server/runtime";
import type { PointsCommand } from "../commands";
import { type CliIo, printJson } from "../output";
import { CommandRefused } from "./shared";

/** `stripe setup-prices`: the built-in price table, as Stripe prices by lookup key. */
export async function stripeSetupPrices(
  command: Extract<PointsCommand, { kind: "stripe-setup-prices" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  if (!(runtime.provider instanceof StripeBillingProvider)) {
    throw new CommandRefused("stripe setup-prices needs STRIPE_SECRET_KEY (and STRIPE_API_URL for a test server).");
  }
  const { productId, prices } = await setupStripePrices(runtime.provider.stripe, SIMULATED_PRICES);
  if (command.json) {
    printJson(io, {
      product_id: productId,
      prices: prices.map((row) => ({
        points: row.points,
        lookup_key: row.lookupKey,
        price_id: row.priceId,
        status: row.status,
      })),
    });
    return;
  }
  io.stdout(
    [
      `Stripe product ${productId}:`,
      ...prices.map((row) => `  ${row.lookupKey.padEnd(12)} ${row.priceId}  ${row.status}`),
      "",
    ].join("\n"),
  );
}
