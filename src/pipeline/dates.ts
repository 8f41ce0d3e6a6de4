// Calendar arithmetic for the date operators, in UTC or any time zone: IANA names through
// Node's Intl (the same tz database mongod embeds, as far as versions agree) and fixed offsets
// ("+05:30", "-0800", "+03"). A time zone turns an instant into local wall-clock fields and
// back; everything else (ISO weeks, formatting, parsing, adding, diffing, truncating) works on
// those fields, as mongod's TimeZone class does on top of timelib.

import { ErrorCode, fail } from '../errors.js';

export interface TimeZone {
  readonly name: string;
  /** Offset from UTC in milliseconds at the given instant. */
  offsetMs(utcMs: number): number;
}

const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

export const UTC: TimeZone = { name: 'UTC', offsetMs: () => 0 };

function fixedOffset(name: string, minutes: number): TimeZone {
  const ms = minutes * MS_PER_MINUTE;
  return { name, offsetMs: () => ms };
}

const zoneCache = new Map<string, TimeZone>();

function ianaZone(name: string): TimeZone | undefined {
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
  } catch {
    return undefined;
  }
  return {
    name,
    offsetMs(utcMs: number): number {
      // Wall time at the instant (whole seconds), read back as if it were UTC.
      const base = Math.floor(utcMs / 1000) * 1000;
      const parts = fmt.formatToParts(new Date(base));
      const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value ?? '0');
      let year = get('year');
      if (parts.find((p) => p.type === 'era')?.value === 'BC') year = 1 - year;
      const wall = Date.UTC(
        0,
        get('month') - 1,
        get('day'),
        get('hour'),
        get('minute'),
        get('second'),
      );
      const d = new Date(wall);
      d.setUTCFullYear(year);
      return d.getTime() - base;
    },
  };
}

/** mongod's TimeZoneDatabase::getTimeZone: 40485 for an unknown identifier. */
export function getTimeZone(id: string): TimeZone {
  const cached = zoneCache.get(id);
  if (cached !== undefined) return cached;
  let tz: TimeZone | undefined;
  const m = /^([+-])(\d{2})(?::?(\d{2}))?$/.exec(id);
  if (m !== null) {
    const minutes = Number(m[2]) * 60 + Number(m[3] ?? '0');
    tz = fixedOffset(id, m[1] === '-' ? -minutes : minutes);
  } else if (id === 'UTC' || id === 'GMT' || id === 'Z') {
    tz = UTC;
  } else if (/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(id)) {
    tz = ianaZone(id);
  }
  if (tz === undefined) fail(ErrorCode.Location40485, `unrecognized time zone identifier: "${id}"`);
  if (zoneCache.size < 1000) zoneCache.set(id, tz);
  return tz;
}

// ---- local fields ----------------------------------------------------------------------------

export interface DateParts {
  year: number;
  month: number; // 1..12
  day: number; // 1..31
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** Wall-clock fields of an instant in a zone. */
export function partsOf(ms: number, tz: TimeZone): DateParts {
  const local = new Date(ms + tz.offsetMs(ms));
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    millisecond: local.getUTCMilliseconds(),
  };
}

/** Local "wall" milliseconds: the instant shifted by the zone's offset. */
export function localMs(ms: number, tz: TimeZone): number {
  return ms + tz.offsetMs(ms);
}

/** The instant whose wall-clock time in `tz` is `wall` (wall time expressed as UTC ms). */
export function fromLocalMs(wall: number, tz: TimeZone): number {
  // Two rounds settle the offset except inside a DST gap, where the later offset wins.
  let guess = wall - tz.offsetMs(wall);
  guess = wall - tz.offsetMs(guess);
  return guess;
}

/** UTC ms of a wall time given by possibly out-of-range fields (normalised like timelib). */
export function wallFromParts(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number {
  const d = new Date(Date.UTC(2000, 0, 1, 0, 0, 0, 0));
  d.setUTCFullYear(year, month - 1, 1);
  d.setUTCHours(0, 0, 0, 0);
  return (
    d.getTime() +
    (day - 1) * MS_PER_DAY +
    hour * MS_PER_HOUR +
    minute * MS_PER_MINUTE +
    second * 1000 +
    ms
  );
}

/** Day of week of a wall time, 1 = Sunday … 7 = Saturday (mongod's $dayOfWeek). */
export function dayOfWeek(wall: number): number {
  return new Date(wall).getUTCDay() + 1;
}

/** ISO day of week, 1 = Monday … 7 = Sunday. */
export function isoDayOfWeek(wall: number): number {
  const d = new Date(wall).getUTCDay();
  return d === 0 ? 7 : d;
}

export function dayOfYear(wall: number): number {
  const d = new Date(wall);
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  const startOfDay = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const fix = new Date(start);
  fix.setUTCFullYear(d.getUTCFullYear());
  const f2 = new Date(startOfDay);
  f2.setUTCFullYear(d.getUTCFullYear());
  return Math.round((f2.getTime() - fix.getTime()) / MS_PER_DAY) + 1;
}

/** %U: week of the year (0..53), weeks starting on Sunday; days before the first Sunday are week 0. */
export function weekOfYear(wall: number): number {
  const doy = dayOfYear(wall) - 1;
  const dow = dayOfWeek(wall) - 1;
  return Math.floor((doy - dow + 7) / 7);
}

/** ISO 8601 week-numbering year and week. */
export function isoWeekAndYear(wall: number): { year: number; week: number } {
  const d = new Date(wall);
  const dow = isoDayOfWeek(wall);
  // The Thursday of this week decides the year.
  const thursday = new Date(Date.UTC(2000, 0, 1));
  thursday.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + (4 - dow));
  const year = thursday.getUTCFullYear();
  const jan1 = new Date(Date.UTC(2000, 0, 1));
  jan1.setUTCFullYear(year, 0, 1);
  const week = Math.floor(Math.round((thursday.getTime() - jan1.getTime()) / MS_PER_DAY) / 7) + 1;
  return { year, week };
}

/** The wall time of an ISO week date (isoWeekYear, isoWeek, isoDayOfWeek), normalised. */
export function wallFromIsoParts(
  isoYear: number,
  isoWeek: number,
  isoDow: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number {
  // Week 1 contains January 4th.
  const jan4 = wallFromParts(isoYear, 1, 4, 0, 0, 0, 0);
  const mondayWeek1 = jan4 - (isoDayOfWeek(jan4) - 1) * MS_PER_DAY;
  return (
    mondayWeek1 +
    ((isoWeek - 1) * 7 + (isoDow - 1)) * MS_PER_DAY +
    hour * MS_PER_HOUR +
    minute * MS_PER_MINUTE +
    second * 1000 +
    ms
  );
}

// ---- formatting ------------------------------------------------------------------------------

export const ISO_FORMAT = '%Y-%m-%dT%H:%M:%S.%LZ';

function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? `-${s}` : s;
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** mongod's TimeZone::validateToStringFormat (18535, 18536). */
export function validateFormat(format: string): void {
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    if (i + 1 >= format.length)
      fail(ErrorCode.Location18535, "Unmatched '%' at end of format string");
    const c = format[i + 1] as string;
    if (!'bBdGHjLmMSwuUVYzZ%'.includes(c))
      fail(ErrorCode.Location18536, `Invalid format character '%${c}' in format string`);
    i++;
  }
}

function offsetString(offsetMs: number, colon: boolean): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const total = Math.abs(Math.round(offsetMs / MS_PER_MINUTE));
  return `${sign}${pad(Math.floor(total / 60), 2)}${colon ? ':' : ''}${pad(total % 60, 2)}`;
}

/** Formats an instant (mongod's TimeZone::formatDate). The format must have been validated. */
export function formatDate(format: string, ms: number, tz: TimeZone): string {
  const offset = tz.offsetMs(ms);
  const wall = ms + offset;
  const p = partsOf(ms, tz);
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const ch = format[i] as string;
    if (ch !== '%') {
      out += ch;
      continue;
    }
    const c = format[++i];
    switch (c) {
      case 'Y':
        if (p.year < 0 || p.year > 9999)
          fail(
            ErrorCode.Location18537,
            `Could not convert date to string: date component was outside the supported range of 0-9999: ${p.year}`,
          );
        out += pad(p.year, 4);
        break;
      case 'm':
        out += pad(p.month, 2);
        break;
      case 'b': // 7.0: English month names in title case
        out += (MONTH_NAMES[p.month - 1] ?? '').slice(0, 3);
        break;
      case 'B':
        out += MONTH_NAMES[p.month - 1] ?? '';
        break;
      case 'd':
        out += pad(p.day, 2);
        break;
      case 'H':
        out += pad(p.hour, 2);
        break;
      case 'M':
        out += pad(p.minute, 2);
        break;
      case 'S':
        out += pad(p.second, 2);
        break;
      case 'L':
        out += pad(p.millisecond, 3);
        break;
      case 'j':
        out += pad(dayOfYear(wall), 3);
        break;
      case 'w':
        out += String(dayOfWeek(wall));
        break;
      case 'u':
        out += String(isoDayOfWeek(wall));
        break;
      case 'U':
        out += pad(weekOfYear(wall), 2);
        break;
      case 'V':
        out += pad(isoWeekAndYear(wall).week, 2);
        break;
      case 'G': {
        const y = isoWeekAndYear(wall).year;
        if (y < 0 || y > 9999)
          fail(
            ErrorCode.Location18537,
            `Could not convert date to string: date component was outside the supported range of 0-9999: ${y}`,
          );
        out += pad(y, 4);
        break;
      }
      case 'z':
        out += offsetString(offset, false);
        break;
      case 'Z': {
        const minutes = Math.round(offset / MS_PER_MINUTE);
        out += `${minutes < 0 ? '-' : '+'}${Math.abs(minutes)}`;
        break;
      }
      case '%':
        out += '%';
        break;
      default:
        break;
    }
  }
  return out;
}

// ---- parsing ---------------------------------------------------------------------------------

function conversionFailure(s: string, reason: string): never {
  fail(ErrorCode.ConversionFailure, `Error parsing date string '${s}'; ${reason}`);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

interface ParsedDate {
  parts: DateParts;
  /** Offset or zone named in the string, if any. */
  zone?: TimeZone;
}

/**
 * Parses a date string without a format: ISO 8601 forms (date, date-time with 'T' or a space,
 * fractional seconds, Z / ±hh[:mm] / a zone name) and "Month day year" forms; mongod accepts
 * more through timelib's free-form parser.
 */
function parseFree(s: string): ParsedDate {
  const iso =
    /^\s*(-?\d{4,})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?|[A-Za-z_]+\/[A-Za-z_/+-]+)?\s*$/i.exec(
      s,
    );
  if (iso !== null) {
    const frac = iso[7] ?? '';
    const parts: DateParts = {
      year: Number(iso[1]),
      month: Number(iso[2]),
      day: Number(iso[3]),
      hour: Number(iso[4] ?? '0'),
      minute: Number(iso[5] ?? '0'),
      second: Number(iso[6] ?? '0'),
      millisecond: frac === '' ? 0 : Math.floor(Number(`0.${frac}`) * 1000 + 1e-9),
    };
    checkParts(s, parts);
    const zoneText = iso[8];
    return zoneText === undefined ? { parts } : { parts, zone: zoneOf(s, zoneText) };
  }
  const ymd = /^\s*(\d{4})\/(\d{1,2})\/(\d{1,2})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*$/.exec(s);
  if (ymd !== null) {
    const parts: DateParts = {
      year: Number(ymd[1]),
      month: Number(ymd[2]),
      day: Number(ymd[3]),
      hour: Number(ymd[4] ?? '0'),
      minute: Number(ymd[5] ?? '0'),
      second: Number(ymd[6] ?? '0'),
      millisecond: 0,
    };
    checkParts(s, parts);
    return { parts };
  }
  const named =
    /^\s*(?:[A-Za-z]+,?\s+)?([A-Za-z]{3,})\.?\s+(\d{1,2}),?\s+(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*$/.exec(
      s,
    );
  if (named !== null) {
    const month = MONTHS.indexOf((named[1] as string).slice(0, 3).toLowerCase()) + 1;
    if (month === 0) conversionFailure(s, 'The timezone could not be found in the database');
    const parts: DateParts = {
      year: Number(named[3]),
      month,
      day: Number(named[2]),
      hour: Number(named[4] ?? '0'),
      minute: Number(named[5] ?? '0'),
      second: Number(named[6] ?? '0'),
      millisecond: 0,
    };
    checkParts(s, parts);
    return { parts };
  }
  conversionFailure(s, 'Unexpected character');
}

function zoneOf(s: string, text: string): TimeZone {
  if (/^(z|utc|gmt)$/i.test(text)) return UTC;
  try {
    return getTimeZone(text);
  } catch {
    conversionFailure(s, 'The timezone could not be found in the database');
  }
}

function checkParts(s: string, p: DateParts): void {
  if (p.month < 1 || p.month > 12) conversionFailure(s, 'Unexpected data found.');
  const days = new Date(Date.UTC(2000, p.month, 0)).getUTCDate();
  const leapFix = p.month === 2 && !isLeap(p.year) ? 28 : days;
  if (p.day < 1 || p.day > leapFix) conversionFailure(s, 'The parsed date was invalid');
  if (p.hour > 23 || p.minute > 59 || p.second > 59) conversionFailure(s, 'Unexpected data found.');
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** mongod's TimeZone::validateFromStringFormat. */
export function validateParseFormat(format: string): void {
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    if (i + 1 >= format.length)
      fail(ErrorCode.Location18535, "Unmatched '%' at end of format string");
    const c = format[i + 1] as string;
    if (!'dGHjLmMSuVYzZ%'.includes(c))
      fail(ErrorCode.Location18536, `Invalid format character '%${c}' in format string`);
    i++;
  }
}

/** Parses with an explicit format (%Y %m %d %H %M %S %L %j %z %Z %G %V %u). */
function parseWithFormat(s: string, format: string): ParsedDate {
  const p: DateParts = {
    year: 1970,
    month: 1,
    day: 1,
    hour: 0,
    minute: 0,
    second: 0,
    millisecond: 0,
  };
  let zone: TimeZone | undefined;
  let iso: { year?: number; week?: number; dow?: number } | undefined;
  let doy: number | undefined;
  let pos = 0;
  const num = (min: number, max: number): number => {
    const m = new RegExp(`^[+-]?\\d{${min},${max}}`).exec(s.slice(pos));
    if (m === null) conversionFailure(s, 'Unexpected data found.');
    pos += m[0].length;
    return Number(m[0]);
  };
  for (let i = 0; i < format.length; i++) {
    const ch = format[i] as string;
    if (ch !== '%') {
      if (s[pos] !== ch) conversionFailure(s, 'The format separator does not match');
      pos++;
      continue;
    }
    const c = format[++i];
    switch (c) {
      case 'Y':
        p.year = num(4, 4);
        break;
      case 'm':
        p.month = num(1, 2);
        break;
      case 'd':
        p.day = num(1, 2);
        break;
      case 'H':
        p.hour = num(1, 2);
        break;
      case 'M':
        p.minute = num(1, 2);
        break;
      case 'S':
        p.second = num(1, 2);
        break;
      case 'L': {
        const m = /^\d{1,9}/.exec(s.slice(pos));
        if (m === null) conversionFailure(s, 'Unexpected data found.');
        pos += m[0].length;
        p.millisecond = Math.floor(Number(`0.${m[0]}`) * 1000 + 1e-9);
        break;
      }
      case 'j':
        doy = num(1, 3);
        break;
      case 'G':
        iso = { ...iso, year: num(4, 4) };
        break;
      case 'V':
        iso = { ...iso, week: num(1, 2) };
        break;
      case 'u':
        iso = { ...iso, dow: num(1, 1) };
        break;
      case 'z': {
        const m = /^([+-])(\d{2}):?(\d{2})/.exec(s.slice(pos));
        if (m === null) conversionFailure(s, 'Unexpected data found.');
        pos += m[0].length;
        zone = getTimeZone(`${m[1]}${m[2]}:${m[3]}`);
        break;
      }
      case 'Z': {
        const m = /^([+-])(\d+)/.exec(s.slice(pos));
        if (m === null) conversionFailure(s, 'Unexpected data found.');
        pos += m[0].length;
        const minutes = Number(m[2]);
        zone = getTimeZone(
          `${m[1]}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`,
        );
        break;
      }
      case '%':
        if (s[pos] !== '%') conversionFailure(s, 'The format separator does not match');
        pos++;
        break;
      default:
        break;
    }
  }
  if (pos !== s.length) conversionFailure(s, 'Trailing data');
  if (iso !== undefined) {
    const wall = wallFromIsoParts(
      iso.year ?? 1970,
      iso.week ?? 1,
      iso.dow ?? 1,
      p.hour,
      p.minute,
      p.second,
      p.millisecond,
    );
    const q = partsOf(wall, UTC);
    return zone === undefined ? { parts: q } : { parts: q, zone };
  }
  if (doy !== undefined) {
    const q = partsOf(
      wallFromParts(p.year, 1, doy, p.hour, p.minute, p.second, p.millisecond),
      UTC,
    );
    return zone === undefined ? { parts: q } : { parts: q, zone };
  }
  checkParts(s, p);
  return zone === undefined ? { parts: p } : { parts: p, zone };
}

/**
 * mongod's TimeZoneDatabase::fromString: the instant a date string names. A zone in the string
 * may not be combined with a timezone argument (40553, raised as a ConversionFailure so onError
 * applies, as in mongod).
 */
export function parseDateString(s: string, tz: TimeZone | undefined, format?: string): number {
  const parsed = format === undefined ? parseFree(s) : parseWithFormat(s, format);
  if (parsed.zone !== undefined && tz !== undefined && tz !== UTC) {
    fail(
      ErrorCode.ConversionFailure,
      `you cannot pass in a date/time string with time zone information ('${s}') together with a timezone argument`,
    );
  }
  const zone = parsed.zone ?? tz ?? UTC;
  const p = parsed.parts;
  return fromLocalMs(
    wallFromParts(p.year, p.month, p.day, p.hour, p.minute, p.second, p.millisecond),
    zone,
  );
}

// ---- units: $dateAdd, $dateDiff, $dateTrunc -----------------------------------------------------

export const TIME_UNITS = [
  'year',
  'quarter',
  'month',
  'week',
  'day',
  'hour',
  'minute',
  'second',
  'millisecond',
] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];
export const DAYS_OF_WEEK = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;

export function isTimeUnit(s: string): s is TimeUnit {
  return (TIME_UNITS as readonly string[]).includes(s);
}

/** 'mon'/'monday' (any case) → ISO day 1..7. */
export function parseDayOfWeek(s: string): number | undefined {
  const l = s.toLowerCase();
  const i = DAYS_OF_WEEK.findIndex((d) => d === l || d.slice(0, 3) === l);
  return i < 0 ? undefined : i + 1;
}

const FIXED_UNIT_MS: Partial<Record<TimeUnit, number>> = {
  hour: MS_PER_HOUR,
  minute: MS_PER_MINUTE,
  second: 1000,
  millisecond: 1,
};

/** $dateAdd: calendar units move the wall clock (month ends clamp), fixed units move the instant. */
export function dateAdd(ms: number, unit: TimeUnit, amount: number, tz: TimeZone): number {
  const fixed = FIXED_UNIT_MS[unit];
  if (fixed !== undefined) return ms + amount * fixed;
  const p = partsOf(ms, tz);
  if (unit === 'day' || unit === 'week') {
    const days = unit === 'week' ? amount * 7 : amount;
    return fromLocalMs(
      wallFromParts(p.year, p.month, p.day + days, p.hour, p.minute, p.second, p.millisecond),
      tz,
    );
  }
  const months = unit === 'year' ? amount * 12 : unit === 'quarter' ? amount * 3 : amount;
  const total = p.year * 12 + (p.month - 1) + months;
  const year = Math.floor(total / 12);
  const month = (((total % 12) + 12) % 12) + 1;
  const last = new Date(Date.UTC(2000, month, 0));
  last.setUTCFullYear(year, month, 0);
  const day = Math.min(p.day, last.getUTCDate());
  return fromLocalMs(
    wallFromParts(year, month, day, p.hour, p.minute, p.second, p.millisecond),
    tz,
  );
}

function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

/** $dateDiff: the number of unit boundaries crossed between two instants, in the zone's wall time. */
export function dateDiff(
  start: number,
  end: number,
  unit: TimeUnit,
  tz: TimeZone,
  startOfWeek: number,
): number {
  const fixed = FIXED_UNIT_MS[unit];
  if (fixed !== undefined && unit !== 'hour') return floorDiv(end, fixed) - floorDiv(start, fixed);
  const ws = localMs(start, tz);
  const we = localMs(end, tz);
  if (unit === 'hour') return floorDiv(we, MS_PER_HOUR) - floorDiv(ws, MS_PER_HOUR);
  const ps = partsOf(ws, UTC);
  const pe = partsOf(we, UTC);
  switch (unit) {
    case 'year':
      return pe.year - ps.year;
    case 'quarter':
      return (
        pe.year * 4 +
        Math.floor((pe.month - 1) / 3) -
        (ps.year * 4 + Math.floor((ps.month - 1) / 3))
      );
    case 'month':
      return pe.year * 12 + pe.month - (ps.year * 12 + ps.month);
    case 'day':
      return floorDiv(we, MS_PER_DAY) - floorDiv(ws, MS_PER_DAY);
    default: {
      // Weeks: days since a reference day that starts a week, divided by 7.
      const shift = (startOfWeek - 1) * MS_PER_DAY; // ISO Monday 1970-01-05 is a Monday
      const ref = Date.UTC(1970, 0, 5);
      return (
        floorDiv(floorDiv(we - ref - shift, MS_PER_DAY), 7) -
        floorDiv(floorDiv(ws - ref - shift, MS_PER_DAY), 7)
      );
    }
  }
}

/**
 * $dateTrunc: the start of the bin of `binSize` units containing the instant; bins count from
 * 2000-01-01T00:00 in the zone (for weeks, from the first `startOfWeek` day on or after it).
 */
export function dateTrunc(
  ms: number,
  unit: TimeUnit,
  binSize: number,
  tz: TimeZone,
  startOfWeek: number,
): number {
  const fixed = FIXED_UNIT_MS[unit];
  if (fixed !== undefined && unit !== 'hour') {
    const ref = Date.UTC(2000, 0, 1);
    const size = fixed * binSize;
    return ref + floorDiv(ms - ref, size) * size;
  }
  const wall = localMs(ms, tz);
  const refWall = Date.UTC(2000, 0, 1);
  if (unit === 'hour') {
    const size = MS_PER_HOUR * binSize;
    return fromLocalMs(refWall + floorDiv(wall - refWall, size) * size, tz);
  }
  if (unit === 'day') {
    const size = MS_PER_DAY * binSize;
    return fromLocalMs(refWall + floorDiv(wall - refWall, size) * size, tz);
  }
  if (unit === 'week') {
    // 2000-01-01 was a Saturday (ISO 6): the first startOfWeek day on or after it.
    const refWeek = refWall + ((startOfWeek - 6 + 7) % 7) * MS_PER_DAY;
    const size = 7 * MS_PER_DAY * binSize;
    return fromLocalMs(refWeek + floorDiv(wall - refWeek, size) * size, tz);
  }
  const p = partsOf(wall, UTC);
  const unitMonths = unit === 'year' ? 12 : unit === 'quarter' ? 3 : 1;
  const months = (p.year - 2000) * 12 + (p.month - 1);
  const size = unitMonths * binSize;
  const binStart = floorDiv(months, size) * size;
  const year = 2000 + Math.floor(binStart / 12);
  const month = (((binStart % 12) + 12) % 12) + 1;
  return fromLocalMs(wallFromParts(year, month, 1, 0, 0, 0, 0), tz);
}
