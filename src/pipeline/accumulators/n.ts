// The "n" accumulators: $firstN $lastN $maxN $minN (also expressions over arrays) and the
// sort-ordered $top $bottom $topN $bottomN (mongod's accumulator_multi.cpp). `n` is evaluated
// once per group against {_id: <group key>}, so it may depend on the key.

import { Int32 } from 'bson';
import { isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { approximateValueSize } from '../../query/memory.js';
import { compareSortKeys, parseSortPattern, sortKeysOf } from '../sort-pattern.js';
import type { SortPattern } from '../sort-pattern.js';
import { compareValues, formatValue, integralValue, isNullish, isNumeric } from '../values.js';
import { constant } from '../expressions/operator.js';
import { MISSING } from '../expressions/types.js';
import type { Expression, ParseContext, Value } from '../expressions/types.js';
import { SCALAR_STATE_BYTES } from './types.js';
import type { Accumulator, AccumulatorDefinition, AccumulatorSpec } from './types.js';

/** mongod's AccumulatorN::validateN: a positive integral number. */
export function validateN(v: Value): number {
  if (!isNumeric(v))
    fail(
      ErrorCode.Location5787902,
      `Value for 'n' must be of integral type, but found ${formatValue(v)}`,
    );
  const exact = integralValue(v);
  if (exact === undefined)
    fail(
      ErrorCode.Location5787903,
      `Value for 'n' must be of integral type, but found ${formatValue(v)}`,
    );
  if (exact <= 0n) fail(ErrorCode.Location5787908, `'n' must be greater than 0, found ${exact}`);
  return exact > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(exact);
}

function checkBytes(name: string, bytes: number): void {
  if (bytes > limits.accumulatorMemoryBytesMax) {
    fail(
      ErrorCode.ExceededMemoryLimit,
      `${name} used too much memory and spilling to disk cannot reduce memory consumption any further. Memory limit: ${limits.accumulatorMemoryBytesMax} bytes`,
    );
  }
}

export class FirstLastNAccumulator implements Accumulator {
  private readonly items: BsonValue[] = [];
  bytes = SCALAR_STATE_BYTES;
  constructor(
    private readonly n: number,
    private readonly last: boolean,
  ) {}
  get needsInput(): boolean {
    return this.last || this.items.length < this.n;
  }
  process(v: Value): void {
    const val = v === MISSING ? null : v;
    if (this.items.length === this.n) {
      if (!this.last) return;
      const dropped = this.items.shift();
      this.bytes -= approximateValueSize(dropped ?? null);
    }
    this.items.push(val);
    this.bytes += approximateValueSize(val);
    checkBytes(this.last ? '$lastN' : '$firstN', this.bytes);
  }
  value(): Value {
    return [...this.items];
  }
}

/** Keeps the n smallest ($minN) or largest ($maxN) non-null values, output best first. */
export class MinMaxNAccumulator implements Accumulator {
  readonly needsInput = true;
  private items: BsonValue[] = [];
  bytes = SCALAR_STATE_BYTES;
  constructor(
    private readonly n: number,
    private readonly sense: 1 | -1,
  ) {}
  process(v: Value): void {
    if (isNullish(v)) return;
    // Insert in order (best first); equal values keep arrival order.
    let i = this.items.length;
    while (i > 0 && compareValues(v, this.items[i - 1] as BsonValue) * this.sense > 0) i--;
    if (i >= this.n) return;
    this.items.splice(i, 0, v);
    this.bytes += approximateValueSize(v);
    if (this.items.length > this.n) this.bytes -= approximateValueSize(this.items.pop() ?? null);
    checkBytes(this.sense > 0 ? '$maxN' : '$minN', this.bytes);
  }
  value(): Value {
    return [...this.items];
  }
}

/**
 * $top/$bottom(N): the argument is {output, sortFields...}; entries are kept ordered by their
 * sort keys, ties in arrival order; $top keeps the first n, $bottom the last n.
 */
export class TopBottomNAccumulator implements Accumulator {
  readonly needsInput = true;
  private entries: Array<{ keys: BsonValue[]; output: BsonValue }> = [];
  bytes = SCALAR_STATE_BYTES;
  constructor(
    private readonly n: number,
    private readonly top: boolean,
    private readonly single: boolean,
    private readonly pattern: SortPattern,
    private readonly name: string,
  ) {}
  process(v: Value): void {
    const doc = v as BsonDocument;
    const output = doc['output'] ?? null;
    const keys = sortKeysOf(doc['sortFields'] ?? null, this.pattern);
    const cmp = (a: BsonValue[], b: BsonValue[]): number => compareSortKeys(a, b, this.pattern);
    // Position after every entry that sorts before or equal to this one (stable).
    let i = this.entries.length;
    while (i > 0 && cmp(keys, (this.entries[i - 1] as { keys: BsonValue[] }).keys) < 0) i--;
    if (this.top && i >= this.n) return;
    this.entries.splice(i, 0, { keys, output });
    this.bytes += approximateValueSize(output) + approximateValueSize(keys);
    if (this.entries.length > this.n) {
      const dropped = this.top ? this.entries.pop() : this.entries.shift();
      if (dropped !== undefined)
        this.bytes -= approximateValueSize(dropped.output) + approximateValueSize(dropped.keys);
    }
    checkBytes(this.name, this.bytes);
  }
  value(): Value {
    const outs = this.entries.map((e) => e.output);
    if (this.single) return outs[0] ?? null;
    return outs;
  }
}

/** {n, input} argument parsing shared by $firstN/$lastN/$minN/$maxN (5787901, 5787906/7). */
export function parseNInput(
  name: string,
  arg: BsonValue,
  ctx: ParseContext,
  notObjectCode: number,
): { n: Expression; input: Expression } {
  if (!isPlainDocument(arg))
    fail(notObjectCode, `specification must be an object; found ${name}: ${formatBson(arg)}`);
  let n: Expression | undefined;
  let input: Expression | undefined;
  for (const [k, v] of Object.entries(arg)) {
    if (k === 'input') input = ctx.parse(v);
    else if (k === 'n') n = ctx.parse(v);
    else fail(ErrorCode.Location5787901, `Unknown argument for 'n' operator: ${k}`);
  }
  if (n === undefined) fail(ErrorCode.Location5787906, "Missing value for 'n'");
  if (input === undefined) fail(ErrorCode.Location5787907, "Missing value for 'input'");
  return { n, input };
}

function nAccumulator(
  name: string,
  notObjectCode: number,
  make: (n: number) => Accumulator,
): AccumulatorDefinition {
  return {
    name,
    parse(arg, ctx): AccumulatorSpec {
      const { n, input } = parseNInput(name, arg, ctx, notObjectCode);
      return { name, initializer: n, argument: input, create: (init) => make(validateN(init)) };
    },
  };
}

function topBottom(name: string, top: boolean, single: boolean): AccumulatorDefinition {
  return {
    name,
    parse(arg, ctx): AccumulatorSpec {
      if (!isPlainDocument(arg))
        fail(
          ErrorCode.Location5788001,
          `specification must be an object; found ${name}: ${formatBson(arg)}`,
        );
      let n: Expression | undefined;
      let output: BsonValue | undefined;
      let hasOutput = false;
      let sortBy: BsonDocument | undefined;
      for (const [k, v] of Object.entries(arg)) {
        if (!single && k === 'n') n = ctx.parse(v);
        else if (k === 'output') {
          output = v;
          hasOutput = true;
        } else if (k === 'sortBy') {
          if (!isPlainDocument(v)) fail(ErrorCode.TypeMismatch, `${name} sortBy must be an object`);
          sortBy = v;
        } else fail(ErrorCode.Location5788002, `Unknown argument to ${name} '${k}'`);
      }
      if (single) n = constant(new Int32(1));
      if (n === undefined) fail(ErrorCode.Location5788003, "Missing value for 'n'");
      if (!hasOutput) fail(ErrorCode.Location5788004, "Missing value for 'output'");
      if (sortBy === undefined) fail(ErrorCode.Location5788005, "Missing value for 'sortBy'");
      const pattern = parseSortPattern(sortBy);
      // Evaluate the output and the whole document (for the sort keys) per input, as mongod's
      // {output, sortFields0, ...} argument does.
      const outputExpr = ctx.parse(output ?? null);
      const rootExpr = ctx.parse('$$ROOT');
      const argument: Expression = {
        kind: 'operator',
        op: name,
        evaluate: (f) => {
          const out = outputExpr.evaluate(f);
          return {
            output: out === MISSING ? null : out,
            sortFields: rootExpr.evaluate(f) as BsonValue,
          } as BsonDocument;
        },
      };
      const initial = n;
      return {
        name,
        initializer: initial,
        argument,
        create: (init) =>
          new TopBottomNAccumulator(single ? 1 : validateN(init), top, single, pattern, name),
      };
    },
  };
}

export const nAccumulators: readonly AccumulatorDefinition[] = [
  nAccumulator('$firstN', ErrorCode.Location5787801, (n) => new FirstLastNAccumulator(n, false)),
  nAccumulator('$lastN', ErrorCode.Location5787801, (n) => new FirstLastNAccumulator(n, true)),
  nAccumulator('$maxN', ErrorCode.Location5787900, (n) => new MinMaxNAccumulator(n, 1)),
  nAccumulator('$minN', ErrorCode.Location5787900, (n) => new MinMaxNAccumulator(n, -1)),
  topBottom('$top', true, true),
  topBottom('$bottom', false, true),
  topBottom('$topN', true, false),
  topBottom('$bottomN', false, false),
];
