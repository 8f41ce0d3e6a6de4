import { ErrorCode, fail } from '../../../../errors.js';
import type { TopLevelOperator } from '../registry.js';

/**
 * {$expr: <aggregation expression>}: evaluated by the hook MatchOptions.compileExpr, which the
 * aggregation layer provides; without it the operator is not implemented.
 */
export const $expr: TopLevelOperator = {
  name: '$expr',
  parse(arg, ctx) {
    if (ctx.level === 'subDocument')
      fail(ErrorCode.BadValue, '$expr can only be applied to the top-level document');
    if (ctx.banSpecialFeatures)
      fail(ErrorCode.QueryFeatureNotAllowed, '$expr is not allowed in this context');
    const compile = ctx.options.compileExpr;
    if (compile === undefined) fail(ErrorCode.NotImplemented, '$expr is not implemented yet');
    const evaluate = compile(arg);
    return { kind: 'expr', expr: arg, test: (doc) => evaluate(doc) };
  },
};
