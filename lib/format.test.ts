import { describe, expect, it } from "vitest";
import { formatDateTime, formatMoney, formatPoints, formatUtcDateTime, formatUtcDay } from "./format";

describe("formatters, built once and reused", () => {
  it("formats money, Points and times as a formatter built for each call would", () => {
    for (const currency of ["USD", "GBP", "EUR", "USD"]) {
      for (const amount of [0, 1, 1000, 52500, 123456789, -250]) {
        const fresh = new Intl.NumberFormat("en-GB", { style: "currency", currency, currencyDisplay: "narrowSymbol" });
        expect(formatMoney(amount, currency)).toBe(fresh.format(amount / 100));
      }
    }
    expect(formatMoney(4500, "USD")).toBe("$45.00");
    expect(formatMoney(3600, "GBP")).toBe("£36.00");
    expect(formatMoney(4100, "EUR")).toBe("€41.00");
    expect(formatPoints(7500)).toBe("7,500");
    expect(formatPoints(1234567)).toBe("1,234,567");
    expect(formatDateTime(new Date("2026-11-22T12:05:59.999Z"))).toBe("22 Nov 2026, 12:05 UTC");
    // A chosen UTC day, as the rows write their dates.
    expect(formatUtcDay("2026-11-28")).toBe("28 Nov 2026");
    expect(formatUtcDay("2026-01-01")).toBe("1 Jan 2026");
    expect(formatUtcDateTime(new Date("2026-11-22T23:59:00.000+01:00"))).toBe("22 Nov 2026, 22:59");
  });

  it("still refuses a currency Intl does not know, every time", () => {
    expect(() => formatMoney(100, "nope")).toThrow(RangeError);
    expect(() => formatMoney(100, "nope")).toThrow(RangeError);
  });
});
