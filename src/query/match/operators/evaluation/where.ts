import { Code } from 'bson';
import { ErrorCode, fail } from '../../../../errors.js';
import type { TopLevelOperator } from '../registry.js';

/**
 * {$where: <JavaScript>}: a string or Code (its scope, if any, is not used, as in mongod 4.4+),
 * run per document by the command's sandbox (src/js) with the document as `this` and `obj`.
 * Without a sandbox (--noscripting / security.javascriptEnabled: false) the answer is the one
 * mongod gives then.
 */
export const $where: TopLevelOperator = {
  name: '$where',
  parse(arg, ctx) {
    if (ctx.banSpecialFeatures) fail(ErrorCode.BadValue, '$where is not allowed in this context');
    if (ctx.level === 'subDocument')
      fail(ErrorCode.BadValue, '$where can only be applied to the top-level document');
    const compile = ctx.options.compileWhere;
    if (compile === undefined)
      fail(ErrorCode.Location6108304, 'no globalScriptEngine in $where parsing');
    let code: string;
    if (typeof arg === 'string') code = arg;
    else if (arg instanceof Code) code = String(arg.code);
    else fail(ErrorCode.BadValue, '$where got bad type');
    return { kind: 'where', code, test: compile(code) };
  },
};
