// Window functions of $setWindowFields: the accumulators over a window of the sorted partition
// ($sum, $avg, $push, $topN, ...), and the functions that read the partition's order directly
// ($rank, $denseRank, $documentNumber, $shift, $locf, $linearFill, $expMovingAvg, $derivative,
// $integral, $covariancePop/Samp). Each one computes the output for one position given the
// partition's evaluated inputs.

import { Decimal128, Double, Int32 } from 'bson';
import * as num from '../../bson/numeric.js';
import { compareBson } from '../../bson/compare.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { accumulators } from '../accumulators/index.js';
import type { Accumulator, AccumulatorSpec } from '../accumulators/index.js';
import { isTimeUnit } from '../dates.js';
import type { TimeUnit } from '../dates.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression, Frame, ParseContext, Value } from '../expressions/types.js';
import { integralValue, isNullish, typeName } from '../values.js';
import { sliceDue } from '../../query/exec/yield.js';
import type { Steps } from '../stages/base.js';

/** One partition, sorted: its documents and their sort keys. */
export interface Partition {
  readonly docs: readonly BsonDocument[];
  /** The first sortBy field's key per document (for range windows and rank functions). */
  readonly sortValues: readonly BsonValue[];
  /** Full sort keys per document, for rank equality. */
  readonly sortKeys: readonly (readonly BsonValue[])[];
}

/** A window: [lower, upper] as document offsets, positions, or values of the sort field. */
export type Bound =
  | { kind: 'unbounded' }
  | { kind: 'current' }
  | { kind: 'offset'; n: number }
  | { kind: 'value'; v: BsonValue };
export interface WindowSpec {
  readonly type: 'documents' | 'range';
  readonly lower: Bound;
  readonly upper: Bound;
  readonly unit?: TimeUnit | undefined;
}

export interface WindowFunction {
  /** Computes the output for every position of the partition, in steps (yielding when due). */
  compute(
    p: Partition,
    frame: Frame,
    bounds: (i: number) => [number, number] | undefined,
  ): Steps<Value[]>;
  /** True when the function accepts a `window` (rank-like functions do not). */
  readonly acceptsWindow: boolean;
  /** True when the function needs a sortBy ($rank, $shift, $derivative...). */
  readonly needsSortBy: boolean;
  /** $rank, $denseRank, $documentNumber: mongod's own codes for a window (5371601) or a bad sortBy (5371602). */
  readonly rankLike?: boolean;
  /** $derivative needs an explicit window. */
  readonly needsWindow?: boolean;
}

function* evaluateAll(expr: Expression, p: Partition, frame: Frame): Steps<Value[]> {
  const out: Value[] = [];
  for (const d of p.docs) {
    frame.vars[ROOT_SLOT] = d;
    out.push(expr.evaluate(frame));
    if (sliceDue()) yield;
  }
  return out;
}

/** `f` at every position of the partition, in steps. */
function* eachPosition(n: number, f: (i: number) => Value): Steps<Value[]> {
  const out: Value[] = [];
  for (let i = 0; i < n; i++) {
    out.push(f(i));
    if (sliceDue()) yield;
  }
  return out;
}

/** An accumulator over each document's window. Growing windows are computed incrementally. */
function accumulatorFunction(spec: AccumulatorSpec): WindowFunction {
  return {
    acceptsWindow: true,
    needsSortBy: false,
    *compute(p, frame, bounds) {
      const inputs = yield* evaluateAll(spec.argument, p, frame);
      const make = (): Accumulator => {
        if (spec.initializer === undefined) return spec.create(null);
        frame.vars[ROOT_SLOT] = {};
        return spec.create(spec.initializer.evaluate(frame));
      };
      const out: Value[] = [];
      let acc: Accumulator | undefined;
      let from = -1;
      let to = -1;
      for (let i = 0; i < p.docs.length; i++) {
        const b = bounds(i);
        if (b === undefined) {
          out.push(make().value());
          continue;
        }
        const [lo, hi] = b;
        if (acc !== undefined && lo === from && hi >= to) {
          for (let k = to + 1; k <= hi; k++) acc.process(inputs[k] ?? MISSING);
        } else {
          acc = make();
          for (let k = lo; k <= hi; k++) {
            acc.process(inputs[k] ?? MISSING);
            if (sliceDue()) yield;
          }
        }
        from = lo;
        to = hi;
        out.push(acc.value());
        if (sliceDue()) yield;
      }
      return out;
    },
  };
}

function rankFunction(kind: 'rank' | 'denseRank' | 'documentNumber'): WindowFunction {
  return {
    acceptsWindow: false,
    needsSortBy: true,
    rankLike: true,
    *compute(p) {
      const out: Value[] = [];
      let rank = 0;
      let dense = 0;
      for (let i = 0; i < p.docs.length; i++) {
        const same =
          i > 0 &&
          (p.sortKeys[i] as BsonValue[]).every(
            (k, j) => compareBson(k, (p.sortKeys[i - 1] as BsonValue[])[j] ?? null) === 0,
          );
        if (!same) {
          rank = i + 1;
          dense++;
        }
        out.push(new Int32(kind === 'documentNumber' ? i + 1 : kind === 'rank' ? rank : dense));
        if (sliceDue()) yield;
      }
      return out;
    },
  };
}

function shiftFunction(output: Expression, by: number, dflt: Value): WindowFunction {
  return {
    acceptsWindow: false,
    needsSortBy: true,
    *compute(p, frame) {
      const values = yield* evaluateAll(output, p, frame);
      return yield* eachPosition(p.docs.length, (i) => {
        const j = i + by;
        if (j < 0 || j >= p.docs.length) return dflt;
        const v = values[j] ?? MISSING;
        return v === MISSING ? null : v;
      });
    },
  };
}

function locfFunction(input: Expression): WindowFunction {
  return {
    acceptsWindow: false,
    needsSortBy: false,
    *compute(p, frame) {
      const values = yield* evaluateAll(input, p, frame);
      let last: Value = null;
      return yield* eachPosition(values.length, (i) => {
        const v = values[i] as Value;
        if (!isNullish(v)) last = v;
        return isNullish(v) ? last : v;
      });
    },
  };
}

function numberOfSortValue(v: BsonValue): number | undefined {
  if (v instanceof Date) return v.getTime();
  return num.isNumeric(v) ? num.toDouble(v) : undefined;
}

function linearFillFunction(input: Expression): WindowFunction {
  return {
    acceptsWindow: false,
    needsSortBy: true,
    *compute(p, frame) {
      const values = yield* evaluateAll(input, p, frame);
      const out: Value[] = values.map((v) => (v === MISSING ? null : v));
      for (let i = 0; i < out.length; i++) {
        if (!isNullish(out[i] as Value)) continue;
        let a = i - 1;
        while (a >= 0 && isNullish(values[a] as Value)) a--;
        let b = i + 1;
        while (b < values.length && isNullish(values[b] as Value)) b++;
        if (a < 0 || b >= values.length) continue;
        const ya = values[a] as BsonValue;
        const yb = values[b] as BsonValue;
        const xa = numberOfSortValue(p.sortValues[a] ?? null);
        const xb = numberOfSortValue(p.sortValues[b] ?? null);
        const xi = numberOfSortValue(p.sortValues[i] ?? null);
        if (
          !num.isNumeric(ya) ||
          !num.isNumeric(yb) ||
          xa === undefined ||
          xb === undefined ||
          xi === undefined ||
          xb === xa
        )
          continue;
        const y0 = num.toDouble(ya);
        const y1 = num.toDouble(yb);
        out[i] = new Double(y0 + ((y1 - y0) * (xi - xa)) / (xb - xa));
        if (sliceDue()) yield;
      }
      return out;
    },
  };
}

/**
 * $expMovingAvg, computed in decimal128 as mongod's AccumulatorExpMovingAvg does (the result a
 * double unless an input was a decimal); non-numeric inputs leave the average as it was.
 */
function expMovingAvgFunction(input: Expression, alpha: Decimal128): WindowFunction {
  const complement = num.subtract(Decimal128.fromString('1'), alpha) as Decimal128;
  return {
    acceptsWindow: false,
    needsSortBy: true,
    *compute(p, frame) {
      const values = yield* evaluateAll(input, p, frame);
      let avg: Decimal128 | undefined;
      let decimal = false;
      return yield* eachPosition(values.length, (i) => {
        const v = values[i] as Value;
        if (num.isNumeric(v)) {
          if (v instanceof Decimal128) decimal = true;
          const x = num.toDecimal(v);
          avg =
            avg === undefined
              ? x
              : (num.add(
                  num.multiply(x, alpha) as Decimal128,
                  num.multiply(avg, complement) as Decimal128,
                ) as Decimal128);
        }
        if (avg === undefined) return null;
        return decimal ? avg : new Double(num.toDouble(avg));
      });
    },
  };
}

const UNIT_MS: Partial<Record<TimeUnit, number>> = {
  week: 604800000,
  day: 86400000,
  hour: 3600000,
  minute: 60000,
  second: 1000,
  millisecond: 1,
};

/** $derivative and $integral over each window, against the single sortBy field. */
function calculusFunction(
  kind: 'derivative' | 'integral',
  input: Expression,
  unit: TimeUnit | undefined,
): WindowFunction {
  const scale = unit === undefined ? 1 : (UNIT_MS[unit] ?? 1);
  return {
    acceptsWindow: true,
    needsSortBy: true,
    needsWindow: kind === 'derivative',
    *compute(p, frame, bounds) {
      // A unit needs dates to sort by, and dates need a unit (mongod's run-time checks).
      for (const x of p.sortValues) {
        if (unit !== undefined && !(x instanceof Date)) {
          fail(
            kind === 'derivative' ? ErrorCode.Location5624900 : ErrorCode.Location5423901,
            `$${kind} with unit expects the sortBy field to be a Date`,
          );
        }
        if (unit === undefined && x instanceof Date) {
          fail(
            kind === 'derivative' ? ErrorCode.Location5624901 : ErrorCode.Location5423902,
            `$${kind} where the sortBy is a Date requires an 'unit'`,
          );
        }
      }
      const ys = yield* evaluateAll(input, p, frame);
      return yield* eachPosition(p.docs.length, (i) => {
        const b = bounds(i);
        if (b === undefined) return null;
        const [lo, hi] = b;
        const xOf = (k: number): number | undefined => {
          const x = numberOfSortValue(p.sortValues[k] ?? null);
          return x === undefined ? undefined : x / scale;
        };
        if (kind === 'derivative') {
          if (hi <= lo) return null;
          const x0 = xOf(lo);
          const x1 = xOf(hi);
          const y0 = ys[lo];
          const y1 = ys[hi];
          if (
            x0 === undefined ||
            x1 === undefined ||
            !num.isNumeric(y0) ||
            !num.isNumeric(y1) ||
            x1 === x0
          )
            return null;
          return new Double((num.toDouble(y1) - num.toDouble(y0)) / (x1 - x0));
        }
        let sum = 0;
        for (let k = lo + 1; k <= hi; k++) {
          const x0 = xOf(k - 1);
          const x1 = xOf(k);
          const y0 = ys[k - 1];
          const y1 = ys[k];
          if (x0 === undefined || x1 === undefined || !num.isNumeric(y0) || !num.isNumeric(y1))
            continue;
          sum += ((num.toDouble(y0) + num.toDouble(y1)) / 2) * (x1 - x0);
        }
        return new Double(sum);
      });
    },
  };
}

/** $covariancePop / $covarianceSamp: [x, y] over each window. */
function covarianceFunction(x: Expression, y: Expression, sample: boolean): WindowFunction {
  return {
    acceptsWindow: true,
    needsSortBy: false,
    *compute(p, frame, bounds) {
      const xs = yield* evaluateAll(x, p, frame);
      const ys = yield* evaluateAll(y, p, frame);
      return yield* eachPosition(p.docs.length, (i) => {
        const b = bounds(i);
        if (b === undefined) return null;
        const pts: Array<[number, number]> = [];
        for (let k = b[0]; k <= b[1]; k++) {
          const a = xs[k];
          const c = ys[k];
          if (num.isNumeric(a) && num.isNumeric(c)) pts.push([num.toDouble(a), num.toDouble(c)]);
        }
        const n = pts.length - (sample ? 1 : 0);
        if (n <= 0) return null;
        const mx = pts.reduce((s, q) => s + q[0], 0) / pts.length;
        const my = pts.reduce((s, q) => s + q[1], 0) / pts.length;
        return new Double(pts.reduce((s, q) => s + (q[0] - mx) * (q[1] - my), 0) / n);
      });
    },
  };
}

function objectArg(name: string, arg: BsonValue): BsonDocument {
  if (!isPlainDocument(arg))
    fail(
      ErrorCode.FailedToParse,
      `${name} must be specified with an object, found: ${typeName(arg)}`,
    );
  return arg;
}

function unitOf(name: string, v: BsonValue | undefined): TimeUnit | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !isTimeUnit(v))
    fail(ErrorCode.FailedToParse, `${name} 'unit' must be a valid time unit, found: ${String(v)}`);
  return v;
}

const ACCUMULATOR_FUNCTIONS = new Set([
  '$sum',
  '$avg',
  '$min',
  '$max',
  '$push',
  '$addToSet',
  '$first',
  '$last',
  '$stdDevPop',
  '$stdDevSamp',
  '$firstN',
  '$lastN',
  '$maxN',
  '$minN',
  '$top',
  '$bottom',
  '$topN',
  '$bottomN',
  '$mergeObjects',
  '$percentile',
  '$median',
]);

/** The functions that exist only as window functions (parseWindowFunction's switch). */
const WINDOW_ONLY_FUNCTIONS = [
  '$count',
  '$rank',
  '$denseRank',
  '$documentNumber',
  '$shift',
  '$locf',
  '$linearFill',
  '$expMovingAvg',
  '$derivative',
  '$integral',
  '$covariancePop',
  '$covarianceSamp',
] as const;

/** Every name $setWindowFields accepts as a window function (for docs and completeness tests). */
export const windowFunctionNames: readonly string[] = [
  ...ACCUMULATOR_FUNCTIONS,
  ...WINDOW_ONLY_FUNCTIONS,
];

/** Parses `{$fn: arg}` of a $setWindowFields output field. */
export function parseWindowFunction(
  name: string,
  arg: BsonValue,
  ctx: ParseContext,
): WindowFunction {
  if (ACCUMULATOR_FUNCTIONS.has(name)) {
    const def = accumulators.get(name);
    if (def === undefined) fail(ErrorCode.InternalError, `accumulator ${name} missing`);
    return accumulatorFunction(def.parse(arg, ctx));
  }
  switch (name) {
    case '$count': {
      if (!isPlainDocument(arg) || Object.keys(arg).length > 0)
        fail(ErrorCode.FailedToParse, '$count only accepts an empty object as input');
      const sum = accumulators.get('$sum');
      if (sum === undefined) fail(ErrorCode.InternalError, '$sum missing');
      return accumulatorFunction(sum.parse(new Int32(1), ctx));
    }
    case '$rank':
    case '$denseRank':
    case '$documentNumber':
      if (!isPlainDocument(arg) || Object.keys(arg).length > 0)
        fail(ErrorCode.Location5371603, `${name} must be specified with '{}' as the value`);
      return rankFunction(name.slice(1) as 'rank' | 'denseRank' | 'documentNumber');
    case '$shift': {
      const a = objectArg(name, arg);
      for (const k of Object.keys(a))
        if (k !== 'output' && k !== 'by' && k !== 'default')
          fail(ErrorCode.FailedToParse, `Unknown argument in $shift: ${k}`);
      if (a['output'] === undefined)
        fail(ErrorCode.FailedToParse, "$shift requires an 'output' expression.");
      const by = integralValue(a['by'] ?? MISSING);
      if (by === undefined)
        fail(ErrorCode.FailedToParse, "$shift requires 'by' as an integer value.");
      const dflt = a['default'] === undefined ? null : ctx.parse(a['default']);
      if (dflt !== null && dflt.kind !== 'constant')
        fail(ErrorCode.FailedToParse, "$shift's default expression must be a constant.");
      return shiftFunction(
        ctx.parse(a['output']),
        Number(by),
        dflt === null ? null : (dflt.value ?? null),
      );
    }
    case '$locf':
      return locfFunction(ctx.parse(arg));
    case '$linearFill':
      return linearFillFunction(ctx.parse(arg));
    case '$expMovingAvg': {
      const a = objectArg(name, arg);
      if (a['input'] === undefined)
        fail(ErrorCode.FailedToParse, "$expMovingAvg requires an 'input' expression");
      let alpha: Decimal128;
      if (a['N'] !== undefined && a['alpha'] === undefined) {
        const n = integralValue(a['N']);
        if (n === undefined || n <= 0n)
          fail(ErrorCode.FailedToParse, "'N' field must be an integer greater than zero");
        alpha = num.divide(
          Decimal128.fromString('2'),
          Decimal128.fromString(String(n + 1n)),
        ) as Decimal128;
      } else if (a['alpha'] !== undefined && a['N'] === undefined) {
        const x = num.isNumeric(a['alpha']) ? num.toDouble(a['alpha']) : NaN;
        if (!(x > 0 && x < 1))
          fail(ErrorCode.FailedToParse, "'alpha' must be between 0 and 1 (exclusive)");
        alpha = num.toDecimal(a['alpha'] as num.BsonNumber);
      } else {
        fail(ErrorCode.FailedToParse, "$expMovingAvg requires exactly one of 'N' and 'alpha'");
      }
      return expMovingAvgFunction(ctx.parse(a['input']), alpha);
    }
    case '$derivative':
    case '$integral': {
      const a = objectArg(name, arg);
      if (a['input'] === undefined)
        fail(ErrorCode.FailedToParse, `${name} requires an 'input' expression`);
      return calculusFunction(
        name === '$derivative' ? 'derivative' : 'integral',
        ctx.parse(a['input']),
        unitOf(name, a['unit']),
      );
    }
    case '$covariancePop':
    case '$covarianceSamp': {
      if (!isArray(arg) || arg.length !== 2)
        fail(ErrorCode.FailedToParse, `${name} requires an array of two expressions`);
      return covarianceFunction(
        ctx.parse(arg[0] ?? null),
        ctx.parse(arg[1] ?? null),
        name === '$covarianceSamp',
      );
    }
    default:
      fail(ErrorCode.FailedToParse, `Unrecognized window function, ${name}`);
  }
}
