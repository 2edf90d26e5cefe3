/** The fixed bundles and currencies of spec §8. */
export const BUNDLES = [100, 250, 500, 1000, 2500, 5000, 7500] as const;
export type Bundle = (typeof BUNDLES)[number];

export const CURRENCIES = ["USD", "GBP", "EUR"] as const;
export type Currency = (typeof CURRENCIES)[number];

export const REFERENCE_PATTERN = /^[A-Za-z0-9._:-]+$/;
export const REFERENCE_MAX_LENGTH = 100;
/** The start of the references the service derives for auto-recharge's purchases; a client's may not begin with it. */
export const RECHARGE_REFERENCE_PREFIX = "auto-recharge:";

export function isBundle(value: unknown): value is Bundle {
  return typeof value === "number" && (BUNDLES as readonly number[]).includes(value);
}

export function isCurrency(value: unknown): value is Currency {
  return typeof value === "string" && (CURRENCIES as readonly string[]).includes(value);
}

export const TOP_UP_STATUSES = ["pending", "processing", "awaiting_payment", "failed", "paid"] as const;
export type TopUpStatus = (typeof TOP_UP_STATUSES)[number];

export const TOP_UP_SOURCES = ["api", "dashboard", "auto_recharge"] as const;
export type TopUpSource = (typeof TOP_UP_SOURCES)[number];
