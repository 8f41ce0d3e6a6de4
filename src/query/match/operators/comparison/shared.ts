// Parsing shared by the comparison family.

import { BSONRegExp } from '../../../../bson/types.js';
import type { BsonValue } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { inTest } from '../../compare.js';
import type { ComparisonOp } from '../../compare.js';
import { isExpressionDocument } from '../../expression-document.js';
import type { PathValue } from '../../../../bson/path.js';
import { comparisonNode, pathNode, simpleTest } from '../../nodes.js';
import { regexValueTest } from '../../regex.js';
import type { PathNode, RegexOperand } from '../../types.js';
import type { PathOperator } from '../registry.js';

/** $lt $lte $gt $gte: a regex operand is refused (only equality may take one). */
export function orderedComparison(name: string, op: Exclude<ComparisonOp, 'eq'>): PathOperator {
  return {
    name,
    parse({ path, arg }) {
      const node = comparisonNode(op, path, arg);
      if (arg instanceof BSONRegExp)
        fail(ErrorCode.BadValue, `Can't have RegEx as arg to predicate over field '${path}'.`);
      return node;
    },
  };
}

/** The list of $in / $nin: values and regexes; nested operators and undefined refused. */
export function parseInList(name: string, path: string, arg: BsonValue): PathNode {
  if (!Array.isArray(arg)) fail(ErrorCode.BadValue, `${name} needs an array`);
  const values: BsonValue[] = [];
  const regexes: RegexOperand[] = [];
  const regexTests: Array<(v: PathValue) => boolean> = [];
  for (const v of arg) {
    if (isExpressionDocument(v, false)) fail(ErrorCode.BadValue, 'cannot nest $ under $in');
    if (v instanceof BSONRegExp) {
      regexes.push({ pattern: v.pattern, flags: v.options });
      regexTests.push(regexValueTest(v.pattern, v.options));
    } else {
      values.push(v);
    }
  }
  if (values.some((v) => v === undefined))
    fail(ErrorCode.BadValue, 'InMatchExpression equality cannot be undefined');
  return pathNode(path, { kind: 'in', values, regexes }, simpleTest(inTest(values, regexTests)));
}

/** An $in node from already validated values and regexes (the $or → $in rewrite). */
export function inNode(path: string, values: BsonValue[], regexes: RegexOperand[]): PathNode {
  const regexTests = regexes.map((r) => regexValueTest(r.pattern, r.flags));
  return pathNode(path, { kind: 'in', values, regexes }, simpleTest(inTest(values, regexTests)));
}
