import { ErrorCode, fail } from '../../../../errors.js';
import type { TopLevelOperator } from '../registry.js';

/**
 * {$where: <JavaScript>}: there is no server-side JavaScript, so the answer is the one mongod
 * gives when scripting is disabled (--noscripting / security.javascriptEnabled: false).
 */
export const $where: TopLevelOperator = {
  name: '$where',
  parse(_arg, ctx) {
    if (ctx.banSpecialFeatures) fail(ErrorCode.BadValue, '$where is not allowed in this context');
    if (ctx.level === 'subDocument')
      fail(ErrorCode.BadValue, '$where can only be applied to the top-level document');
    fail(ErrorCode.Location6108304, 'no globalScriptEngine in $where parsing');
  },
};
