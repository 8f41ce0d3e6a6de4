// Accumulators used as expressions: $sum $avg $min $max $stdDevPop $stdDevSamp $mergeObjects
// over one array operand or over several operands (mongod's ExpressionFromAccumulator), and
// $firstN $lastN $maxN $minN over an array ({n, input}).

import type { Collator } from '../../bson/collation.js';
import { isArray } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import {
  AvgAccumulator,
  MergeObjectsAccumulator,
  MinMaxAccumulator,
  StdDevAccumulator,
  SumAccumulator,
} from '../accumulators/simple.js';
import {
  FirstLastNAccumulator,
  MinMaxNAccumulator,
  parseNInput,
  validateN,
} from '../accumulators/n.js';
import type { Accumulator } from '../accumulators/types.js';
import { percentileOperators } from '../accumulators/percentile.js';
import { operatorExpression, parseOperands } from './operator.js';
import type { Expression, Frame, OperatorDefinition, Value } from './types.js';

function fromAccumulator(
  name: string,
  create: (collator: Collator | undefined) => Accumulator,
): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const children = parseOperands(arg, ctx);
      const collator = ctx.env.collator;
      const evaluate = (frame: Frame): Value => {
        const acc = create(collator);
        if (children.length === 1) {
          const v = (children[0] as Expression).evaluate(frame);
          if (isArray(v)) for (const x of v) acc.process(x);
          else acc.process(v);
        } else {
          for (const c of children) acc.process(c.evaluate(frame));
        }
        return acc.value();
      };
      return operatorExpression(name, children, evaluate);
    },
  };
}

function fromAccumulatorN(
  name: string,
  notObjectCode: number,
  create: (n: number) => Accumulator,
): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const { n, input } = parseNInput(name, arg, ctx, notObjectCode);
      const evaluate = (frame: Frame): Value => {
        const acc = create(validateN(n.evaluate(frame)));
        const values = input.evaluate(frame);
        if (!isArray(values)) fail(ErrorCode.Location5788200, 'Input must be an array');
        for (const v of values) acc.process(v);
        return acc.value();
      };
      return operatorExpression(name, [n, input], evaluate);
    },
  };
}

export const accumulatorOperators: readonly OperatorDefinition[] = [
  fromAccumulator('$sum', () => new SumAccumulator()),
  fromAccumulator('$avg', () => new AvgAccumulator()),
  fromAccumulator('$min', (collator) => new MinMaxAccumulator(-1, collator)),
  fromAccumulator('$max', (collator) => new MinMaxAccumulator(1, collator)),
  fromAccumulator('$stdDevPop', () => new StdDevAccumulator(false)),
  fromAccumulator('$stdDevSamp', () => new StdDevAccumulator(true)),
  fromAccumulator('$mergeObjects', () => new MergeObjectsAccumulator()),
  fromAccumulatorN(
    '$firstN',
    ErrorCode.Location5787801,
    (n) => new FirstLastNAccumulator(n, false),
  ),
  fromAccumulatorN('$lastN', ErrorCode.Location5787801, (n) => new FirstLastNAccumulator(n, true)),
  fromAccumulatorN('$maxN', ErrorCode.Location5787900, (n) => new MinMaxNAccumulator(n, 1)),
  fromAccumulatorN('$minN', ErrorCode.Location5787900, (n) => new MinMaxNAccumulator(n, -1)),
  ...percentileOperators,
];
