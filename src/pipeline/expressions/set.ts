// Set operators: $setUnion $setIntersection $setDifference $setEquals $setIsSubset
// $anyElementTrue $allElementsTrue. Arrays are sets under the BSON total order (1 and 1.0 are
// one element). Like mongod's ordered ValueSet, $setUnion and $setIntersection return their
// elements sorted; $setDifference keeps the first array's order.

import { isArray } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { compareValues, isNullish, toBool, typeName } from '../values.js';
import type { Collator } from '../../bson/collation.js';
import { naryOperator, operatorExpression, parseOperands, unaryOperator } from './operator.js';
import type { Frame, OperatorDefinition, Value } from './types.js';
import { appendAll } from '../../bson/arrays.js';
import { sortedBson } from '../../bson/compare.js';

/** Sorted, duplicates removed. */
function toSet(values: readonly BsonValue[], collator: Collator | undefined): BsonValue[] {
  const sorted = sortedBson(values, collator);
  const out: BsonValue[] = [];
  for (const v of sorted)
    if (out.length === 0 || compareValues(out[out.length - 1] as BsonValue, v, collator) !== 0)
      out.push(v);
  return out;
}

function has(set: readonly BsonValue[], v: BsonValue, collator: Collator | undefined): boolean {
  // Binary search in a sorted set.
  let lo = 0;
  let hi = set.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compareValues(set[mid] as BsonValue, v, collator);
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

const $setUnion: OperatorDefinition = {
  name: '$setUnion',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    const collator = ctx.env.collator;
    const evaluate = (frame: Frame): Value => {
      const all: BsonValue[] = [];
      for (const c of children) {
        const v = c.evaluate(frame);
        if (isNullish(v)) return null;
        if (!isArray(v))
          fail(
            ErrorCode.Location17043,
            `All operands of $setUnion must be arrays. One argument is of type: ${typeName(v)}`,
          );
        appendAll(all, v);
      }
      return toSet(all, collator);
    };
    return operatorExpression('$setUnion', children, evaluate);
  },
};

const $setIntersection: OperatorDefinition = {
  name: '$setIntersection',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    const collator = ctx.env.collator;
    const evaluate = (frame: Frame): Value => {
      let current: BsonValue[] | undefined;
      for (const c of children) {
        const v = c.evaluate(frame);
        if (isNullish(v)) return null;
        if (!isArray(v))
          fail(
            ErrorCode.Location17047,
            `All operands of $setIntersection must be arrays. One argument is of type: ${typeName(v)}`,
          );
        if (current === undefined) current = toSet(v, collator);
        else if (current.length > 0) {
          const next = toSet(v, collator);
          current = current.filter((x) => has(next, x, collator));
        }
      }
      return current ?? [];
    };
    return operatorExpression('$setIntersection', children, evaluate);
  },
};

const $setDifference = naryOperator('$setDifference', 2, ([a, b], collator) => {
  const lhs = a as Value;
  const rhs = b as Value;
  if (isNullish(lhs) || isNullish(rhs)) return null;
  if (!isArray(lhs))
    fail(
      ErrorCode.Location17048,
      `both operands of $setDifference must be arrays. First argument is of type: ${typeName(lhs)}`,
    );
  if (!isArray(rhs))
    fail(
      ErrorCode.Location17049,
      `both operands of $setDifference must be arrays. Second argument is of type: ${typeName(rhs)}`,
    );
  const seen = toSet(rhs, collator);
  const out: BsonValue[] = [];
  for (const v of lhs) {
    if (has(seen, v, collator)) continue;
    out.push(v);
    seen.push(v);
    seen.sort((x, y) => compareValues(x, y, collator));
  }
  return out;
});

const $setEquals: OperatorDefinition = {
  name: '$setEquals',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    if (children.length < 2)
      fail(
        ErrorCode.Location17045,
        `$setEquals needs at least two arguments had: ${children.length}`,
      );
    const collator = ctx.env.collator;
    const evaluate = (frame: Frame): Value => {
      let first: BsonValue[] | undefined;
      let result = true;
      children.forEach((c, i) => {
        const v = c.evaluate(frame);
        if (!isArray(v))
          fail(
            ErrorCode.Location17044,
            `All operands of $setEquals must be arrays. ${i + 1}-th argument is of type: ${typeName(v)}`,
          );
        const s = toSet(v, collator);
        if (first === undefined) first = s;
        else if (result)
          result =
            s.length === first.length &&
            s.every(
              (x, k) => compareValues(x, (first as BsonValue[])[k] as BsonValue, collator) === 0,
            );
      });
      return result;
    };
    return operatorExpression('$setEquals', children, evaluate);
  },
};

const $setIsSubset = naryOperator('$setIsSubset', 2, ([a, b], collator) => {
  const lhs = a as Value;
  const rhs = b as Value;
  if (!isArray(lhs))
    fail(
      ErrorCode.Location17046,
      `both operands of $setIsSubset must be arrays. First argument is of type: ${typeName(lhs)}`,
    );
  if (!isArray(rhs))
    fail(
      ErrorCode.Location17042,
      `both operands of $setIsSubset must be arrays. Second argument is of type: ${typeName(rhs)}`,
    );
  const set = toSet(rhs, collator);
  return lhs.every((v) => has(set, v, collator));
});

const $anyElementTrue = unaryOperator('$anyElementTrue', (v) => {
  if (!isArray(v))
    fail(
      ErrorCode.Location17041,
      `$anyElementTrue's argument must be an array, but is ${typeName(v)}`,
    );
  return v.some((x) => toBool(x));
});

const $allElementsTrue = unaryOperator('$allElementsTrue', (v) => {
  if (!isArray(v))
    fail(
      ErrorCode.Location17040,
      `$allElementsTrue's argument must be an array, but is ${typeName(v)}`,
    );
  return v.every((x) => toBool(x));
});

export const setOperators: readonly OperatorDefinition[] = [
  $setUnion,
  $setIntersection,
  $setDifference,
  $setEquals,
  $setIsSubset,
  $anyElementTrue,
  $allElementsTrue,
];
