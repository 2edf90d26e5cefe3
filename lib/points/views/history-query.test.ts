import { describe, expect, it } from "vitest";
import { historyExportName, historyQuery, parseHistoryFilters } from "./history-query";

describe("History's date range, from its URL", () => {
  it("reads UTC days, both included, as the instants the listing filters on", () => {
    expect(parseHistoryFilters({ from: "2026-11-01", to: "2026-11-30" })).toMatchObject({
      from: "2026-11-01",
      to: "2026-11-30",
      createdGte: "2026-11-01T00:00:00.000Z",
      createdLt: "2026-12-01T00:00:00.000Z",
    });
    // One side alone, across a year's end and a leap day.
    expect(parseHistoryFilters({ to: "2026-12-31" })).toMatchObject({ createdLt: "2027-01-01T00:00:00.000Z" });
    expect(parseHistoryFilters({ to: "2028-02-28" })).toMatchObject({ createdLt: "2028-02-29T00:00:00.000Z" });
    expect(parseHistoryFilters({ from: "2026-11-01" }).createdLt).toBeUndefined();
  });

  it("reads a range given backwards the right way round", () => {
    expect(parseHistoryFilters({ from: "2026-11-30", to: "2026-11-01" })).toMatchObject({
      from: "2026-11-01",
      to: "2026-11-30",
    });
  });

  it("ignores what is not a calendar day", () => {
    for (const day of ["", "2026-02-30", "2026-13-01", "26-11-01", "2026-11-01T00:00:00Z", "yesterday"]) {
      const view = parseHistoryFilters({ from: day, to: day });
      expect(view.from, day).toBeUndefined();
      expect(view.createdGte, day).toBeUndefined();
      expect(view.createdLt, day).toBeUndefined();
    }
  });

  it("keeps the dates with Spent chosen: they apply to both kinds", () => {
    expect(parseHistoryFilters({ kind: "spend", from: "2026-11-01", status: "paid" })).toEqual({
      kind: "spend",
      from: "2026-11-01",
      createdGte: "2026-11-01T00:00:00.000Z",
      cursor: undefined,
    });
  });

  it("writes back the query it reads, for the page's links and its export", () => {
    const view = parseHistoryFilters({ status: "paid", from: "2026-11-01", to: "2026-11-30", cursor: "c" });
    expect(historyQuery(view).toString()).toBe("status=paid&from=2026-11-01&to=2026-11-30");
    expect(parseHistoryFilters(Object.fromEntries(historyQuery(view)))).toMatchObject({
      createdGte: view.createdGte,
      createdLt: view.createdLt,
    });
  });
});

describe("History's export file name", () => {
  const now = new Date("2026-11-29T10:00:00Z");
  const name = (query: Record<string, string>) => historyExportName(parseHistoryFilters(query), now);

  it("says each filter once: what it lists, its days (or the day exported), then the filters", () => {
    expect(name({})).toBe("history-2026-11-29.csv");
    expect(name({ kind: "spend" })).toBe("spends-2026-11-29.csv");
    expect(name({ status: "failed" })).toBe("top-ups-2026-11-29-failed.csv");
    expect(name({ from: "2026-11-27", to: "2026-11-28" })).toBe("history-2026-11-27-to-2026-11-28.csv");
    expect(name({ from: "2026-11-28", to: "2026-11-27", status: "paid", source: "api" })).toBe(
      "top-ups-2026-11-27-to-2026-11-28-paid-api.csv",
    );
    expect(name({ from: "2026-11-28", to: "2026-11-28" })).toBe("history-2026-11-28.csv");
    expect(name({ from: "2026-11-27" })).toBe("history-from-2026-11-27.csv");
    expect(name({ to: "2026-11-28", after: "refunded" })).toBe("top-ups-to-2026-11-28-refunded.csv");
  });
});
