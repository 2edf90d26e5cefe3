import type { PriceTable } from "./provider";

/** Prices per bundle in minor units: a volume discount, the same shape in each currency. */
export const SIMULATED_PRICES: PriceTable = {
  USD: { 100: 1000, 250: 2400, 500: 4500, 1000: 8500, 2500: 20000, 5000: 37500, 7500: 52500 },
  GBP: { 100: 800, 250: 1900, 500: 3600, 1000: 6800, 2500: 16000, 5000: 30000, 7500: 42000 },
  EUR: { 100: 900, 250: 2200, 500: 4100, 1000: 7800, 2500: 18400, 5000: 34500, 7500: 48300 },
};
