// Bridges between a pipeline's parse context and the expression language and matcher:
// expression parse contexts over the pipeline's variables, and the `$expr` hook the matcher
// calls so that filters can hold aggregation expressions.

import type { BsonDocument, BsonValue } from '../bson/types.js';
import { compileFilter } from '../query/match/index.js';
import type { ExprCompiler, Matcher } from '../query/match/index.js';
import { newEnv, parseExpression, rootContext } from './expressions/parse.js';
import { defineConstant, newScope, validateNameForUserWrite } from './expressions/variables.js';
import { ROOT_SLOT } from './expressions/types.js';
import type { Expression, ExpressionEnv, ParseContext, VariableScope } from './expressions/types.js';
import type { PipelineContext } from './stages/types.js';
import { toBool } from './values.js';

export function expressionContext(ctx: Pick<PipelineContext, 'env' | 'scope'>): ParseContext {
  return rootContext(ctx.env, ctx.scope);
}

export function parsePipelineExpression(spec: BsonValue, ctx: Pick<PipelineContext, 'env' | 'scope'>): Expression {
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

/** A filter compiled with $expr support over the pipeline's variables. */
export function compileMatch(filter: BsonDocument, ctx: Pick<PipelineContext, 'env' | 'scope'>): Matcher {
  return compileFilter(filter, { compileExpr: exprCompiler(ctx.env, ctx.scope) });
}

/**
 * The `$expr` hook for find-like commands (find, count, distinct, update and delete filters):
 * the command's `let` variables are evaluated once, $$NOW is fixed for the command. The
 * environment is built on the first `$expr` met, so filters without one pay nothing.
 */
export function queryExprCompiler(variables: BsonDocument | undefined): ExprCompiler {
  let state: { env: ExpressionEnv; scope: VariableScope } | undefined;
  return (spec) => {
    if (state === undefined) {
      const env = newEnv();
      const scope = newScope(undefined);
      const ctx = rootContext(env, scope);
      for (const [name, v] of Object.entries(variables ?? {})) {
        validateNameForUserWrite(name);
        frameRoot(env, {});
        defineConstant(scope, name, parseExpression(v, ctx).evaluate(env.frame));
      }
      state = { env, scope };
    }
    return exprCompiler(state.env, state.scope)(spec);
  };
}

function frameRoot(env: ExpressionEnv, doc: BsonDocument): void {
  env.frame.vars[ROOT_SLOT] = doc;
}
