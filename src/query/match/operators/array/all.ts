import { BSONRegExp, isArray, isPlainDocument } from '../../../../bson/types.js';
import type { BsonValue } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { andOf, comparisonNode, regexNode } from '../../nodes.js';
import type { MatchNode } from '../../types.js';
import type { PathOperator } from '../registry.js';
import { parseElemMatch } from './elem-match.js';

function firstKey(v: BsonValue): string | undefined {
  return isPlainDocument(v) ? Object.keys(v)[0] : undefined;
}

/**
 * {a: {$all: [v1, /re/, ...]}}: an AND of equalities and regexes on `a`; or
 * {$all: [{$elemMatch: ...}, ...]}: an AND of $elemMatch. An empty list matches nothing.
 */
export const $all: PathOperator = {
  name: '$all',
  parse({ path, arg, ctx, parser }) {
    if (!isArray(arg)) fail(ErrorCode.BadValue, '$all needs an array');
    if (arg.length > 0 && firstKey(arg[0]) === '$elemMatch') {
      return andOf(
        arg.map((v) => {
          if (!isPlainDocument(v) || firstKey(v) !== '$elemMatch')
            fail(ErrorCode.BadValue, '$all/$elemMatch has to be consistent');
          return parseElemMatch(path, v['$elemMatch'] as BsonValue, ctx, parser);
        }),
      );
    }
    const children: MatchNode[] = arg.map((v) => {
      if (v instanceof BSONRegExp) return regexNode(path, v.pattern, v.options);
      const key = firstKey(v);
      if (key !== undefined && parser.isPathOperator(key))
        fail(ErrorCode.BadValue, 'no $ expressions in $all');
      return comparisonNode('eq', path, v);
    });
    return children.length === 0 ? { kind: 'alwaysFalse' } : andOf(children);
  },
};
