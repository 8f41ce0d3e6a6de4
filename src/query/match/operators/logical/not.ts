import { BSONRegExp, isPlainDocument } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { andOf, notNode, regexNode } from '../../nodes.js';
import type { PathOperator } from '../registry.js';

/** {a: {$not: {...}}} or {a: {$not: /re/}}: the negation of the operators over the whole path. */
export const $not: PathOperator = {
  name: '$not',
  parse({ path, arg, ctx, parser }) {
    if (arg instanceof BSONRegExp) return notNode(regexNode(path, arg.pattern, arg.options));
    if (!isPlainDocument(arg)) fail(ErrorCode.BadValue, '$not needs a regex or a document');
    if (Object.keys(arg).length === 0) fail(ErrorCode.BadValue, '$not cannot be empty');
    return notNode(andOf(parser.operators(path, arg, ctx)));
  },
};
