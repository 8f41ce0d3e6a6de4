// The aggregation expression language: parse once, evaluate per document.
//
//   const env = newEnv();
//   const expr = parseExpression({ $add: ['$a', 1] }, rootContext(env));
//   evaluateOn(expr, { a: new Int32(2) }, env.frame); // Int32(3)

import type { BsonDocument } from '../../bson/types.js';
import type { Expression, Frame, Value } from './types.js';
import { ROOT_SLOT } from './types.js';

export { newEnv, parseExpression, parseObject, rootContext } from './parse.js';
export type { EnvOptions } from './parse.js';
export { operators } from './registry.js';
export {
  defineConstant,
  defineVariable,
  newScope,
  validateNameForUserWrite,
  withChildScope,
} from './variables.js';
export {
  parseFieldPath,
  rootPathExpression,
  validateFieldName,
  evaluatePathOn,
} from './field-path.js';
export { constant } from './operator.js';
export { MISSING, ROOT_SLOT } from './types.js';
export type {
  Binding,
  Expression,
  ExpressionEnv,
  Frame,
  OperatorDefinition,
  ParseContext,
  Value,
  VariableScope,
} from './types.js';

/** Evaluates `expr` with `doc` as $$ROOT / $$CURRENT. */
export function evaluateOn(expr: Expression, doc: BsonDocument, frame: Frame): Value {
  frame.vars[ROOT_SLOT] = doc;
  return expr.evaluate(frame);
}
