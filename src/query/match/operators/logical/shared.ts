import { asDocument, isArray } from '../../../../bson/types.js';
import type { BsonValue } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import type { MatchNode, ParseContext } from '../../types.js';
import type { SubParser, TopLevelOperator } from '../registry.js';

/**
 * $and / $or / $nor: a non-empty array of filter documents, each parsed at the current level
 * (a clause still sees the whole document).
 */
export function treeOperator(name: '$and' | '$or' | '$nor', kind: 'and' | 'or' | 'nor'): TopLevelOperator {
  return {
    name,
    parse(arg: BsonValue, ctx: ParseContext, parser: SubParser): MatchNode {
      if (!isArray(arg)) fail(ErrorCode.BadValue, `${name} must be an array`);
      if (arg.length === 0) fail(ErrorCode.BadValue, '$and/$or/$nor must be a nonempty array');
      const children = arg.map((clause) => {
        const doc = isArray(clause) ? undefined : asDocument(clause);
        if (doc === undefined) fail(ErrorCode.BadValue, '$or/$and/$nor entries need to be full objects');
        return parser.filter(doc, ctx);
      });
      return { kind, children };
    },
  };
}
