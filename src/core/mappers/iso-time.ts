/**
 * Provider timestamps read as Unix milliseconds. Claude Code and Codex stamp every line with an ISO 8601
 * UTC time (`2025-10-02T09:00:00.200Z`), and `Date.parse` of it cost a few percent of mapping a line; the
 * common forms are read here by hand, everything else by `Date.parse`.
 *
 * @module
 */

/**
 * `Date.parse(text)`, read by hand for `YYYY-MM-DDTHH:MM:SSZ` and `YYYY-MM-DDTHH:MM:SS.sssZ` with every
 * field in range (a test holds the two to the same answers); any other text goes to `Date.parse`.
 *
 * @example
 * ```ts
 * parseTimestamp('2025-10-02T09:00:00.200Z'); // 1759395600200
 * ```
 */
export function parseTimestamp(text: string): number {
  const length = text.length;
  if (
    (length !== 24 && length !== 20) ||
    text.charCodeAt(length - 1) !== 0x5a /* Z */ ||
    text.charCodeAt(4) !== 0x2d /* - */ ||
    text.charCodeAt(7) !== 0x2d ||
    text.charCodeAt(10) !== 0x54 /* T */ ||
    text.charCodeAt(13) !== 0x3a /* : */ ||
    text.charCodeAt(16) !== 0x3a ||
    (length === 24 && text.charCodeAt(19) !== 0x2e) /* . */
  ) {
    return Date.parse(text);
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const milli = length === 24 ? digits(text, 20, 3) : 0;
  if (
    year < 0 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59 ||
    milli < 0
  ) {
    return Date.parse(text);
  }
  return (
    daysFromCivil(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + milli
  );
}

/** The decimal number of `count` digits at `at`; -1 when one of them is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/** Days from 1970-01-01 to the proleptic Gregorian date (H. Hinnant's `days_from_civil`). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
