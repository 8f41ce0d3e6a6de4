// Boolean operators: $and $or (short-circuit, any number of operands) and $not. Operands are
// coerced to booleans with mongod's rules (null, missing, 0 and false are false).

import { toBool } from '../values.js';
import { operatorExpression, parseOperands, unaryOperator } from './operator.js';
import type { Frame, OperatorDefinition, Value } from './types.js';

function shortCircuit(name: string, stopOn: boolean): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const children = parseOperands(arg, ctx);
      const evaluate = (frame: Frame): Value => {
        for (const c of children) if (toBool(c.evaluate(frame)) === stopOn) return stopOn;
        return !stopOn;
      };
      return operatorExpression(name, children, evaluate);
    },
  };
}

export const booleanOperators: readonly OperatorDefinition[] = [
  shortCircuit('$and', false),
  shortCircuit('$or', true),
  unaryOperator('$not', (v) => !toBool(v)),
];
