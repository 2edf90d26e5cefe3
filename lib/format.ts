// Intl formatters are slow to build (50-150 µs each) and cheap to reuse: History formats a few
// values per row, so each one is built once per currency and kept.
const moneyFormats = new Map<string, Intl.NumberFormat>();
const pointsFormat = new Intl.NumberFormat("en-GB");
const dateTimeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
const dayFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: "UTC" });

/** Money is stored in minor units; all three currencies have two decimals. */
export function formatMoney(amountMinor: number, currency: string): string {
  let format = moneyFormats.get(currency);
  if (!format) {
    // Narrow symbols ($, £, €): the currency code is shown beside amounts where it could be ambiguous.
    // Built before it is kept, so a currency Intl refuses throws here every time, as it did.
    format = new Intl.NumberFormat("en-GB", { style: "currency", currency, currencyDisplay: "narrowSymbol" });
    moneyFormats.set(currency, format);
  }
  return format.format(amountMinor / 100);
}

export function formatPoints(points: number): string {
  return pointsFormat.format(points);
}

/** Times are shown in UTC, labelled, so every admin reads the same time. */
export function formatDateTime(date: Date): string {
  return `${formatUtcDateTime(date)} UTC`;
}

/** A UTC calendar day (YYYY-MM-DD) as the rows write their dates: "28 Nov 2026". */
export function formatUtcDay(day: string): string {
  return dayFormat.format(new Date(`${day}T00:00:00Z`));
}

/** When Points expire, in the words every page uses: the time, or that they never do. */
export function expiryText(expiresAt: Date | null): string {
  return expiresAt ? `These Points expire on ${formatDateTime(expiresAt)}` : "These Points never expire";
}

/** The same time without its label, for a place that says UTC once (a column's header). */
export function formatUtcDateTime(date: Date): string {
  return dateTimeFormat.format(date);
}

/**
 * RFC 4180 quoting, plus the OWASP guard against formula injection: a text cell that a
 * spreadsheet would run as a formula (a reference may start with "-") gets a leading apostrophe.
 */
export function csvText(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
