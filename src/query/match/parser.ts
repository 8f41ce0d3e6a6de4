// Filter document → expression tree, with mongod's parsing rules and error messages
// (src/mongo/db/matcher/expression_parser.cpp): a field with a literal is an equality, a
// field with a regex a regex match, a field with an operator document one node per operator,
// and `$`-keys at the top are top-level operators.

import { BSONRegExp, isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { isExpressionDocument } from './expression-document.js';
import { andOf, comparisonNode, regexNode } from './nodes.js';
import { withParseCollator } from './compare.js';
import { pathOperators, topLevelOperators } from './operators/index.js';
import type { SubParser } from './operators/registry.js';
import type { MatchNode, MatchOptions, ParseContext } from './types.js';

/** mongod refuses a field path with more components than a stored document may nest. */
const FIELD_PATH_COMPONENTS_MAX = limits.bsonDepthMax;

const subParser: SubParser = {
  filter: parseDocument,
  operators: parseOperatorDocument,
  isTopLevelOperator: (name) => topLevelOperators.has(name),
  isPathOperator: (name) => name !== '$not' && pathOperators.has(name),
};

export interface ParseFilterOptions extends MatchOptions {
  /** mongod's kBanAllSpecialFeatures (projection $elemMatch). */
  banSpecialFeatures?: boolean;
}

export function parseFilter(filter: BsonDocument, options: ParseFilterOptions = {}): MatchNode {
  checkNestingDepth(filter, limits.commandDepthMax);
  const ctx: ParseContext = {
    options,
    level: 'predicateTop',
    banSpecialFeatures: options.banSpecialFeatures === true,
  };
  return withParseCollator(options.collator, () => parseDocument(filter, ctx));
}

/**
 * Refuses a filter nested deeper than a command may be, before any recursion. mongod has no
 * match-specific limit (SERVER-79161): a deeper request never gets past BSON validation,
 * which answers Overflow with this message.
 */
function checkNestingDepth(root: BsonDocument, max: number): void {
  const stack: Array<[BsonValue, number]> = [[root, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [value, depth] = item;
    if (depth > max)
      fail(ErrorCode.Overflow, `BSONObj exceeded maximum nested object depth: ${max}`);
    const children = isArray(value)
      ? value
      : isPlainDocument(value)
        ? Object.values(value)
        : undefined;
    if (children === undefined) continue;
    for (const child of children) {
      if (isArray(child) || isPlainDocument(child)) stack.push([child, depth + 1]);
    }
  }
}

function topLevelHint(name: string): string {
  return name === '$not'
    ? '. If you are trying to negate an entire expression, use $nor.'
    : ". If you have a field name that starts with a '$' symbol, consider using $getField or $setField.";
}

function parseDocument(doc: BsonDocument, ctx: ParseContext): MatchNode {
  const children: MatchNode[] = [];
  const fieldCtx: ParseContext =
    ctx.level === 'predicateTop' ? { ...ctx, level: 'documentTop' } : ctx;
  for (const [key, value] of Object.entries(doc)) {
    if (key.startsWith('$')) {
      const op = topLevelOperators.get(key);
      if (op === undefined)
        fail(ErrorCode.BadValue, `unknown top level operator: ${key}${topLevelHint(key)}`);
      const node = op.parse(value, ctx, subParser);
      if (node !== null) children.push(node);
      continue;
    }
    children.push(...parseField(key, value, fieldCtx));
  }
  return andOf(children);
}

function parseField(path: string, value: BsonValue, ctx: ParseContext): MatchNode[] {
  if (path.split('.').length > FIELD_PATH_COMPONENTS_MAX)
    fail(ErrorCode.Location5729100, 'FieldPath is too long');
  if (isExpressionDocument(value, false)) return parseOperatorDocument(path, value, ctx);
  if (value instanceof BSONRegExp) return [regexNode(path, value.pattern, value.options)];
  return [comparisonNode('eq', path, value)];
}

function parseOperatorDocument(
  path: string,
  operatorDoc: BsonDocument,
  ctx: ParseContext,
): MatchNode[] {
  const nodes: MatchNode[] = [];
  for (const [name, arg] of Object.entries(operatorDoc)) {
    const op = pathOperators.get(name);
    if (op === undefined) {
      if (name === '$where') fail(ErrorCode.BadValue, '$where cannot be applied to a field');
      fail(ErrorCode.BadValue, `unknown operator: ${name}`);
    }
    const node = op.parse({ path, arg, operatorDoc, ctx, parser: subParser });
    if (node !== null) nodes.push(node);
  }
  return nodes;
}
