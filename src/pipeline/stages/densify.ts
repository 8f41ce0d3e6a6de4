// $densify: fills gaps in a numeric or date sequence. Documents are sorted by the partition
// fields and the field; between present values, documents holding only the field (and the
// partition fields) are created every `step`, starting from the lower bound — the minimum
// over all documents ("full"), over the partition ("partition"), or given ([lower, upper),
// upper exclusive). Documents without the field pass through first, as mongod's $sort puts them.

import { withValueAt } from '../../bson/document.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { compareBson } from '../../bson/compare.js';
import * as num from '../../bson/numeric.js';
import { ErrorCode, fail, missingFieldError } from '../../errors.js';
import { dateAdd, isTimeUnit, UTC } from '../dates.js';
import type { TimeUnit } from '../dates.js';
import { parseFieldPath } from '../expressions/field-path.js';
import { getPathValue } from '../../bson/path.js';
import { MISSING } from '../expressions/types.js';
import { integralValue, isNullish, typeName } from '../values.js';
import { ValueMap } from '../../bson/value-map.js';
import { BlockingStage, collected, sortSteps } from './base.js';
import type { Steps } from './base.js';
import { sliceDue } from '../../query/exec/yield.js';
import type { Stage, StageDefinition } from './types.js';

type Bounds = 'full' | 'partition' | [BsonValue, BsonValue];

interface DensifySpec {
  readonly field: readonly string[];
  readonly partitionFields: ReadonlyArray<readonly string[]>;
  readonly step: num.BsonNumber;
  readonly unit: TimeUnit | undefined;
  readonly bounds: Bounds;
}

function valueAt(doc: BsonDocument, parts: readonly string[]): BsonValue | typeof MISSING {
  return getPathValue(doc, parts);
}

class DensifyStage implements Stage {
  readonly name = '$densify';
  constructor(
    private readonly spec: BsonDocument,
    private readonly d: DensifySpec,
  ) {}
  serialize(): BsonDocument {
    return { $densify: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    return new BlockingStage('$densify', input, () => collected((docs) => this.compute(docs)));
  }
  private next(v: BsonValue): BsonValue {
    if (v instanceof Date)
      return new Date(
        dateAdd(v.getTime(), this.d.unit as TimeUnit, num.toDouble(this.d.step), UTC),
      );
    return num.add(v as num.BsonNumber, this.d.step) as BsonValue;
  }
  private check(v: BsonValue): void {
    if (this.d.unit !== undefined) {
      if (!(v instanceof Date))
        fail(
          ErrorCode.TypeMismatch,
          `Densify field type must be a date when a unit is specified, found ${typeName(v)}`,
        );
    } else if (!num.isNumeric(v)) {
      fail(
        ErrorCode.TypeMismatch,
        `Densify field type must be numeric when no unit is specified, found ${typeName(v)}`,
      );
    }
  }
  private *compute(docs: BsonDocument[]): Steps<BsonDocument[]> {
    const d = this.d;
    const passthrough: BsonDocument[] = [];
    const partitions = new ValueMap<{
      key: BsonDocument;
      rows: Array<{ doc: BsonDocument; v: BsonValue }>;
    }>();
    let min: BsonValue | undefined;
    let max: BsonValue | undefined;
    for (const doc of docs) {
      const v = valueAt(doc, d.field);
      if (v === MISSING || isNullish(v)) {
        passthrough.push(doc);
        continue;
      }
      this.check(v);
      let key: BsonDocument = {};
      for (const p of d.partitionFields) {
        const pv = valueAt(doc, p);
        key = withValueAt(key, p, pv === MISSING ? null : pv);
      }
      let part = partitions.get(key);
      if (part === undefined) {
        part = { key, rows: [] };
        partitions.set(key, part);
      }
      part.rows.push({ doc, v });
      if (min === undefined || compareBson(v, min) < 0) min = v;
      if (max === undefined || compareBson(v, max) > 0) max = v;
      if (sliceDue()) yield;
    }
    const out: BsonDocument[] = [...passthrough];
    const ordered = yield* sortSteps([...partitions.entries()], (a, b) =>
      compareBson(a.key, b.key),
    );
    for (const { value: part } of ordered) {
      part.rows = yield* sortSteps(part.rows, (a, b) => compareBson(a.v, b.v));
      const first = part.rows[0]?.v;
      const last = part.rows[part.rows.length - 1]?.v;
      let lower: BsonValue | undefined;
      let upper: BsonValue | undefined;
      let upperInclusive = true;
      if (d.bounds === 'full') [lower, upper] = [min, max];
      else if (d.bounds === 'partition') [lower, upper] = [first, last];
      else {
        [lower, upper] = d.bounds;
        upperInclusive = false;
      }
      const make = (v: BsonValue): BsonDocument => withValueAt(part.key, d.field, v);
      const inRange = (v: BsonValue): boolean => {
        const c = compareBson(v, upper ?? null);
        return upperInclusive ? c <= 0 : c < 0;
      };
      let current = lower as BsonValue;
      let generated = 0;
      for (const row of part.rows) {
        if (compareBson(row.v, current) >= 0) {
          while (compareBson(current, row.v) < 0 && inRange(current)) {
            out.push(make(current));
            current = this.next(current);
            if (++generated > 5_000_000)
              fail(ErrorCode.ExceededMemoryLimit, '$densify would generate too many documents');
            if (sliceDue()) yield;
          }
          if (compareBson(row.v, current) === 0) current = this.next(current);
        }
        out.push(row.doc);
        if (sliceDue()) yield;
      }
      // With "full" or explicit bounds, every partition reaches the upper bound.
      if (d.bounds !== 'partition') {
        while (inRange(current)) {
          out.push(make(current));
          current = this.next(current);
          if (++generated > 5_000_000)
            fail(ErrorCode.ExceededMemoryLimit, '$densify would generate too many documents');
          if (sliceDue()) yield;
        }
      }
    }
    return out;
  }
}

export const $densify: StageDefinition = {
  name: '$densify',
  parse(arg) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.FailedToParse,
        `The $densify stage specification must be an object, found ${typeName(arg)}`,
      );
    let field: string | undefined;
    let partitionFields: string[] = [];
    let range: BsonDocument | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'field') {
        if (typeof v !== 'string')
          fail(
            ErrorCode.TypeMismatch,
            `BSON field '$densify.field' is the wrong type '${typeName(v)}', expected type 'string'`,
          );
        field = v;
      } else if (k === 'partitionByFields') {
        if (!isArray(v) || !v.every((x): x is string => typeof x === 'string'))
          fail(
            ErrorCode.TypeMismatch,
            "BSON field '$densify.partitionByFields' must be an array of strings",
          );
        partitionFields = v;
      } else if (k === 'range') {
        if (!isPlainDocument(v))
          fail(
            ErrorCode.TypeMismatch,
            `BSON field '$densify.range' is the wrong type '${typeName(v)}', expected type 'object'`,
          );
        range = v;
      } else fail(ErrorCode.Location40415, `BSON field '$densify.${k}' is an unknown field.`);
    }
    if (field === undefined) throw missingFieldError('$densify.field');
    if (range === undefined) throw missingFieldError('$densify.range');
    // Codes from jstests/aggregation/sources/densify/libs/parse_util.js.
    if (field.startsWith('$'))
      fail(
        ErrorCode.Location16410,
        "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
      );
    for (const f of partitionFields) {
      if (f.startsWith('$'))
        fail(
          ErrorCode.Location16410,
          "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
        );
    }
    let step: num.BsonNumber | undefined;
    let unit: TimeUnit | undefined;
    let bounds: Bounds | undefined;
    for (const [k, v] of Object.entries(range)) {
      if (k === 'step') {
        if (!num.isNumeric(v))
          fail(ErrorCode.TypeMismatch, "BSON field '$densify.range.step' must be numeric");
        step = v;
      } else if (k === 'unit') {
        if (typeof v !== 'string')
          fail(
            ErrorCode.TypeMismatch,
            `BSON field '$densify.range.unit' is the wrong type '${typeName(v)}', expected type 'string'`,
          );
        if (!isTimeUnit(v)) fail(ErrorCode.FailedToParse, `unknown time unit value: ${v}`);
        unit = v;
      } else if (k === 'bounds') {
        if (v === 'full' || v === 'partition') bounds = v;
        else if (isArray(v)) {
          if (v.length !== 2)
            fail(
              ErrorCode.Location5733403,
              'a bounding array in a range statement must have exactly two elements',
            );
          bounds = [v[0] ?? null, v[1] ?? null];
        } else
          fail(
            ErrorCode.FailedToParse,
            "Bounds must be 'full', 'partition', or an array of two values",
          );
      } else fail(ErrorCode.Location40415, `BSON field '$densify.range.${k}' is an unknown field.`);
    }
    if (step === undefined) throw missingFieldError('$densify.range.step');
    if (bounds === undefined) throw missingFieldError('$densify.range.bounds');
    if (num.toDouble(step) <= 0)
      fail(
        ErrorCode.Location5733401,
        'the step parameter in a range statement must be a strictly positive numeric value',
      );
    if (bounds === 'partition' && partitionFields.length === 0) {
      fail(
        ErrorCode.Location5733408,
        "one may not specify the bounds as 'partition' without specifying a non-empty array of partitionByFields. You may have meant to specify 'full' bounds.",
      );
    }
    if (isArray(bounds)) {
      const [lo, hi] = bounds;
      if (num.isNumeric(lo) && hi instanceof Date)
        fail(
          ErrorCode.Location5733406,
          'a bounding array must contain either both dates or both numeric types',
        );
      if (
        !((lo instanceof Date && hi instanceof Date) || (num.isNumeric(lo) && num.isNumeric(hi))) ||
        compareBson(lo, hi) > 0
      ) {
        fail(
          ErrorCode.Location5733402,
          "the bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates",
        );
      }
      if (num.isNumeric(lo) && unit !== undefined)
        fail(ErrorCode.Location5733409, 'numeric bounds may not have unit parameter');
    }
    if (unit !== undefined && integralValue(step) === undefined)
      fail(
        ErrorCode.Location6586400,
        'The step parameter in a range satement must be a whole number when densifying a date range',
      );
    return new DensifyStage(arg, {
      field: parseFieldPath(field),
      partitionFields: partitionFields.map(parseFieldPath),
      step,
      unit,
      bounds,
    });
  },
};
