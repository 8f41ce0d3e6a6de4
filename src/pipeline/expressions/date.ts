// Date operators: $year $month $dayOfMonth $hour $minute $second $millisecond $dayOfWeek
// $dayOfYear $week $isoWeek $isoWeekYear $isoDayOfWeek (each with an optional timezone),
// $dateToString $dateFromString $dateToParts $dateFromParts $dateAdd $dateSubtract $dateDiff
// $dateTrunc. Calendar work is in ../dates.ts.

import { Int32, Long } from 'bson';
import { formatBson } from '../../bson/format.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { CommandError, ErrorCode, fail } from '../../errors.js';
import * as dates from '../dates.js';
import type { TimeZone, TimeUnit } from '../dates.js';
import {
  coercibleToDate,
  formatValue,
  integralValue,
  isIntegral64,
  isNullish,
  toDate,
  typeName,
} from '../values.js';
import { operatorExpression } from './operator.js';
import type { Expression, Frame, OperatorDefinition, ParseContext, Value } from './types.js';

/** mongod's makeTimeZone: UTC when absent, undefined (→ null result) when nullish, else a zone. */
function timeZoneOf(expr: Expression | undefined, frame: Frame): TimeZone | undefined {
  if (expr === undefined) return dates.UTC;
  const v = expr.evaluate(frame);
  if (isNullish(v)) return undefined;
  if (typeof v !== 'string')
    fail(ErrorCode.Location40517, `timezone must evaluate to a string, found ${typeName(v)}`);
  return dates.getTimeZone(v);
}

/** Named arguments of an object-form operator, with its codes for "not an object" and "unknown". */
function namedArgs(
  name: string,
  arg: BsonValue,
  notObject: [number, string],
  unknown: (k: string) => [number, string],
  allowed: readonly string[],
): Map<string, BsonValue> {
  if (!isPlainDocument(arg)) fail(notObject[0], notObject[1]);
  const out = new Map<string, BsonValue>();
  for (const [k, v] of Object.entries(arg)) {
    if (!allowed.includes(k)) {
      const [code, msg] = unknown(k);
      fail(code, msg);
    }
    out.set(k, v);
  }
  void name;
  return out;
}

function parseOptional(
  ctx: ParseContext,
  args: Map<string, BsonValue>,
  key: string,
): Expression | undefined {
  return args.has(key) ? ctx.parse(args.get(key) ?? null) : undefined;
}

// ---- $year, $month, ... -----------------------------------------------------------------------

function dateFieldOperator(name: string, extract: (wall: number) => number): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      let date: Expression;
      let tz: Expression | undefined;
      if (isPlainDocument(arg) && !(Object.keys(arg)[0] ?? '').startsWith('$')) {
        let dateSpec: BsonValue | undefined;
        let hasDate = false;
        for (const [k, v] of Object.entries(arg)) {
          if (k === 'date') {
            dateSpec = v;
            hasDate = true;
          } else if (k === 'timezone') tz = ctx.parse(v);
          else fail(ErrorCode.Location40535, `unrecognized option to ${name}: "${k}"`);
        }
        if (!hasDate)
          fail(
            ErrorCode.Location40539,
            `missing 'date' argument to ${name}, provided: ${formatBson(arg)}`,
          );
        date = ctx.parse(dateSpec ?? null);
      } else if (isArray(arg)) {
        if (arg.length !== 1)
          fail(
            ErrorCode.Location40536,
            `${name} accepts exactly one argument if given an array, but was given ${arg.length}`,
          );
        date = ctx.parse(arg[0] ?? null);
      } else {
        date = ctx.parse(arg);
      }
      const tzE = tz;
      const evaluate = (frame: Frame): Value => {
        const d = date.evaluate(frame);
        if (isNullish(d)) return null;
        const zone = timeZoneOf(tzE, frame);
        if (zone === undefined) return null;
        const ms = toDate(d).getTime();
        return new Int32(extract(dates.localMs(ms, zone)));
      };
      return operatorExpression(name, [date, tzE], evaluate);
    },
  };
}

const utcParts = (wall: number): dates.DateParts => dates.partsOf(wall, dates.UTC);

const fieldOperators: OperatorDefinition[] = [
  dateFieldOperator('$year', (w) => utcParts(w).year),
  dateFieldOperator('$month', (w) => utcParts(w).month),
  dateFieldOperator('$dayOfMonth', (w) => utcParts(w).day),
  dateFieldOperator('$hour', (w) => utcParts(w).hour),
  dateFieldOperator('$minute', (w) => utcParts(w).minute),
  dateFieldOperator('$second', (w) => utcParts(w).second),
  dateFieldOperator('$millisecond', (w) => utcParts(w).millisecond),
  dateFieldOperator('$dayOfWeek', (w) => dates.dayOfWeek(w)),
  dateFieldOperator('$dayOfYear', (w) => dates.dayOfYear(w)),
  dateFieldOperator('$week', (w) => dates.weekOfYear(w)),
  dateFieldOperator('$isoWeek', (w) => dates.isoWeekAndYear(w).week),
  dateFieldOperator('$isoWeekYear', (w) => dates.isoWeekAndYear(w).year),
  dateFieldOperator('$isoDayOfWeek', (w) => dates.isoDayOfWeek(w)),
];

// ---- $dateToString, $dateFromString --------------------------------------------------------------

/**
 * The `format` argument of $dateToString / $dateFromString at run time: `fallback` when it is
 * not given, nullish as it is, else a string that `validate` accepts (`code` when it is not a
 * string).
 */
function formatArgument(
  format: Expression | undefined,
  frame: Frame,
  fallback: Value,
  check: { readonly op: string; readonly code: number; readonly validate: (f: string) => void },
): Value {
  if (format === undefined) return fallback;
  const fmt = format.evaluate(frame);
  if (isNullish(fmt)) return fmt;
  if (typeof fmt !== 'string')
    fail(
      check.code,
      `${check.op} requires that 'format' be a string, found: ${typeName(fmt)} with value ${formatValue(fmt)}`,
    );
  check.validate(fmt);
  return fmt;
}

const $dateToString: OperatorDefinition = {
  name: '$dateToString',
  parse(arg, ctx) {
    const args = namedArgs(
      '$dateToString',
      arg,
      [ErrorCode.Location18629, '$dateToString only supports an object as its argument'],
      (k) => [ErrorCode.Location18534, `Unrecognized argument to $dateToString: ${k}`],
      ['format', 'date', 'timezone', 'onNull'],
    );
    if (!args.has('date'))
      fail(ErrorCode.Location18628, "Missing 'date' parameter to $dateToString");
    const date = ctx.parse(args.get('date') ?? null);
    const format = parseOptional(ctx, args, 'format');
    const tz = parseOptional(ctx, args, 'timezone');
    const onNull = parseOptional(ctx, args, 'onNull');
    const evaluate = (frame: Frame): Value => {
      const d = date.evaluate(frame);
      const fmt = formatArgument(format, frame, dates.ISO_FORMAT, {
        op: '$dateToString',
        code: ErrorCode.Location18533,
        validate: dates.validateFormat,
      });
      const zone = timeZoneOf(tz, frame);
      if (isNullish(d)) return onNull !== undefined ? onNull.evaluate(frame) : null;
      if (zone === undefined) return null;
      if (typeof fmt !== 'string') return null;
      return dates.formatDate(fmt, toDate(d).getTime(), zone);
    };
    return operatorExpression('$dateToString', [date, format, tz, onNull], evaluate);
  },
};

const $dateFromString: OperatorDefinition = {
  name: '$dateFromString',
  parse(arg, ctx) {
    const args = namedArgs(
      '$dateFromString',
      arg,
      [
        ErrorCode.Location40540,
        `$dateFromString only supports an object as an argument, found: ${typeName(arg)}`,
      ],
      (k) => [ErrorCode.Location40541, `Unrecognized argument to $dateFromString: ${k}`],
      ['format', 'dateString', 'timezone', 'onNull', 'onError'],
    );
    if (!args.has('dateString'))
      fail(ErrorCode.Location40542, "Missing 'dateString' parameter to $dateFromString");
    const dateString = ctx.parse(args.get('dateString') ?? null);
    const format = parseOptional(ctx, args, 'format');
    const tz = parseOptional(ctx, args, 'timezone');
    const onNull = parseOptional(ctx, args, 'onNull');
    const onError = parseOptional(ctx, args, 'onError');
    const evaluate = (frame: Frame): Value => {
      const s = dateString.evaluate(frame);
      const fmt = formatArgument(format, frame, null, {
        op: '$dateFromString',
        code: ErrorCode.Location40684,
        validate: dates.validateParseFormat,
      });
      const zone = timeZoneOf(tz, frame);
      if (isNullish(s)) return onNull !== undefined ? onNull.evaluate(frame) : null;
      try {
        if (typeof s !== 'string')
          fail(
            ErrorCode.ConversionFailure,
            `$dateFromString requires that 'dateString' be a string, found: ${typeName(s)} with value ${formatValue(s)}`,
          );
        if (zone === undefined) return null;
        if (format !== undefined && isNullish(fmt)) return null;
        return new Date(
          dates.parseDateString(
            s,
            tz === undefined ? undefined : zone,
            typeof fmt === 'string' ? fmt : undefined,
          ),
        );
      } catch (e) {
        if (
          onError !== undefined &&
          e instanceof CommandError &&
          e.code === ErrorCode.ConversionFailure
        )
          return onError.evaluate(frame);
        throw e;
      }
    };
    return operatorExpression(
      '$dateFromString',
      [dateString, format, tz, onNull, onError],
      evaluate,
    );
  },
};

// ---- $dateToParts, $dateFromParts ----------------------------------------------------------------

const $dateToParts: OperatorDefinition = {
  name: '$dateToParts',
  parse(arg, ctx) {
    const args = namedArgs(
      '$dateToParts',
      arg,
      [ErrorCode.Location40524, '$dateToParts only supports an object as its argument'],
      (k) => [ErrorCode.Location40520, `Unrecognized argument to $dateToParts: ${k}`],
      ['date', 'timezone', 'iso8601'],
    );
    if (!args.has('date'))
      fail(ErrorCode.Location40522, "Missing 'date' parameter to $dateToParts");
    const date = ctx.parse(args.get('date') ?? null);
    const tz = parseOptional(ctx, args, 'timezone');
    const iso = parseOptional(ctx, args, 'iso8601');
    const evaluate = (frame: Frame): Value => {
      const d = date.evaluate(frame);
      const zone = timeZoneOf(tz, frame);
      if (zone === undefined) return null;
      let isoFlag = false;
      if (iso !== undefined) {
        const f = iso.evaluate(frame);
        if (isNullish(f)) return null;
        if (typeof f !== 'boolean')
          fail(ErrorCode.Location40521, `iso8601 must evaluate to a bool, found ${typeName(f)}`);
        isoFlag = f;
      }
      if (isNullish(d)) return null;
      const wall = dates.localMs(toDate(d).getTime(), zone);
      const p = dates.partsOf(wall, dates.UTC);
      const tail = {
        hour: new Int32(p.hour),
        minute: new Int32(p.minute),
        second: new Int32(p.second),
        millisecond: new Int32(p.millisecond),
      };
      if (isoFlag) {
        const w = dates.isoWeekAndYear(wall);
        return {
          isoWeekYear: new Int32(w.year),
          isoWeek: new Int32(w.week),
          isoDayOfWeek: new Int32(dates.isoDayOfWeek(wall)),
          ...tail,
        };
      }
      return { year: new Int32(p.year), month: new Int32(p.month), day: new Int32(p.day), ...tail };
    };
    return operatorExpression('$dateToParts', [date, tz, iso], evaluate);
  },
};

const PART_MIN = -32768;
const PART_MAX = 32767;

const $dateFromParts: OperatorDefinition = {
  name: '$dateFromParts',
  parse(arg, ctx) {
    const names = [
      'year',
      'month',
      'day',
      'hour',
      'minute',
      'second',
      'millisecond',
      'isoWeekYear',
      'isoWeek',
      'isoDayOfWeek',
      'timezone',
    ];
    const args = namedArgs(
      '$dateFromParts',
      arg,
      [ErrorCode.Location40519, '$dateFromParts only supports an object as its argument'],
      (k) => [ErrorCode.Location40518, `Unrecognized argument to $dateFromParts: ${k}`],
      names,
    );
    if (!args.has('year') && !args.has('isoWeekYear'))
      fail(
        ErrorCode.Location40516,
        "$dateFromParts requires either 'year' or 'isoWeekYear' to be present",
      );
    if (
      args.has('year') &&
      (args.has('isoWeekYear') || args.has('isoWeek') || args.has('isoDayOfWeek'))
    )
      fail(
        ErrorCode.Location40489,
        '$dateFromParts does not allow mixing natural dates with ISO dates',
      );
    if (args.has('isoWeekYear') && (args.has('year') || args.has('month') || args.has('day')))
      fail(
        ErrorCode.Location40525,
        '$dateFromParts does not allow mixing ISO dates with natural dates',
      );
    const e = new Map<string, Expression>();
    for (const n of names) {
      const x = parseOptional(ctx, args, n);
      if (x !== undefined) e.set(n, x);
    }
    const numberOf = (
      frame: Frame,
      field: string,
      dflt: number,
      bounded: boolean,
    ): number | undefined => {
      const x = e.get(field);
      if (x === undefined) return dflt;
      const v = x.evaluate(frame);
      if (isNullish(v)) return undefined;
      if (!isIntegral64(v))
        fail(
          ErrorCode.Location40515,
          `'${field}' must evaluate to an integer, found ${typeName(v)} with value ${formatValue(v)}`,
        );
      const n = Number(integralValue(v));
      if (bounded && (n < PART_MIN || n > PART_MAX)) {
        fail(
          ErrorCode.Location31034,
          `'${field}' must evaluate to a value in the range [${PART_MIN}, ${PART_MAX}]; value ${n} is not in range`,
        );
      }
      return n;
    };
    const evaluate = (frame: Frame): Value => {
      const hour = numberOf(frame, 'hour', 0, true);
      const minute = numberOf(frame, 'minute', 0, true);
      const second = numberOf(frame, 'second', 0, false);
      const ms = numberOf(frame, 'millisecond', 0, false);
      if (hour === undefined || minute === undefined || second === undefined || ms === undefined)
        return null;
      const zone = timeZoneOf(e.get('timezone'), frame);
      if (zone === undefined) return null;
      if (e.has('year')) {
        const year = numberOf(frame, 'year', 1970, false);
        const month = numberOf(frame, 'month', 1, true);
        const day = numberOf(frame, 'day', 1, true);
        if (year === undefined || month === undefined || day === undefined) return null;
        if (year < 1 || year > 9999)
          fail(
            ErrorCode.Location40523,
            `'year' must evaluate to an integer in the range 1 to 9999, found ${year}`,
          );
        return new Date(
          dates.fromLocalMs(dates.wallFromParts(year, month, day, hour, minute, second, ms), zone),
        );
      }
      const isoYear = numberOf(frame, 'isoWeekYear', 1970, false);
      const isoWeek = numberOf(frame, 'isoWeek', 1, true);
      const isoDow = numberOf(frame, 'isoDayOfWeek', 1, true);
      if (isoYear === undefined || isoWeek === undefined || isoDow === undefined) return null;
      if (isoYear < 1 || isoYear > 9999)
        fail(
          ErrorCode.Location31095,
          `'isoWeekYear' must evaluate to an integer in the range 1 to 9999, found ${isoYear}`,
        );
      return new Date(
        dates.fromLocalMs(
          dates.wallFromIsoParts(isoYear, isoWeek, isoDow, hour, minute, second, ms),
          zone,
        ),
      );
    };
    return operatorExpression('$dateFromParts', [...e.values()], evaluate);
  },
};

// ---- $dateAdd, $dateSubtract, $dateDiff, $dateTrunc ----------------------------------------------------

function unitOf(name: string, v: Value): TimeUnit {
  if (typeof v !== 'string')
    fail(
      ErrorCode.Location5439013,
      `${name} requires 'unit' to be a string, but got ${typeName(v)}`,
    );
  if (!dates.isTimeUnit(v))
    fail(
      ErrorCode.Location5439014,
      `${name} parameter 'unit' value cannot be recognized as a time unit: ${v}`,
    );
  return v;
}

function startOfWeekOf(name: string, v: Value): number {
  if (typeof v !== 'string')
    fail(
      ErrorCode.Location5439015,
      `${name} requires 'startOfWeek' to be a string, but got ${typeName(v)}`,
    );
  const d = dates.parseDayOfWeek(v);
  if (d === undefined)
    fail(
      ErrorCode.Location5439016,
      `${name} parameter 'startOfWeek' value cannot be recognized as a day of a week: ${v}`,
    );
  return d;
}

function dateArithmetic(name: '$dateAdd' | '$dateSubtract'): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const args = namedArgs(
        name,
        arg,
        [ErrorCode.Location5166400, `${name} expects an object as its argument`],
        (k) => [
          ErrorCode.Location5166401,
          `Unrecognized argument to ${name}: ${k}. Expected arguments are startDate, unit, amount, and optionally timezone.`,
        ],
        ['startDate', 'unit', 'amount', 'timezone'],
      );
      if (!args.has('startDate') || !args.has('unit') || !args.has('amount'))
        fail(
          ErrorCode.Location5166402,
          `${name} requires startDate, unit, and amount to be present`,
        );
      const start = ctx.parse(args.get('startDate') ?? null);
      const unit = ctx.parse(args.get('unit') ?? null);
      const amount = ctx.parse(args.get('amount') ?? null);
      const tz = parseOptional(ctx, args, 'timezone');
      const evaluate = (frame: Frame): Value => {
        const s = start.evaluate(frame);
        if (isNullish(s)) return null;
        const u = unit.evaluate(frame);
        if (isNullish(u)) return null;
        const a = amount.evaluate(frame);
        if (isNullish(a)) return null;
        const zone = timeZoneOf(tz, frame);
        if (zone === undefined) return null;
        if (!coercibleToDate(s))
          fail(ErrorCode.Location5166403, `${name} requires startDate to be convertible to a date`);
        if (typeof u !== 'string')
          fail(ErrorCode.Location5166404, `${name} expects string defining the time unit`);
        if (!dates.isTimeUnit(u)) fail(ErrorCode.FailedToParse, `unknown time unit value: ${u}`);
        if (!isIntegral64(a))
          fail(ErrorCode.Location5166405, `${name} expects integer amount of time units`);
        let n = Number(integralValue(a));
        if (name === '$dateSubtract') n = -n;
        const out = dates.dateAdd(toDate(s).getTime(), u, n, zone);
        if (!Number.isFinite(out) || Math.abs(out) > 8.64e15)
          fail(ErrorCode.Overflow, `${name} overflowed`);
        return new Date(out);
      };
      return operatorExpression(name, [start, unit, amount, tz], evaluate);
    },
  };
}

const $dateDiff: OperatorDefinition = {
  name: '$dateDiff',
  parse(arg, ctx) {
    const args = namedArgs(
      '$dateDiff',
      arg,
      [ErrorCode.Location5166301, '$dateDiff only supports an object as its argument'],
      (k) => [ErrorCode.Location5166302, `Unrecognized argument to $dateDiff: ${k}`],
      ['startDate', 'endDate', 'unit', 'timezone', 'startOfWeek'],
    );
    if (!args.has('startDate'))
      fail(ErrorCode.Location5166303, "Missing 'startDate' parameter to $dateDiff");
    if (!args.has('endDate'))
      fail(ErrorCode.Location5166304, "Missing 'endDate' parameter to $dateDiff");
    if (!args.has('unit')) fail(ErrorCode.Location5166305, "Missing 'unit' parameter to $dateDiff");
    const start = ctx.parse(args.get('startDate') ?? null);
    const end = ctx.parse(args.get('endDate') ?? null);
    const unit = ctx.parse(args.get('unit') ?? null);
    const tz = parseOptional(ctx, args, 'timezone');
    const sow = parseOptional(ctx, args, 'startOfWeek');
    const evaluate = (frame: Frame): Value => {
      const s = start.evaluate(frame);
      if (isNullish(s)) return null;
      const e = end.evaluate(frame);
      if (isNullish(e)) return null;
      const u = unit.evaluate(frame);
      if (isNullish(u)) return null;
      let startOfWeek = 7;
      const sowActive = sow !== undefined && u === 'week';
      let sowValue: Value = null;
      if (sowActive) {
        sowValue = sow.evaluate(frame);
        if (isNullish(sowValue)) return null;
      }
      const zone = timeZoneOf(tz, frame);
      if (zone === undefined) return null;
      if (!coercibleToDate(s))
        fail(
          ErrorCode.Location5166307,
          `$dateDiff requires 'startDate' to be a date, but got ${typeName(s)}`,
        );
      if (!coercibleToDate(e))
        fail(
          ErrorCode.Location5166307,
          `$dateDiff requires 'endDate' to be a date, but got ${typeName(e)}`,
        );
      const un = unitOf('$dateDiff', u);
      if (sowActive) startOfWeek = startOfWeekOf('$dateDiff', sowValue);
      return Long.fromNumber(
        dates.dateDiff(toDate(s).getTime(), toDate(e).getTime(), un, zone, startOfWeek),
      );
    };
    return operatorExpression('$dateDiff', [start, end, unit, tz, sow], evaluate);
  },
};

const $dateTrunc: OperatorDefinition = {
  name: '$dateTrunc',
  parse(arg, ctx) {
    const args = namedArgs(
      '$dateTrunc',
      arg,
      [ErrorCode.Location5439007, '$dateTrunc only supports an object as its argument'],
      (k) => [
        ErrorCode.Location5439008,
        `Unrecognized argument to $dateTrunc: ${k}. Expected arguments are date, unit, and optionally, binSize, timezone, startOfWeek`,
      ],
      ['date', 'unit', 'binSize', 'timezone', 'startOfWeek'],
    );
    if (!args.has('date'))
      fail(ErrorCode.Location5439009, "Missing 'date' parameter to $dateTrunc");
    if (!args.has('unit'))
      fail(ErrorCode.Location5439010, "Missing 'unit' parameter to $dateTrunc");
    const date = ctx.parse(args.get('date') ?? null);
    const unit = ctx.parse(args.get('unit') ?? null);
    const binSize = parseOptional(ctx, args, 'binSize');
    const tz = parseOptional(ctx, args, 'timezone');
    const sow = parseOptional(ctx, args, 'startOfWeek');
    const evaluate = (frame: Frame): Value => {
      const d = date.evaluate(frame);
      if (isNullish(d)) return null;
      const u = unit.evaluate(frame);
      if (isNullish(u)) return null;
      let bin: Value = null;
      if (binSize !== undefined) {
        bin = binSize.evaluate(frame);
        if (isNullish(bin)) return null;
      }
      const sowActive = sow !== undefined && u === 'week';
      let sowValue: Value = null;
      if (sowActive) {
        sowValue = sow.evaluate(frame);
        if (isNullish(sowValue)) return null;
      }
      const zone = timeZoneOf(tz, frame);
      if (zone === undefined) return null;
      if (!coercibleToDate(d))
        fail(
          ErrorCode.Location5439012,
          `$dateTrunc requires 'date' to be a date, but got ${typeName(d)}`,
        );
      const un = unitOf('$dateTrunc', u);
      let size = 1;
      if (binSize !== undefined) {
        if (!isIntegral64(bin))
          fail(
            ErrorCode.Location5439017,
            `$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '${formatValue(bin)}' of type ${typeName(bin)}`,
          );
        size = Number(integralValue(bin));
        if (size <= 0)
          fail(
            ErrorCode.Location5439018,
            `$dateTrunc requires 'binSize' to be greater than 0, but got value ${size}`,
          );
      }
      const startOfWeek = sowActive ? startOfWeekOf('$dateTrunc', sowValue) : 7;
      return new Date(dates.dateTrunc(toDate(d).getTime(), un, size, zone, startOfWeek));
    };
    return operatorExpression('$dateTrunc', [date, unit, binSize, tz, sow], evaluate);
  },
};

export const dateOperators: readonly OperatorDefinition[] = [
  ...fieldOperators,
  $dateToString,
  $dateFromString,
  $dateToParts,
  $dateFromParts,
  dateArithmetic('$dateAdd'),
  dateArithmetic('$dateSubtract'),
  $dateDiff,
  $dateTrunc,
];
