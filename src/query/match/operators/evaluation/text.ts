import { ErrorCode, fail } from '../../../../errors.js';
import type { TopLevelOperator } from '../registry.js';

/** {$text: {$search: ...}}: text search needs text indexes, which do not exist yet. */
export const $text: TopLevelOperator = {
  name: '$text',
  parse(_arg, ctx) {
    if (ctx.level === 'subDocument')
      fail(ErrorCode.BadValue, '$text can only be applied to the top-level document');
    if (ctx.banSpecialFeatures) fail(ErrorCode.BadValue, '$text is not allowed in this context');
    fail(ErrorCode.NotImplemented, '$text is not implemented: text search is not supported yet');
  },
};
