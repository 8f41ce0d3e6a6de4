// $percentile and $median (7.0), as accumulators and as expressions over arrays. mongod's
// 'approximate' method is a t-digest, which is exact for the small inputs where centroids stay
// single values; here every input is kept and the nearest-rank percentile is returned (the
// value at rank ceil(p·n)), a double. Non-numeric inputs are ignored; no input gives null.

import { Double } from 'bson';
import * as num from '../../bson/numeric.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { ErrorCode, fail, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import { operatorExpression } from '../expressions/operator.js';
import type {
  Expression,
  Frame,
  OperatorDefinition,
  ParseContext,
  Value,
} from '../expressions/types.js';
import { formatValue, typeName } from '../values.js';
import { SCALAR_STATE_BYTES } from './types.js';
import type { Accumulator, AccumulatorDefinition } from './types.js';

export class PercentileAccumulator implements Accumulator {
  readonly needsInput = true;
  private readonly values: number[] = [];
  bytes = SCALAR_STATE_BYTES;
  constructor(
    private readonly ps: readonly number[],
    private readonly single: boolean,
  ) {}
  process(v: Value): void {
    if (!num.isNumeric(v)) return;
    const x = num.toDouble(v);
    if (Number.isNaN(x)) return;
    this.values.push(x);
    this.bytes += 8;
    if (this.bytes > limits.accumulatorMemoryBytesMax)
      fail(
        ErrorCode.Location7434800,
        `$percentile used too much memory. Memory limit: ${limits.accumulatorMemoryBytesMax} bytes`,
      );
  }
  value(): Value {
    if (this.values.length === 0) return this.single ? null : this.ps.map(() => null);
    const sorted = [...this.values].sort((a, b) => a - b);
    const at = (p: number): Double =>
      new Double(sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number);
    return this.single ? at(this.ps[0] as number) : this.ps.map(at);
  }
}

interface Parsed {
  readonly input: Expression;
  readonly ps: readonly number[];
}

/** mongod's codes for a specification that is not an object, by operator and form. */
const NOT_OBJECT_CODES = {
  accumulator: { $percentile: ErrorCode.Location7429703, $median: ErrorCode.Location7436100 },
  expression: { $percentile: ErrorCode.Location7436200, $median: ErrorCode.Location7436201 },
} as const;

function parseArgs(
  name: '$percentile' | '$median',
  form: 'accumulator' | 'expression',
  arg: BsonValue,
  ctx: ParseContext,
): Parsed {
  if (!isPlainDocument(arg))
    fail(
      NOT_OBJECT_CODES[form][name],
      `specification must be an object; found ${name}: ${formatValue(arg)}`,
    );
  const spec = arg as BsonDocument;
  for (const k of Object.keys(spec)) {
    if (k !== 'input' && k !== 'method' && !(name === '$percentile' && k === 'p'))
      fail(ErrorCode.Location40415, `BSON field '${name}.${k}' is an unknown field.`);
  }
  if (spec['input'] === undefined) throw missingFieldError(`${name}.input`);
  if (spec['method'] === undefined) throw missingFieldError(`${name}.method`);
  // 'method' is an IDL enum (7.0 knows only 'approximate'): an unknown value is BadValue.
  if (spec['method'] !== 'approximate')
    fail(
      ErrorCode.BadValue,
      `Enumeration value '${formatValue(spec['method'] ?? null)}' for field '${name}.method' is not a valid value.`,
    );
  let ps: number[] = [0.5];
  if (name === '$percentile') {
    const p = spec['p'];
    if (p === undefined) throw missingFieldError('$percentile.p');
    if (
      !isArray(p) ||
      p.length === 0 ||
      !p.every((x) => num.isNumeric(x) && num.toDouble(x) >= 0 && num.toDouble(x) <= 1)
    ) {
      fail(
        ErrorCode.Location7750301,
        `The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: ${isArray(p) ? formatValue(p) : typeName(p)}`,
      );
    }
    ps = p.map((x) => num.toDouble(x as num.BsonNumber));
  }
  return { input: ctx.parse(spec['input'] ?? null), ps };
}

function accumulator(name: '$percentile' | '$median'): AccumulatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const { input, ps } = parseArgs(name, 'accumulator', arg, ctx);
      return {
        name,
        argument: input,
        create: () => new PercentileAccumulator(ps, name === '$median'),
      };
    },
  };
}

function expression(name: '$percentile' | '$median'): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const { input, ps } = parseArgs(name, 'expression', arg, ctx);
      const evaluate = (frame: Frame): Value => {
        const acc = new PercentileAccumulator(ps, name === '$median');
        const v = input.evaluate(frame);
        if (isArray(v)) for (const x of v) acc.process(x);
        else acc.process(v);
        return acc.value();
      };
      return operatorExpression(name, [input], evaluate);
    },
  };
}

export const percentileAccumulators: readonly AccumulatorDefinition[] = [
  accumulator('$percentile'),
  accumulator('$median'),
];
export const percentileOperators: readonly OperatorDefinition[] = [
  expression('$percentile'),
  expression('$median'),
];
