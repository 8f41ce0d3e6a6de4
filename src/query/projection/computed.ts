// Literal values and aggregation expressions in a find projection ({x: "text"}, {x: "$a"},
// {x: {$add: [...]}}). Literals that contain no expression are constants; everything else is
// compiled by the hook the aggregation layer provides (ProjectionOptions.expressions),
// and without it answers NotImplemented.

import type { Collator } from '../../bson/collation.js';
import type { PathValue } from '../../bson/path.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import type { Matcher } from '../match/index.js';
import type { ComputedValue } from './tree.js';

/**
 * The aggregation layer's side of find projections (the query layer cannot import it): how to
 * compile an expression and which '$' names are expression operators.
 */
export interface ExpressionHook {
  /** Compiles an aggregation expression; the function returns MISSING to leave a field out. */
  compile(expr: BsonValue): (doc: BsonDocument) => PathValue;
  /** Whether `name` is an expression operator, as mongod's Expression::isExpressionName. */
  isExpressionName(name: string): boolean;
}

export interface ProjectionOptions {
  /** The find filter, for positional projections ("a.$"); without it they use the caller's match details. */
  readonly matcher?: Pick<Matcher, 'matches'> | undefined;
  /** Aggregation expressions; without it only constant literals are accepted (NotImplemented otherwise). */
  readonly expressions?: ExpressionHook | undefined;
  /** The operation's collation, for $elemMatch projections. */
  readonly collator?: Collator | undefined;
}

/**
 * Whether a literal evaluates to itself: no "$..." string (a field path or variable) and no
 * "$"-keyed document (an operator) anywhere inside, as mongod's Expression::parseOperand reads it.
 */
export function isLiteralConstant(v: BsonValue): boolean {
  if (typeof v === 'string') return !v.startsWith('$');
  if (isArray(v)) return v.every(isLiteralConstant);
  if (isPlainDocument(v))
    return Object.entries(v).every(([k, x]) => !k.startsWith('$') && isLiteralConstant(x));
  return true;
}

/**
 * A computed field: `value` is a literal, or (`operatorDocument`) a one-key document naming an
 * expression operator. $literal is handled here; other expressions need the hook.
 */
export function compileComputed(
  value: BsonValue,
  options: ProjectionOptions,
  operatorDocument = false,
): ComputedValue {
  if (operatorDocument && isPlainDocument(value) && Object.keys(value)[0] === '$literal') {
    const constant = value['$literal'] as BsonValue;
    return () => constant;
  }
  if (!operatorDocument && isLiteralConstant(value)) return () => value;
  const hook = options.expressions;
  if (hook === undefined)
    fail(
      ErrorCode.NotImplemented,
      'aggregation expressions in find projections are not implemented yet',
    );
  return hook.compile(value);
}
