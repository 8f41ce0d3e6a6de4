import { BSONRegExp, asDocument, isArray } from '../../../../bson/types.js';
import type { BsonValue } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import type { MatchNode, ParseContext, RegexOperand } from '../../types.js';
import { inNode } from '../comparison/shared.js';
import type { SubParser, TopLevelOperator } from '../registry.js';

/**
 * $and / $or / $nor: a non-empty array of filter documents, each parsed at the current level
 * (a clause still sees the whole document).
 */
export function treeOperator(
  name: '$and' | '$or' | '$nor',
  kind: 'and' | 'or' | 'nor',
): TopLevelOperator {
  return {
    name,
    parse(arg: BsonValue, ctx: ParseContext, parser: SubParser): MatchNode {
      if (!isArray(arg)) fail(ErrorCode.BadValue, `${name} must be an array`);
      if (arg.length === 0) fail(ErrorCode.BadValue, '$and/$or/$nor must be a nonempty array');
      const children = arg.map((clause) => {
        const doc = isArray(clause) ? undefined : asDocument(clause);
        if (doc === undefined)
          fail(ErrorCode.BadValue, '$or/$and/$nor entries need to be full objects');
        return parser.filter(doc, ctx);
      });
      return optimizeTree(kind, children);
    },
  };
}

/**
 * mongod's normalization of logical nodes, which is visible through the positional `$`
 * (an $or never records a position, an $in does): a one-clause $and / $or is its clause, and
 * an $or of equalities and regexes on one path is an $in (jstests/core/query/or/or_to_in.js).
 */
function optimizeTree(kind: 'and' | 'or' | 'nor', children: MatchNode[]): MatchNode {
  if (kind !== 'nor' && children.length === 1) return children[0] as MatchNode;
  if (kind === 'or') return orToIn(children) ?? { kind, children };
  return { kind, children };
}

function orToIn(children: MatchNode[]): MatchNode | undefined {
  const first = children[0];
  if (first === undefined || !('path' in first)) return undefined;
  const values: BsonValue[] = [];
  const regexes: RegexOperand[] = [];
  for (const child of children) {
    if (!('path' in child) || child.path !== first.path) return undefined;
    if (child.kind === 'eq' && !(child.value instanceof BSONRegExp)) values.push(child.value);
    else if (child.kind === 'regex') regexes.push({ pattern: child.pattern, flags: child.flags });
    else return undefined;
  }
  return inNode(first.path, values, regexes);
}
