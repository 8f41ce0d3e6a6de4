// $setWindowFields: partitions documents (partitionBy), sorts each partition (sortBy), and sets
// output fields computed by window functions over a window of neighbouring documents —
// `documents: [lo, hi]` (positions relative to the current one) or `range: [lo, hi]` (values of
// the single sortBy field, with a `unit` for dates). The default window is the whole partition.
// The stage is blocking; its memory is bounded like $group's.

import { withValueAt } from '../../bson/document.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { compareBson } from '../../bson/compare.js';
import * as num from '../../bson/numeric.js';
import { ErrorCode, fail, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import { expressionContext } from '../context.js';
import { dateAdd, isTimeUnit, UTC } from '../dates.js';
import type { TimeUnit } from '../dates.js';
import { parseFieldPath } from '../expressions/field-path.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression, Value } from '../expressions/types.js';
import { compareSortKeys, parseSortPattern, sortKeysOf } from '../sort-pattern.js';
import type { SortPattern } from '../sort-pattern.js';
import { integralValue, typeName } from '../values.js';
import { ValueMap } from '../../bson/value-map.js';
import { parseWindowFunction } from '../window/functions.js';
import type { Bound, Partition, WindowFunction, WindowSpec } from '../window/functions.js';
import { BlockingStage, collected, memoryBound, sortSteps } from './base.js';
import type { Steps } from './base.js';
import { sliceDue } from '../../query/exec/yield.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

const PARTITION_ARRAY = 'An expression used to partition cannot evaluate to value of type array';

interface OutputField {
  readonly path: readonly string[];
  readonly fn: WindowFunction;
  readonly window: WindowSpec | undefined;
}

function parseBound(v: BsonValue, type: 'documents' | 'range'): Bound {
  if (v === 'unbounded') return { kind: 'unbounded' };
  if (v === 'current') return { kind: 'current' };
  if (type === 'documents') {
    const n = integralValue(v ?? null);
    if (n === undefined)
      fail(ErrorCode.FailedToParse, 'Numeric document-based bounds must be an integer');
    return { kind: 'offset', n: Number(n) };
  }
  if (!num.isNumeric(v))
    fail(ErrorCode.FailedToParse, 'Range-based bounds expression must be a number');
  return { kind: 'value', v };
}

function parseWindow(spec: BsonValue): WindowSpec {
  if (!isPlainDocument(spec)) fail(ErrorCode.FailedToParse, "'window' field must be an object");
  let type: 'documents' | 'range' | undefined;
  let bounds: BsonValue[] | undefined;
  let unit: TimeUnit | undefined;
  for (const [k, v] of Object.entries(spec)) {
    if (k === 'documents' || k === 'range') {
      if (type !== undefined)
        fail(
          ErrorCode.FailedToParse,
          "Window bounds can specify either 'documents' or 'unit', not both",
        );
      if (!isArray(v) || v.length !== 2)
        fail(ErrorCode.FailedToParse, `Window bounds must be a 2-element array: ${k}`);
      type = k;
      bounds = v;
    } else if (k === 'unit') {
      if (typeof v !== 'string' || !isTimeUnit(v))
        fail(ErrorCode.FailedToParse, `Unknown time unit: ${String(v)}`);
      unit = v;
    } else {
      fail(
        ErrorCode.FailedToParse,
        `'window' field can only contain 'documents' as the only argument or 'range' with an optional 'unit' field`,
      );
    }
  }
  if (type === undefined || bounds === undefined)
    fail(ErrorCode.FailedToParse, "'window' field must specify 'documents' or 'range'");
  if (unit !== undefined && type !== 'range')
    fail(ErrorCode.FailedToParse, "Document-based bounds cannot have a 'unit'");
  return {
    type,
    lower: parseBound(bounds[0] ?? null, type),
    upper: parseBound(bounds[1] ?? null, type),
    unit,
  };
}

/** The index range [lo, hi] of the window around position i, or undefined when empty. */
function windowBounds(
  w: WindowSpec | undefined,
  p: Partition,
  i: number,
): [number, number] | undefined {
  const n = p.docs.length;
  if (w === undefined) return n === 0 ? undefined : [0, n - 1];
  if (w.type === 'documents') {
    const pos = (b: Bound, isLower: boolean): number =>
      b.kind === 'unbounded'
        ? isLower
          ? 0
          : n - 1
        : b.kind === 'current'
          ? i
          : b.kind === 'offset'
            ? i + b.n
            : i;
    const lo = Math.max(0, pos(w.lower, true));
    const hi = Math.min(n - 1, pos(w.upper, false));
    return lo > hi ? undefined : [lo, hi];
  }
  const cur = p.sortValues[i] ?? null;
  const shift = (b: Bound): BsonValue | undefined => {
    if (b.kind === 'unbounded') return undefined;
    if (b.kind === 'current') return cur;
    if (b.kind !== 'value') return cur;
    if (cur instanceof Date) {
      if (w.unit === undefined)
        fail(ErrorCode.FailedToParse, "A range window over dates requires a 'unit'");
      return new Date(dateAdd(cur.getTime(), w.unit, num.toDouble(b.v as num.BsonNumber), UTC));
    }
    if (!num.isNumeric(cur))
      fail(
        ErrorCode.FailedToParse,
        `Invalid range: Expected the sortBy field to be a number, but it was ${typeName(cur)}`,
      );
    return num.add(cur, b.v as num.BsonNumber) as BsonValue;
  };
  const loV = shift(w.lower);
  const hiV = shift(w.upper);
  let lo = 0;
  while (lo < n && loV !== undefined && compareBson(p.sortValues[lo] ?? null, loV) < 0) lo++;
  let hi = n - 1;
  while (hi >= 0 && hiV !== undefined && compareBson(p.sortValues[hi] ?? null, hiV) > 0) hi--;
  return lo > hi ? undefined : [lo, hi];
}

class SetWindowFieldsStage implements Stage {
  readonly name = '$setWindowFields';
  constructor(
    private readonly spec: BsonDocument,
    private readonly partitionBy: Expression | undefined,
    private readonly sortBy: SortPattern | undefined,
    private readonly outputs: readonly OutputField[],
  ) {}
  serialize(): BsonDocument {
    return { $setWindowFields: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const bytesMax = rt.memory?.setWindowFieldsBytesMax ?? limits.setWindowFieldsMemoryBytesMax;
    return new BlockingStage('$setWindowFields', input, () =>
      collected(
        (docs) => this.compute(docs, rt),
        memoryBound(bytesMax, rt.allowDiskUse, (bytes) =>
          fail(
            ErrorCode.Location5414201,
            `Exceeded memory limit in DocumentSourceSetWindowFields, used ${bytes} bytes but max allowed is ${bytesMax}`,
          ),
        ),
      ),
    );
  }
  private *compute(docs: BsonDocument[], rt: Runtime): Steps<BsonDocument[]> {
    const frame = rt.frame;
    type Item = { doc: BsonDocument; keys: BsonValue[]; seq: number };
    const partitions = new ValueMap<Item[]>();
    let seq = 0;
    for (const doc of docs) {
      frame.vars[ROOT_SLOT] = doc;
      const pk = this.partitionBy === undefined ? null : this.partitionBy.evaluate(frame);
      const key = pk === MISSING ? null : pk;
      // $sort has multikey semantics for arrays, so partitioning by one is refused.
      if (isArray(key)) fail(ErrorCode.TypeMismatch, PARTITION_ARRAY);
      let list = partitions.get(key);
      if (list === undefined) {
        list = [];
        partitions.set(key, list);
      }
      list.push({
        doc,
        keys: this.sortBy === undefined ? [] : sortKeysOf(doc, this.sortBy),
        seq: seq++,
      });
      if (sliceDue()) yield;
    }
    docs.length = 0;
    // Partitions come out in partition-key order (mongod sorts on the key first).
    const ordered = yield* sortSteps([...partitions.entries()], (a, b) =>
      compareBson(a.key, b.key),
    );
    const out: BsonDocument[] = [];
    for (const entry of ordered) {
      let rows = entry.value;
      const pattern = this.sortBy;
      if (pattern !== undefined)
        rows = yield* sortSteps(
          rows,
          (a, b) => compareSortKeys(a.keys, b.keys, pattern) || a.seq - b.seq,
        );
      const p: Partition = {
        docs: rows.map((r) => r.doc),
        sortKeys: rows.map((r) => r.keys),
        sortValues: rows.map((r) => r.keys[0] ?? null),
      };
      const results: Value[][] = [];
      for (const o of this.outputs)
        results.push(yield* o.fn.compute(p, frame, (i) => windowBounds(o.window, p, i)));
      for (let i = 0; i < p.docs.length; i++) {
        let d = p.docs[i] as BsonDocument;
        this.outputs.forEach((o, k) => {
          const v = (results[k] as Value[])[i];
          d = withValueAt(d, o.path, v === undefined || v === MISSING ? null : v);
        });
        out.push(d);
        if (sliceDue()) yield;
      }
    }
    return out;
  }
}

export const $setWindowFields: StageDefinition = {
  name: '$setWindowFields',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.FailedToParse,
        `the $setWindowFields stage specification must be an object, found ${typeName(arg)}`,
      );
    const ectx = expressionContext(ctx);
    let partitionBy: Expression | undefined;
    let sortBy: SortPattern | undefined;
    let output: BsonDocument | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'partitionBy') {
        partitionBy = ectx.parse(v);
        if (partitionBy.kind === 'constant' && isArray(partitionBy.value))
          fail(ErrorCode.TypeMismatch, PARTITION_ARRAY);
      } else if (k === 'sortBy') {
        if (!isPlainDocument(v))
          fail(
            ErrorCode.TypeMismatch,
            `BSON field '$setWindowFields.sortBy' is the wrong type '${typeName(v)}', expected type 'object'`,
          );
        sortBy = parseSortPattern(v);
      } else if (k === 'output') {
        if (!isPlainDocument(v))
          fail(
            ErrorCode.TypeMismatch,
            `BSON field '$setWindowFields.output' is the wrong type '${typeName(v)}', expected type 'object'`,
          );
        output = v;
      } else {
        fail(ErrorCode.Location40415, `BSON field '$setWindowFields.${k}' is an unknown field.`);
      }
    }
    if (output === undefined) throw missingFieldError('$setWindowFields.output');
    const outputs: OutputField[] = Object.entries(output).map(([field, spec]) => {
      const path = parseFieldPath(field);
      if (!isPlainDocument(spec))
        fail(ErrorCode.FailedToParse, `The field '${field}' must be an object`);
      let fnName: string | undefined;
      let fnArg: BsonValue = null;
      let window: WindowSpec | undefined;
      for (const [k, v] of Object.entries(spec)) {
        if (k === 'window') window = parseWindow(v);
        else if (k.startsWith('$')) {
          if (fnName !== undefined)
            fail(ErrorCode.FailedToParse, `Window function found an unknown argument: ${k}`);
          fnName = k;
          fnArg = v;
        } else fail(ErrorCode.FailedToParse, `Window function found an unknown argument: ${k}`);
      }
      if (fnName === undefined)
        fail(ErrorCode.FailedToParse, `Expected a $-prefixed window function, ${field}`);
      const fn = parseWindowFunction(fnName, fnArg, ectx);
      if (window !== undefined && !fn.acceptsWindow)
        fail(
          fn.rankLike === true ? ErrorCode.Location5371601 : ErrorCode.FailedToParse,
          `${fnName} does not accept a 'window' field`,
        );
      if (window === undefined && fn.needsWindow === true)
        fail(ErrorCode.FailedToParse, `${fnName} requires explicit window bounds`);
      if (fn.needsSortBy && (sortBy === undefined || sortBy.parts.length !== 1)) {
        fail(
          fn.rankLike === true ? ErrorCode.Location5371602 : ErrorCode.FailedToParse,
          `${fnName} must be specified with a top level sortBy expression with exactly one element`,
        );
      }
      if (window?.type === 'range' && (sortBy === undefined || sortBy.parts.length !== 1)) {
        fail(ErrorCode.Location5339902, 'Range-based window require sortBy a single field');
      }
      if (
        window?.type === 'documents' &&
        (window.lower.kind !== 'unbounded' || window.upper.kind !== 'unbounded') &&
        sortBy === undefined
      ) {
        fail(ErrorCode.Location5339901, 'Document-based bounds require a sortBy');
      }
      return { path, fn, window };
    });
    return new SetWindowFieldsStage(arg, partitionBy, sortBy, outputs);
  },
};
