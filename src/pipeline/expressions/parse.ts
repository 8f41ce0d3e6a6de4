// Expression parsing (mongod's Expression::parseOperand / parseObject / parseExpression):
// a string starting with '$' is a field path, an object whose first key starts with '$' is an
// operator, any other object is an object expression, an array an array expression, and
// everything else a constant.

import type { Collator } from '../../bson/collation.js';
import type { ScriptHost } from '../../js/engine.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { setOwn } from '../../bson/document.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { parseFieldPathExpression, validateFieldName } from './field-path.js';
import { constant, operatorExpression } from './operator.js';
import { operators, refusedOperators } from './registry.js';
import { newScope } from './variables.js';
import { MISSING } from './types.js';
import type {
  Expression,
  ExpressionEnv,
  Frame,
  ParseContext,
  Value,
  VariableScope,
} from './types.js';

export interface EnvOptions {
  readonly now?: Date;
  readonly clusterTime?: BsonValue | undefined;
  /** The operation's collation (comparing expressions use it). */
  readonly collator?: Collator | undefined;
  /** A collection validator's: $rand is refused. */
  readonly forbidRandom?: boolean;
  /** Server-side JavaScript for $function, $accumulator and $where; undefined: refused. */
  readonly scripting?: ScriptHost | undefined;
}

/** A fresh environment for one command (one $$NOW, one frame). */
export function newEnv(options: EnvOptions = {}): ExpressionEnv {
  return {
    now: options.now ?? new Date(),
    clusterTime: options.clusterTime,
    frame: { vars: [undefined] },
    nextSlot: 1,
    ...(options.collator === undefined ? {} : { collator: options.collator }),
    ...(options.forbidRandom === true ? { forbidRandom: true } : {}),
    ...(options.scripting === undefined ? {} : { scripting: options.scripting }),
  };
}

/** The top-level parse context of a command, with an optional enclosing scope. */
export function rootContext(
  env: ExpressionEnv,
  scope: VariableScope = newScope(undefined),
): ParseContext {
  return makeContext(env, scope, 0);
}

function makeContext(env: ExpressionEnv, scope: VariableScope, depth: number): ParseContext {
  const ctx: ParseContext = {
    env,
    scope,
    depth,
    parse(spec, inner) {
      const c = inner ?? ctx;
      return parseExpression(spec, { ...c, depth: c.depth + 1 });
    },
  };
  return ctx;
}

/** Parses any expression. */
export function parseExpression(spec: BsonValue, ctx: ParseContext): Expression {
  if (ctx.depth > limits.expressionDepthMax) {
    fail(
      ErrorCode.Overflow,
      `expression nesting exceeds the limit of ${limits.expressionDepthMax}`,
    );
  }
  if (typeof spec === 'string' && spec.startsWith('$')) return parseFieldPathExpression(spec, ctx);
  if (isArray(spec)) return parseArray(spec, ctx);
  if (isPlainDocument(spec)) return parseObject(spec, ctx);
  return constant(spec);
}

function parseArray(spec: BsonValue[], ctx: ParseContext): Expression {
  const children = spec.map((s) => ctx.parse(s));
  // An array cannot hold a missing value: mongod stores null in its place.
  const evaluate = (frame: Frame): Value =>
    children.map((c) => {
      const v = c.evaluate(frame);
      return v === MISSING ? null : v;
    });
  return {
    ...operatorExpression('$array', children, evaluate),
    ...(children.every((c) => c.kind === 'constant') ? {} : { kind: 'array' as const }),
  };
}

/** An object: an operator ({$op: arg}) or an object expression ({a: <expr>, ...}). */
export function parseObject(spec: BsonDocument, ctx: ParseContext): Expression {
  const keys = Object.keys(spec);
  const first = keys[0];
  if (first === undefined) return constant({});
  if (first.startsWith('$')) {
    if (keys.length !== 1)
      fail(
        ErrorCode.Location15983,
        `An object representing an expression must have exactly one field: ${formatBson(spec)}`,
      );
    return parseOperator(first, spec[first] as BsonValue, ctx);
  }
  return parseObjectExpression(spec, ctx);
}

export function parseOperator(name: string, arg: BsonValue, ctx: ParseContext): Expression {
  const op = operators.get(name);
  if (op !== undefined) return op.parse(arg, ctx);
  const refusal = refusedOperators.get(name);
  if (refusal !== undefined) refusal();
  fail(ErrorCode.InvalidPipelineOperator, `Unrecognized expression '${name}'`);
}

function parseObjectExpression(spec: BsonDocument, ctx: ParseContext): Expression {
  const fields: Array<[string, Expression]> = [];
  for (const [name, value] of Object.entries(spec)) {
    validateFieldName(name);
    fields.push([name, ctx.parse(value)]);
  }
  const evaluate = (frame: Frame): Value => {
    const out: BsonDocument = {};
    for (const [name, e] of fields) {
      const v = e.evaluate(frame);
      // A missing value leaves the field out, as a Document built from Values does.
      if (v !== MISSING) setOwn(out, name, v);
    }
    return out;
  };
  const folded = operatorExpression(
    '$object',
    fields.map(([, e]) => e),
    evaluate,
  );
  return folded.kind === 'constant' ? folded : { kind: 'object', evaluate };
}
