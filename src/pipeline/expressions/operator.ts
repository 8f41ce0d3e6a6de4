// Building blocks shared by the operator families: operand lists, arity checks with mongod's
// messages, constant folding, and the `evaluate all operands, then apply` shape most operators
// have (mongod's ExpressionNary / ExpressionFixedArity / ExpressionRangedArity).

import type { Collator } from '../../bson/collation.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import type { Expression, Frame, OperatorDefinition, ParseContext, Value } from './types.js';

/** The frame used to fold constant expressions at parse time: they read no variable. */
const FOLD_FRAME: Frame = { vars: [] };

export function constant(value: Value): Expression {
  return { kind: 'constant', value, evaluate: () => value };
}

export function isConstant(e: Expression | undefined): e is Expression & { value: Value } {
  return e !== undefined && e.kind === 'constant';
}

/**
 * An operator expression; folded into a constant when every child is one and the operator is
 * pure (mongod's optimize() does the same, so an error such as a division by a constant zero
 * is raised when the pipeline is parsed, even over an empty collection).
 */
export function operatorExpression(
  op: string,
  children: readonly (Expression | undefined)[],
  evaluate: (frame: Frame) => Value,
  options: { fold?: boolean } = {},
): Expression {
  const expr: Expression = { kind: 'operator', op, evaluate };
  if (options.fold === false) return expr;
  if (children.every((c) => c === undefined || isConstant(c)))
    return constant(evaluate(FOLD_FRAME));
  return expr;
}

/** mongod's ExpressionNary::parseArguments: an array is the operand list, anything else one operand. */
export function parseOperands(arg: BsonValue, ctx: ParseContext): Expression[] {
  if (isArray(arg)) return arg.map((a) => ctx.parse(a));
  return [ctx.parse(arg)];
}

export function checkExactArity(name: string, n: number, expected: number): void {
  if (n !== expected)
    fail(
      ErrorCode.Location16020,
      `Expression ${name} takes exactly ${expected} arguments. ${n} were passed in.`,
    );
}

export function checkArityRange(name: string, n: number, min: number, max: number): void {
  if (n < min || n > max) {
    fail(
      ErrorCode.Location28667,
      `Expression ${name} takes at least ${min} arguments, and at most ${max}, but ${n} were passed in.`,
    );
  }
}

export type Arity = number | readonly [number, number] | 'variadic';

export function checkArity(name: string, n: number, arity: Arity): void {
  if (arity === 'variadic') return;
  if (typeof arity === 'number') checkExactArity(name, n, arity);
  else checkArityRange(name, n, arity[0], arity[1]);
}

/**
 * An operator whose operands are all evaluated before it applies (the common case):
 * `apply` receives the operand values in order.
 */
export function naryOperator(
  name: string,
  arity: Arity,
  apply: (values: Value[], collator: Collator | undefined) => Value,
  options: { fold?: boolean } = {},
): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      const children = parseOperands(arg, ctx);
      checkArity(name, children.length, arity);
      const n = children.length;
      const collator = ctx.env.collator;
      const evaluate = (frame: Frame): Value => {
        const values = new Array<Value>(n);
        for (let i = 0; i < n; i++) values[i] = (children[i] as Expression).evaluate(frame);
        return apply(values, collator);
      };
      return operatorExpression(name, children, evaluate, options);
    },
  };
}

/** A one-operand operator; `[x]` and `x` are both accepted, as mongod does. */
export function unaryOperator(
  name: string,
  apply: (value: Value) => Value,
  options: { fold?: boolean } = {},
): OperatorDefinition {
  return naryOperator(name, 1, (values) => apply(values[0] as Value), options);
}

/**
 * Parses an operator's named-argument document ({input: ..., as: ...}) and reports unknown
 * fields with the operator's own code and message.
 */
export function namedArguments(
  arg: BsonValue,
  allowed: readonly string[],
  onUnknown: (field: string) => never,
): Map<string, BsonValue> {
  const out = new Map<string, BsonValue>();
  for (const [k, v] of Object.entries(arg as BsonDocument)) {
    if (!allowed.includes(k)) onUnknown(k);
    out.set(k, v);
  }
  return out;
}

export function isObjectArgument(arg: BsonValue): arg is BsonDocument {
  return isPlainDocument(arg);
}
