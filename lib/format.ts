/** Money is stored in minor units; all three currencies have two decimals. */
export function formatMoney(amountMinor: number, currency: string): string {
  // Narrow symbols ($, £, €): the currency code is shown beside amounts where it could be ambiguous.
  return new Intl.NumberFormat("en-GB", { style: "currency", currency, currencyDisplay: "narrowSymbol" }).format(
    amountMinor / 100,
  );
}

export function formatPoints(points: number): string {
  return new Intl.NumberFormat("en-GB").format(points);
}

/** Times are shown in UTC, labelled, so every admin reads the same time. */
export function formatDateTime(date: Date): string {
  return `${new Intl.DateTimeFormat("en-GB", {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "UTC",
  }).format(date)} UTC`;
}
