/**
 * RFC 3339 date-times (§5.6), read exactly and without JS Date, whose two-digit-year mapping
 * (Date.UTC(99, …) is 1999) and millisecond precision make it wrong at the edges.
 *
 * Accepted: `full-date "T" full-time`, T and Z in either case, an offset `Z` or `±hh:mm` (`-00:00`
 * included), any number of fractional-second digits, years 0000–9999 (proleptic Gregorian, year 0
 * being 1 BC), and a leap second (`:60`) where one can be: 23:59:60 in UTC on a month's last day.
 * One extension: minute precision, `2026-11-22T12:00Z`, meaning second 00, since that is what
 * people write. Nothing else: no date alone, no space for the T, no `+hhmm`, no surrounding space.
 */

/** Microseconds since 1970-01-01T00:00:00Z, or why the text is not an RFC 3339 date-time. */
export type Rfc3339Result = { ok: true; micros: bigint } | { ok: false; why: string };

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
/** A `+` sent unencoded in a query string arrives as a space: the commonest way to get one wrong. */
const PLUS_AS_SPACE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)? \d{2}:\d{2}$/;

const MICROS_PER_SECOND = 1_000_000n;
const MICROS_PER_MINUTE = 60n * MICROS_PER_SECOND;
const MICROS_PER_DAY = 86_400n * MICROS_PER_SECOND;

export const RFC3339_EXAMPLE = "2026-11-22T12:00:00Z";
export const RFC3339_OFFSET_EXAMPLE = "2026-11-22T13:00:00+01:00";

const NOT_RFC3339 = `must be an RFC 3339 date-time, such as ${RFC3339_EXAMPLE} or ${RFC3339_OFFSET_EXAMPLE}`;
const NOT_REAL = "is not a real date and time: check the month, day, hour (00-23), minute, second and offset";
const PLUS_SENT_AS_SPACE = `has a space where its offset's + belongs: a + in a query string must be sent as %2B, as in ${RFC3339_OFFSET_EXAMPLE.replace("+", "%2B")}`;

/**
 * Reads an RFC 3339 date-time as the instant it names, in microseconds since the Unix epoch. A
 * fraction finer than a microsecond is rounded up, so that comparing microsecond timestamps with
 * the result (`>=`, `<`) answers as comparing them with the exact time would. A leap second is the
 * instant just after it (the next minute's start), which is how timestamps that have no leap
 * seconds compare with it.
 */
export function parseRfc3339(text: string): Rfc3339Result {
  const match = DATE_TIME.exec(text);
  if (!match) return { ok: false, why: PLUS_AS_SPACE.test(text) ? PLUS_SENT_AS_SPACE : NOT_RFC3339 };
  const [
    ,
    yearText,
    monthText,
    dayText,
    hourText,
    minuteText,
    secondText,
    fraction,
    zulu,
    sign,
    offsetHourText,
    offsetMinuteText,
  ] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText);
  const minute = Number(minuteText);
  const second = secondText === undefined ? 0 : Number(secondText);
  const offsetHour = zulu ? 0 : Number(offsetHourText);
  const offsetMinute = zulu ? 0 : Number(offsetMinuteText);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 60 ||
    offsetHour > 23 ||
    offsetMinute > 59
  ) {
    return { ok: false, why: NOT_REAL };
  }
  const offset = BigInt((sign === "-" ? -1 : 1) * (offsetHour * 60 + offsetMinute)) * MICROS_PER_MINUTE;
  const minuteStart =
    BigInt(daysFromCivil(year, month, day)) * MICROS_PER_DAY + BigInt(hour * 60 + minute) * MICROS_PER_MINUTE - offset;
  if (second === 60) {
    // A leap second ends a UTC day, and only at a month's end; the minute after it starts a month.
    const after = minuteStart + MICROS_PER_MINUTE;
    const startsMonth = after % MICROS_PER_DAY === 0n && civilFromDays(Number(after / MICROS_PER_DAY)).day === 1;
    return startsMonth ? { ok: true, micros: after } : { ok: false, why: NOT_REAL };
  }
  let micros = minuteStart + BigInt(second) * MICROS_PER_SECOND;
  if (fraction !== undefined) {
    micros += BigInt(fraction.slice(0, 6).padEnd(6, "0"));
    if (/[1-9]/.test(fraction.slice(6))) micros += 1n;
  }
  return { ok: true, micros };
}

/**
 * An instant as UTC text that Postgres reads as exactly that timestamptz:
 * `2026-11-22T12:00:00.000000Z` for years 1 to 9999 (RFC 3339 itself), and, beyond them, which an
 * RFC 3339 time with an offset can reach (`0000-01-01T00:00+01:00` is in 2 BC), the year as
 * Postgres writes it: `0002-12-31T23:00:00.000000Z BC`, `10000-01-01T00:30:00.000000Z`.
 */
export function utcText(micros: bigint): string {
  const days = floorDiv(micros, MICROS_PER_DAY);
  const { year, month, day } = civilFromDays(Number(days));
  const ofDay = micros - days * MICROS_PER_DAY;
  const seconds = Number(ofDay / MICROS_PER_SECOND);
  const two = (value: number) => String(value).padStart(2, "0");
  const time = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
  const fraction = String(ofDay % MICROS_PER_SECOND).padStart(6, "0");
  const era = year >= 1 ? "" : " BC";
  const yearText = String(year >= 1 ? year : 1 - year).padStart(4, "0");
  return `${yearText}-${two(month)}-${two(day)}T${time}.${fraction}Z${era}`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? quotient - 1n : quotient;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date, any year (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The proleptic Gregorian date `days` after 1970-01-01 (H. Hinnant's civil_from_days). */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}
