import { ErrorCode, fail } from '../../../../errors.js';
import { parseTextParams } from '../../../../text/query.js';
import type { TopLevelOperator } from '../registry.js';

/**
 * {$text: {$search, $language?, $caseSensitive?, $diacriticSensitive?}}: a search of the
 * collection's text index (src/text). The operand is checked as mongod checks it, then the
 * context's hook compiles it against the index; the node's test is the whole search (terms,
 * negations, phrases), which the planner's TEXT stages replace by index scans.
 */
export const $text: TopLevelOperator = {
  name: '$text',
  parse(arg, ctx) {
    if (ctx.level === 'subDocument')
      fail(ErrorCode.BadValue, '$text can only be applied to the top-level document');
    if (ctx.banSpecialFeatures) fail(ErrorCode.BadValue, '$text is not allowed in this context');
    const params = parseTextParams(arg);
    const compile = ctx.options.textSearch;
    if (compile === undefined)
      fail(ErrorCode.NotImplemented, '$text is not supported in this context yet');
    const search = compile(params);
    return { kind: 'text', search, test: (doc) => search.matches(doc, true) };
  },
};
