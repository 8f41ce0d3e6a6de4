import { arrayAsDocument } from '../../../../bson/path.js';
import type { PathValue } from '../../../../bson/path.js';
import { asDocument, isArray } from '../../../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { compileDocumentTest, compileValueTest } from '../../evaluate.js';
import { isExpressionDocument } from '../../expression-document.js';
import { pathNode } from '../../nodes.js';
import type { MatchDetails, MatchNode, ParseContext } from '../../types.js';
import type { PathOperator, SubParser } from '../registry.js';

/** An array element seen as a document by the object form: subdocuments, and arrays by position. */
function elementAsDocument(el: BsonValue): BsonDocument | undefined {
  return isArray(el) ? arrayAsDocument(el) : asDocument(el);
}

/** The first position whose element passes, recorded as the positional key. */
function firstMatch(
  v: PathValue,
  details: MatchDetails | undefined,
  passes: (el: BsonValue) => boolean,
): boolean {
  if (!isArray(v)) return false;
  for (let k = 0; k < v.length; k++) {
    if (!passes(v[k] as BsonValue)) continue;
    if (details) details.elemMatchKey = String(k);
    return true;
  }
  return false;
}

/**
 * {a: {$elemMatch: {...}}}: some element of the array `a` satisfies every condition. The
 * value form ({$gt: 1, $lt: 5}) tests elements directly; the object form ({b: 1, c: 2}) is a
 * filter applied to each subdocument element. The array is not traversed further.
 */
export function parseElemMatch(
  path: string,
  arg: BsonValue,
  ctx: ParseContext,
  parser: SubParser,
): MatchNode {
  const obj = isArray(arg) ? undefined : asDocument(arg);
  if (obj === undefined) fail(ErrorCode.BadValue, '$elemMatch needs an Object');
  const sub: ParseContext = { ...ctx, level: 'subDocument' };
  const first = Object.keys(obj)[0] ?? '';
  if (isExpressionDocument(arg, true) && !parser.isTopLevelOperator(first)) {
    const children = parser.operators('', obj, sub);
    const tests = children.map(compileValueTest);
    const passes = (el: BsonValue): boolean => tests.every((t) => t(el, undefined));
    return pathNode(
      path,
      { kind: 'elemMatchValue', children },
      (v, d) => firstMatch(v, d, passes),
      'whole',
    );
  }
  const child = parser.filter(obj, sub);
  const docTest = compileDocumentTest(child);
  const passes = (el: BsonValue): boolean => {
    const doc = elementAsDocument(el);
    return doc !== undefined && docTest(doc, undefined);
  };
  return pathNode(
    path,
    { kind: 'elemMatchObject', child },
    (v, d) => firstMatch(v, d, passes),
    'whole',
  );
}

export const $elemMatch: PathOperator = {
  name: '$elemMatch',
  parse: ({ path, arg, ctx, parser }) => parseElemMatch(path, arg, ctx, parser),
};
