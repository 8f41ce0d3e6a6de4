// Bridges between a pipeline's parse context and the expression language and matcher:
// expression parse contexts over the pipeline's variables, the `$expr` hook the matcher
// calls so that filters can hold aggregation expressions, and the variables of one
// find-like command (`let`, an update statement's `c`, $$NOW, $$CLUSTER_TIME) that its
// filter, projection and pipeline update share.

import type { Collator } from '../bson/collation.js';
import type { Timestamp } from 'bson';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode, fail } from '../errors.js';
import { compileFilter } from '../query/match/index.js';
import type { ExprCompiler, Matcher, WhereCompiler } from '../query/match/index.js';
import type { ScriptHost } from '../js/engine.js';
import { evaluateOn } from './expressions/index.js';
import { newEnv, parseExpression, rootContext } from './expressions/parse.js';
import { operators, refusedOperators } from './expressions/registry.js';
import {
  defineConstant,
  newScope,
  validateNameForUserRead,
  validateNameForUserWrite,
} from './expressions/variables.js';
import { ROOT_SLOT } from './expressions/types.js';
import type {
  Binding,
  Expression,
  ExpressionEnv,
  ParseContext,
  Value,
  VariableScope,
} from './expressions/types.js';
import type { PipelineContext } from './stages/types.js';
import { toBool } from './values.js';

export function expressionContext(ctx: Pick<PipelineContext, 'env' | 'scope'>): ParseContext {
  return rootContext(ctx.env, ctx.scope);
}

export function parsePipelineExpression(
  spec: BsonValue,
  ctx: Pick<PipelineContext, 'env' | 'scope'>,
): Expression {
  return parseExpression(spec, expressionContext(ctx));
}

/** The matcher's $expr hook: the expression is parsed once and evaluated per document. */
export function exprCompiler(env: ExpressionEnv, scope: VariableScope): ExprCompiler {
  return (spec) => {
    const expr = parseExpression(spec, rootContext(env, scope));
    const frame = env.frame;
    return (doc: BsonDocument) => {
      frame.vars[ROOT_SLOT] = doc;
      return toBool(expr.evaluate(frame));
    };
  };
}

/**
 * The matcher's $where hook over the command's sandbox: the code compiled once, called per
 * document with the document as `this` and as `obj`; the result is taken as a boolean.
 */
export function whereCompiler(env: ExpressionEnv): WhereCompiler | undefined {
  const host = env.scripting;
  if (host === undefined) return undefined;
  return (code) => {
    const scope = host.scope();
    const fn = scope.compile(code);
    return (doc: BsonDocument) => toBool(scope.call(fn, [], doc, true));
  };
}

/** A filter compiled with $expr support over the pipeline's variables. */
export function compileMatch(
  filter: BsonDocument,
  ctx: Pick<PipelineContext, 'env' | 'scope' | 'collator' | 'textSearch'>,
): Matcher {
  return compileFilter(filter, {
    compileExpr: exprCompiler(ctx.env, ctx.scope),
    compileWhere: whereCompiler(ctx.env),
    collator: ctx.collator,
    textSearch: ctx.textSearch,
  });
}

// ---- command variables ------------------------------------------------------------------------

/** System variables mongod lets only its own nodes set through `let` (Variables::kSystemVarValidators). */
const INTERNAL_CONSTANTS = new Set(['NOW', 'CLUSTER_TIME', 'JS_SCOPE', 'IS_MR', 'USER_ROLES']);
/** Variables with a reserved id (Variables::kBuiltinVarNameToId): no constant may take their name. */
const RESERVED_VARIABLES = new Set([
  'ROOT',
  'REMOVE',
  'NOW',
  'CLUSTER_TIME',
  'JS_SCOPE',
  'IS_MR',
  'SEARCH_META',
  'USER_ROLES',
]);

/**
 * Variable names in a scope that refuses the document: a command's `let` expressions run
 * before any document is read, so a field path or $$ROOT / $$CURRENT in them is mongod's 4890500
 * (Variables::seedVariablesWithLetParameters). Every field path resolves CURRENT through the
 * scope chain, so this is where such a reference shows up at parse time.
 */
class DocumentFreeNames extends Map<string, Binding> {
  override get(name: string): Binding | undefined {
    if (name === 'CURRENT' || name === 'ROOT') {
      fail(
        ErrorCode.Location4890500,
        'Command let Expression tried to access a field, but this is not allowed because Command let Expressions run before the query examines any documents.',
      );
    }
    return super.get(name);
  }
}

function validateLetName(name: string): void {
  try {
    validateNameForUserWrite(name);
  } catch (e) {
    if (!(e instanceof CommandError)) throw e;
    if (INTERNAL_CONSTANTS.has(name))
      fail(ErrorCode.Location4738901, `Attempt to set internal constant: ${name}`);
    fail(ErrorCode.FailedToParse, `Invalid 'let' parameter :: caused by :: ${e.message}`);
  }
}

/**
 * Binds a command's `let` (find, aggregate, update, delete, findAndModify; mongod 5.0+) in
 * `scope`: each variable is an expression evaluated once, in order, so a later one may read an
 * earlier one; none may read the document.
 */
export function defineLetVariables(
  env: ExpressionEnv,
  scope: VariableScope,
  letVars: BsonDocument,
): void {
  for (const [name, spec] of Object.entries(letVars)) {
    validateLetName(name);
    const documentFree: VariableScope = { parent: scope, names: new DocumentFreeNames() };
    const value = evaluateOn(parseExpression(spec, rootContext(env, documentFree)), {}, env.frame);
    defineConstant(scope, name, value);
  }
}

/**
 * An update statement's constants (`c`): literal values, not expressions, in a child scope so
 * that they shadow the command's `let` (mongod's PipelineExecutor defines them after `let`).
 */
function constantsScope(scope: VariableScope, constants: BsonDocument): VariableScope {
  const child = newScope(scope);
  for (const [name, value] of Object.entries(constants)) {
    validateNameForUserRead(name);
    if (RESERVED_VARIABLES.has(name))
      fail(ErrorCode.Location17275, "Can't redefine a non-user-writable variable");
    defineConstant(child, name, value as Value);
  }
  return child;
}

/** Whether `name` is an expression operator, known or refused ($function), as Expression::isExpressionName. */
export function isExpressionName(name: string): boolean {
  return operators.has(name) || refusedOperators.has(name);
}

export interface QueryVariablesOptions {
  /** The command's `let`. */
  readonly let?: BsonDocument | undefined;
  /** $$CLUSTER_TIME; undefined on a standalone, where using it is mongod's 51144. */
  readonly clusterTime?: Timestamp | undefined;
  /** The operation's collation: `$expr`, projection and pipeline-update expressions compare by it. */
  readonly collator?: Collator | undefined;
  /** Parsing a collection validator, where $rand is refused (mongod's 3040500). */
  readonly forbidRandom?: boolean;
  /** Server-side JavaScript; undefined when scripting is off (mongod's refusals). */
  readonly scripting?: ScriptHost | undefined;
}

/**
 * The expression side of one find-like command: one $$NOW, the cluster time and the `let`
 * variables, shared by its filter's `$expr`, its projection's expressions and its pipeline
 * update, as one mongod ExpressionContext is.
 */
export interface QueryExpressions {
  readonly env: ExpressionEnv;
  readonly scope: VariableScope;
  /** The matcher's `$expr` hook. */
  readonly compileExpr: ExprCompiler;
  /** The matcher's `$where` hook; undefined when scripting is off. */
  readonly compileWhere: WhereCompiler | undefined;
  /** An aggregation expression evaluated with the document as $$ROOT (find projections). */
  compileValue(spec: BsonValue): (doc: BsonDocument) => Value;
  /** Whether `name` is an expression operator ($add, $literal, ...), as Expression::isExpressionName. */
  isExpressionName(name: string): boolean;
  /** The same, with an update statement's constants (`c`) bound. */
  withConstants(constants: BsonDocument): QueryExpressions;
}

export function queryExpressions(options: QueryVariablesOptions = {}): QueryExpressions {
  const env = newEnv({
    clusterTime: options.clusterTime,
    collator: options.collator,
    ...(options.forbidRandom === true ? { forbidRandom: true } : {}),
    scripting: options.scripting,
  });
  const scope = newScope(undefined);
  if (options.let !== undefined) defineLetVariables(env, scope, options.let);
  return expressionsOver(env, scope);
}

function expressionsOver(env: ExpressionEnv, scope: VariableScope): QueryExpressions {
  return {
    env,
    scope,
    compileExpr: exprCompiler(env, scope),
    compileWhere: whereCompiler(env),
    compileValue(spec) {
      const expr = parseExpression(spec, rootContext(env, scope));
      return (doc) => evaluateOn(expr, doc, env.frame);
    },
    isExpressionName,
    withConstants: (constants) => expressionsOver(env, constantsScope(scope, constants)),
  };
}
