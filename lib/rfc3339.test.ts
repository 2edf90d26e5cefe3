import { describe, expect, it } from "vitest";
import { parseRfc3339, utcText } from "./rfc3339";

/** The instant a text names, as UTC text to the microsecond; throws when it is refused. */
function utc(text: string): string {
  const result = parseRfc3339(text);
  if (!result.ok) throw new Error(`${text} was refused: ${result.why}`);
  return utcText(result.micros);
}

function why(text: string): string {
  const result = parseRfc3339(text);
  if (result.ok) throw new Error(`${text} was accepted as ${utcText(result.micros)}`);
  return result.why;
}

describe("RFC 3339 date-times", () => {
  it.each([
    ["2020-01-01T00:00:00Z", "2020-01-01T00:00:00.000000Z"],
    // Minute precision: what people write, seconds 00.
    ["2020-01-01T00:00Z", "2020-01-01T00:00:00.000000Z"],
    ["2026-11-22T12:30+01:00", "2026-11-22T11:30:00.000000Z"],
    // Python's isoformat() of an aware UTC datetime.
    ["2020-01-01T00:00:00+00:00", "2020-01-01T00:00:00.000000Z"],
    ["2020-01-01T00:00:00.123456+00:00", "2020-01-01T00:00:00.123456Z"],
    ["2020-01-01T00:00+00:00", "2020-01-01T00:00:00.000000Z"],
    ["2020-01-01T00:00:00-00:00", "2020-01-01T00:00:00.000000Z"],
    // T and Z in either case.
    ["2020-01-01t00:00:00z", "2020-01-01T00:00:00.000000Z"],
    ["2020-01-01t00:00Z", "2020-01-01T00:00:00.000000Z"],
    ["2020-01-01T00:00:00z", "2020-01-01T00:00:00.000000Z"],
  ])("accepts %s as %s", (text, expected) => {
    expect(utc(text)).toBe(expected);
  });

  it.each([
    ["2020-01-01T01:00:00+01:00", "2020-01-01T00:00:00.000000Z"],
    ["2019-12-31T19:00:00-05:00", "2020-01-01T00:00:00.000000Z"],
    ["2020-01-01T05:30:00+05:30", "2020-01-01T00:00:00.000000Z"],
    ["2020-01-01T00:00:00+23:59", "2019-12-31T00:01:00.000000Z"],
    ["2019-12-31T00:01:00-23:59", "2020-01-01T00:00:00.000000Z"],
    // Across a leap day and a year's end.
    ["2024-03-01T00:30:00+01:00", "2024-02-29T23:30:00.000000Z"],
    ["2023-03-01T00:30:00+01:00", "2023-02-28T23:30:00.000000Z"],
    ["2020-12-31T23:30:00.5-01:00", "2021-01-01T00:30:00.500000Z"],
  ])("converts %s to UTC: %s", (text, expected) => {
    expect(utc(text)).toBe(expected);
  });

  it("the same instant written with any offset is the same instant", () => {
    const texts = [
      "2026-11-22T12:00:00Z",
      "2026-11-22T13:00:00+01:00",
      "2026-11-22T07:00:00-05:00",
      "2026-11-23T01:45:00+13:45",
      "2026-11-22T12:00:00.000000000-00:00",
    ];
    expect(new Set(texts.map(utc))).toEqual(new Set(["2026-11-22T12:00:00.000000Z"]));
  });

  it.each([
    ["2020-01-01T00:00:00.5Z", "2020-01-01T00:00:00.500000Z"],
    ["2020-01-01T00:00:00.000001Z", "2020-01-01T00:00:00.000001Z"],
    ["2020-01-01T00:00:00.1234560000Z", "2020-01-01T00:00:00.123456Z"],
    // Finer than a microsecond: rounded up, so >= and < on microsecond timestamps stay exact.
    ["2020-01-01T00:00:00.1234561Z", "2020-01-01T00:00:00.123457Z"],
    ["2020-01-01T00:00:00.0000000001Z", "2020-01-01T00:00:00.000001Z"],
    ["2020-12-31T23:59:59.9999999Z", "2021-01-01T00:00:00.000000Z"],
  ])("reads the fraction of %s to the microsecond: %s", (text, expected) => {
    expect(utc(text)).toBe(expected);
  });

  it.each([
    // Years 0000-0099 are those years, never 1900-1999 (JS Date's two-digit mapping).
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z"],
    ["0050-06-15T12:00Z", "0050-06-15T12:00:00.000000Z"],
    ["0099-12-31T23:59:59Z", "0099-12-31T23:59:59.000000Z"],
    ["0100-03-01T00:00:00Z", "0100-03-01T00:00:00.000000Z"],
    // Year 0 is 1 BC, a leap year; with an offset, RFC 3339 reaches 2 BC and AD 10000.
    ["0000-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z BC"],
    ["0000-02-29T12:00:00Z", "0001-02-29T12:00:00.000000Z BC"],
    ["0000-12-31T23:59:59.999999Z", "0001-12-31T23:59:59.999999Z BC"],
    ["0000-01-01T00:00:00+01:00", "0002-12-31T23:00:00.000000Z BC"],
    ["9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"],
    ["9999-12-31T23:30:00-01:00", "10000-01-01T00:30:00.000000Z"],
  ])("reads the year of %s as written: %s", (text, expected) => {
    expect(utc(text)).toBe(expected);
  });

  it.each([
    // RFC 3339's own examples of a leap second, and the last one so far.
    ["1990-12-31T23:59:60Z", "1991-01-01T00:00:00.000000Z"],
    ["1990-12-31T15:59:60-08:00", "1991-01-01T00:00:00.000000Z"],
    ["2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00.000000Z"],
    ["2015-06-30T23:59:60Z", "2015-07-01T00:00:00.000000Z"],
  ])("accepts the leap second %s as the instant after it: %s", (text, expected) => {
    expect(utc(text)).toBe(expected);
  });

  it.each(["2020-01-01T12:00:60Z", "1990-12-30T23:59:60Z", "1990-12-31T23:59:60+01:00", "1990-12-31T23:58:60Z"])(
    "refuses a second 60 where no leap second can be: %s",
    (text) => {
      expect(why(text)).toContain("not a real date and time");
    },
  );

  it.each([
    "2020-02-30T00:00:00Z",
    "2021-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "0100-02-29T00:00:00Z",
    "2020-04-31T00:00:00Z",
    "2020-13-01T00:00:00Z",
    "2020-00-10T00:00:00Z",
    "2020-01-00T00:00:00Z",
    "2020-01-32T00:00:00Z",
    "2020-01-01T24:00:00Z",
    "2020-01-01T24:00Z",
    "2020-01-01T23:60:00Z",
    "2020-01-01T23:60Z",
    "2020-01-01T23:59:61Z",
    "2020-01-01T00:00:00+24:00",
    "2020-01-01T00:00:00+01:60",
  ])("refuses %s: not a real date and time", (text) => {
    expect(why(text)).toContain("not a real date and time");
  });

  it.each([
    "",
    "yesterday",
    "2020-01-01",
    "2020-01-01T00Z",
    "2020-01-01T00:00:00",
    "2020-01-01T00:00",
    "2020-01-01 00:00:00Z",
    "2020-01-01T00:00:00+0000",
    "2020-01-01T00:00:00+00",
    "2020-01-01T00:00:00UTC",
    "2020-01-01T00:00:00.Z",
    "2020-01-01T00:00.5Z",
    "2020-01-01T00:00:00,5Z",
    "20200101T000000Z",
    "+002020-01-01T00:00:00Z",
    "-000001-01-01T00:00:00Z",
    "2020-1-01T00:00:00Z",
    "2020-01-01T0:00:00Z",
    " 2020-01-01T00:00:00Z",
    "2020-01-01T00:00:00Z ",
    "2020-01-01T00:00:00ZZ",
    "2020-01-01T00:00:00Z\n",
    "2020-01-01X00:00:00Z",
    "１９９０-01-01T00:00:00Z",
    "1577836800",
  ])("refuses %j: not RFC 3339", (text) => {
    expect(why(text)).toMatch(
      /^must be an RFC 3339 date-time, such as 2026-11-22T12:00:00Z or 2026-11-22T13:00:00\+01:00/,
    );
  });

  it("says to send + as %2B when a query string turned it into a space", () => {
    expect(why("2020-01-01T00:00:00 01:00")).toContain("%2B");
    expect(why("2020-01-01T00:00 05:30")).toContain("%2B");
  });

  it("agrees with JS Date wherever Date is right (years 1970-2200, to the millisecond)", () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 2000; i += 1) {
      const ms = Math.floor(next() * Date.UTC(2200, 0, 1));
      const result = parseRfc3339(new Date(ms).toISOString());
      expect(result).toEqual({ ok: true, micros: BigInt(ms) * 1000n });
      if (result.ok) expect(utcText(result.micros)).toBe(new Date(ms).toISOString().replace("Z", "000Z"));
    }
  });

  it("writes instants before 1970 too", () => {
    expect(utcText(-1n)).toBe("1969-12-31T23:59:59.999999Z");
    expect(utcText(0n)).toBe("1970-01-01T00:00:00.000000Z");
  });
});
