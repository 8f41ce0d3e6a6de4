// Array operators: $arrayElemAt $first $last $concatArrays $filter $map $reduce $in
// $indexOfArray $isArray $range $reverseArray $size $slice $zip $sortArray.

import { checkBuiltDepth } from './depth.js';
import { Int32 } from 'bson';
import { isArray, isPlainDocument } from '../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isNumeric, toDouble } from '../../bson/numeric.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { documentComparator, parseSortPattern } from '../sort-pattern.js';
import {
  compareValues,
  formatValue,
  integralValue,
  isIntegral32,
  isNullish,
  toBool,
  typeName,
  valuesEqual,
} from '../values.js';
import {
  checkArity,
  naryOperator,
  operatorExpression,
  parseOperands,
  unaryOperator,
} from './operator.js';
import { defineVariable, validateNameForUserWrite, withChildScope } from './variables.js';
import { MISSING } from './types.js';
import type { Expression, Frame, OperatorDefinition, Value } from './types.js';
import { appendAll, minMax } from '../../bson/arrays.js';

function intOf(v: Value): number {
  const n = integralValue(v);
  return n === undefined ? Math.trunc(toDouble(v as Parameters<typeof toDouble>[0])) : Number(n);
}

/** mongod's arrayElemAt helper, shared by $arrayElemAt, $first and $last. */
function elemAt(name: string, arity: number, array: Value, index: Value): Value {
  if (isNullish(array) || isNullish(index)) return null;
  if (!isArray(array))
    fail(
      ErrorCode.Location28689,
      `${name}'s ${arity === 1 ? 'argument' : 'first argument'} must be an array, but is ${typeName(array)}`,
    );
  if (!isNumeric(index))
    fail(
      ErrorCode.Location28690,
      `${name}'s second argument must be a numeric value, but is ${typeName(index)}`,
    );
  if (!isIntegral32(index))
    fail(
      ErrorCode.Location28691,
      `${name}'s second argument must be representable as a 32-bit integer: ${formatValue(index)}`,
    );
  let i = intOf(index);
  if (i < 0) {
    if (-i > array.length) return MISSING;
    i = array.length + i;
  }
  return i < array.length ? (array[i] as BsonValue) : MISSING;
}

const $arrayElemAt = naryOperator('$arrayElemAt', 2, ([a, i]) =>
  elemAt('$arrayElemAt', 2, a as Value, i as Value),
);
const $first = unaryOperator('$first', (a) => elemAt('$first', 1, a, new Int32(0)));
const $last = unaryOperator('$last', (a) => elemAt('$last', 1, a, new Int32(-1)));

const $concatArrays: OperatorDefinition = {
  name: '$concatArrays',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    const evaluate = (frame: Frame): Value => {
      const out: BsonValue[] = [];
      for (const c of children) {
        const v = c.evaluate(frame);
        if (isNullish(v)) return null;
        if (!isArray(v))
          fail(ErrorCode.Location28664, `$concatArrays only supports arrays, not ${typeName(v)}`);
        appendAll(out, v);
      }
      return out;
    };
    return operatorExpression('$concatArrays', children, evaluate);
  },
};

const $isArray = unaryOperator('$isArray', (v) => isArray(v));

const $size = unaryOperator('$size', (v) => {
  if (!isArray(v))
    fail(
      ErrorCode.Location17124,
      `The argument to $size must be an array, but was of type: ${typeName(v)}`,
    );
  return new Int32(v.length);
});

const $reverseArray = unaryOperator('$reverseArray', (v) => {
  if (isNullish(v)) return null;
  if (!isArray(v))
    fail(
      ErrorCode.Location34435,
      `The argument to $reverseArray must be an array, but was of type: ${typeName(v)}`,
    );
  return [...v].reverse();
});

const $in = naryOperator('$in', 2, ([x, arr], collator) => {
  const a = arr as Value;
  if (!isArray(a))
    fail(
      ErrorCode.Location40081,
      `$in requires an array as a second argument, found: ${typeName(a)}`,
    );
  return a.some((e) => valuesEqual(x as Value, e, collator));
});

function indexArgument(v: Value, what: string): number {
  if (!isIntegral32(v))
    fail(
      ErrorCode.Location40096,
      `$indexOfArrayrequires an integral ${what}, found a value of type: ${typeName(v)}, with value: ${formatValue(v)}`,
    );
  const n = intOf(v);
  if (n < 0)
    fail(
      ErrorCode.Location40097,
      `$indexOfArray requires a nonnegative ${what}, found: ${formatValue(v)}`,
    );
  return n;
}

const $indexOfArray: OperatorDefinition = {
  name: '$indexOfArray',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    checkArity('$indexOfArray', children.length, [2, 4]);
    const collator = ctx.env.collator;
    const evaluate = (frame: Frame): Value => {
      const arr = (children[0] as Expression).evaluate(frame);
      if (isNullish(arr)) return null;
      if (!isArray(arr))
        fail(
          ErrorCode.Location40090,
          `$indexOfArray requires an array as a first argument, found: ${typeName(arr)}`,
        );
      const start =
        children[2] === undefined
          ? 0
          : indexArgument(children[2].evaluate(frame), 'starting index');
      const end =
        children[3] === undefined
          ? arr.length
          : Math.min(arr.length, indexArgument(children[3].evaluate(frame), 'ending index'));
      const target = (children[1] as Expression).evaluate(frame);
      for (let i = start; i < end; i++)
        if (valuesEqual(arr[i] as BsonValue, target, collator)) return new Int32(i);
      return new Int32(-1);
    };
    return operatorExpression('$indexOfArray', children, evaluate);
  },
};

const $range: OperatorDefinition = {
  name: '$range',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    checkArity('$range', children.length, [2, 3]);
    const evaluate = (frame: Frame): Value => {
      const s = (children[0] as Expression).evaluate(frame);
      const e = (children[1] as Expression).evaluate(frame);
      if (!isNumeric(s))
        fail(
          ErrorCode.Location34443,
          `$range requires a numeric starting value, found value of type: ${typeName(s)}`,
        );
      if (!isIntegral32(s))
        fail(
          ErrorCode.Location34444,
          `$range requires a starting value that can be represented as a 32-bit integer, found value: ${formatValue(s)}`,
        );
      if (!isNumeric(e))
        fail(
          ErrorCode.Location34445,
          `$range requires a numeric ending value, found value of type: ${typeName(e)}`,
        );
      if (!isIntegral32(e))
        fail(
          ErrorCode.Location34446,
          `$range requires an ending value that can be represented as a 32-bit integer, found value: ${formatValue(e)}`,
        );
      let step = 1;
      if (children[2] !== undefined) {
        const st = children[2].evaluate(frame);
        if (!isNumeric(st))
          fail(
            ErrorCode.Location34447,
            `$range requires a numeric step value, found value of type:${typeName(st)}`,
          );
        if (!isIntegral32(st))
          fail(
            ErrorCode.Location34448,
            `$range requires a step value that can be represented as a 32-bit integer, found value: ${formatValue(st)}`,
          );
        step = intOf(st);
        if (step === 0) fail(ErrorCode.Location34449, '$range requires a non-zero step value');
      }
      let cur = intOf(s);
      const end = intOf(e);
      const steps = Math.trunc((end - cur) / step);
      const length = steps >= 0 ? 1 + steps : 0;
      const bytes = 24 + length * 16;
      if (bytes >= limits.rangeMemoryBytesMax) {
        fail(
          ErrorCode.ExceededMemoryLimit,
          `$range would use too much memory (${bytes} bytes) and cannot spill to disk. Memory limit: ${limits.rangeMemoryBytesMax} bytes`,
        );
      }
      const out: BsonValue[] = [];
      while (step > 0 ? cur < end : cur > end) {
        out.push(new Int32(cur));
        cur += step;
      }
      return out;
    };
    return operatorExpression('$range', children, evaluate);
  },
};

const $slice: OperatorDefinition = {
  name: '$slice',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    checkArity('$slice', children.length, [2, 3]);
    const evaluate = (frame: Frame): Value => {
      const arr = (children[0] as Expression).evaluate(frame);
      const a2 = (children[1] as Expression).evaluate(frame);
      if (isNullish(arr) || isNullish(a2)) return null;
      if (!isArray(arr))
        fail(
          ErrorCode.Location28724,
          `First argument to $slice must be an array, but is of type: ${typeName(arr)}`,
        );
      if (!isNumeric(a2))
        fail(
          ErrorCode.Location28725,
          `Second argument to $slice must be a numeric value, but is of type: ${typeName(a2)}`,
        );
      if (!isIntegral32(a2))
        fail(
          ErrorCode.Location28726,
          `Second argument to $slice can't be represented as a 32-bit integer: ${formatValue(a2)}`,
        );
      const len = arr.length;
      if (children.length === 2) {
        const count = intOf(a2);
        return count >= 0 ? arr.slice(0, count) : arr.slice(Math.max(0, len + count));
      }
      const startInt = intOf(a2);
      const start = startInt < 0 ? Math.max(0, len + startInt) : Math.min(len, startInt);
      const c = (children[2] as Expression).evaluate(frame);
      if (isNullish(c)) return null;
      if (!isNumeric(c))
        fail(
          ErrorCode.Location28727,
          `Third argument to $slice must be numeric, but is of type: ${typeName(c)}`,
        );
      if (!isIntegral32(c))
        fail(
          ErrorCode.Location28728,
          `Third argument to $slice can't be represented as a 32-bit integer: ${formatValue(c)}`,
        );
      const count = intOf(c);
      if (count <= 0)
        fail(ErrorCode.Location28729, `Third argument to $slice must be positive: ${count}`);
      return arr.slice(start, Math.min(start + count, len));
    };
    return operatorExpression('$slice', children, evaluate);
  },
};

// ---- $filter, $map, $reduce: operators that bind variables ---------------------------------------

const $filter: OperatorDefinition = {
  name: '$filter',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(ErrorCode.Location28646, '$filter only supports an object as its argument');
    const spec = new Map<string, BsonValue>();
    for (const [k, v] of Object.entries(arg)) {
      if (k !== 'input' && k !== 'as' && k !== 'cond' && k !== 'limit')
        fail(ErrorCode.Location28647, `Unrecognized parameter to $filter: ${k}`);
      spec.set(k, v);
    }
    if (!spec.has('input')) fail(ErrorCode.Location28648, "Missing 'input' parameter to $filter");
    if (!spec.has('cond')) fail(ErrorCode.Location28650, "Missing 'cond' parameter to $filter");
    const input = ctx.parse(spec.get('input') ?? null);
    const limit = spec.has('limit') ? ctx.parse(spec.get('limit') ?? null) : undefined;
    const asName = spec.has('as') ? spec.get('as') : 'this';
    const varName = typeof asName === 'string' ? asName : String(asName);
    validateNameForUserWrite(varName);
    const child = withChildScope(ctx);
    const slot = defineVariable(ctx.env, child.scope, varName);
    const cond = child.ctx.parse(spec.get('cond') ?? null);
    const evaluate = (frame: Frame): Value => {
      const arr = input.evaluate(frame);
      if (isNullish(arr)) return null;
      if (!isArray(arr))
        fail(ErrorCode.Location28651, `input to $filter must be an array not ${typeName(arr)}`);
      let remaining = Infinity;
      if (limit !== undefined) {
        const l = limit.evaluate(frame);
        if (!isNullish(l)) {
          if (!isIntegral32(l))
            fail(
              ErrorCode.Location327391,
              `$filter: limit must be represented as a 32-bit integral value: ${formatValue(l)}`,
            );
          remaining = intOf(l);
          if (remaining <= 0)
            fail(
              ErrorCode.Location327392,
              `$filter: limit must be greater than 0: ${formatValue(l)}`,
            );
        }
      }
      const out: BsonValue[] = [];
      for (const el of arr) {
        frame.vars[slot] = el;
        if (toBool(cond.evaluate(frame))) {
          out.push(el);
          if (--remaining === 0) break;
        }
      }
      return out;
    };
    return { kind: 'operator', op: '$filter', evaluate };
  },
};

const $map: OperatorDefinition = {
  name: '$map',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(ErrorCode.Location16878, '$map only supports an object as its argument');
    const spec = new Map<string, BsonValue>();
    for (const [k, v] of Object.entries(arg)) {
      if (k !== 'input' && k !== 'as' && k !== 'in')
        fail(ErrorCode.Location16879, `Unrecognized parameter to $map: ${k}`);
      spec.set(k, v);
    }
    if (!spec.has('input')) fail(ErrorCode.Location16880, "Missing 'input' parameter to $map");
    if (!spec.has('in')) fail(ErrorCode.Location16882, "Missing 'in' parameter to $map");
    const input = ctx.parse(spec.get('input') ?? null);
    const asName = spec.has('as') ? spec.get('as') : 'this';
    const varName = typeof asName === 'string' ? asName : String(asName);
    validateNameForUserWrite(varName);
    const child = withChildScope(ctx);
    const slot = defineVariable(ctx.env, child.scope, varName);
    const each = child.ctx.parse(spec.get('in') ?? null);
    const evaluate = (frame: Frame): Value => {
      const arr = input.evaluate(frame);
      if (isNullish(arr)) return null;
      if (!isArray(arr))
        fail(ErrorCode.Location16883, `input to $map must be an array not ${typeName(arr)}`);
      return arr.map((el) => {
        frame.vars[slot] = el;
        const v = each.evaluate(frame);
        return v === MISSING ? null : v;
      });
    };
    return { kind: 'operator', op: '$map', evaluate };
  },
};

const $reduce: OperatorDefinition = {
  name: '$reduce',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location40075,
        `$reduce requires an object as an argument, found: ${typeName(arg)}`,
      );
    const child = withChildScope(ctx);
    const thisSlot = defineVariable(ctx.env, child.scope, 'this');
    const valueSlot = defineVariable(ctx.env, child.scope, 'value');
    let input: Expression | undefined;
    let initial: Expression | undefined;
    let inE: Expression | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'input') input = ctx.parse(v);
      else if (k === 'initialValue') initial = ctx.parse(v);
      else if (k === 'in') inE = child.ctx.parse(v);
      else fail(ErrorCode.Location40076, `$reduce found an unknown argument: ${k}`);
    }
    if (input === undefined)
      fail(ErrorCode.Location40077, "$reduce requires 'input' to be specified");
    if (initial === undefined)
      fail(ErrorCode.Location40078, "$reduce requires 'initialValue' to be specified");
    if (inE === undefined) fail(ErrorCode.Location40079, "$reduce requires 'in' to be specified");
    const inputE = input;
    const initialE = initial;
    const body = inE;
    const evaluate = (frame: Frame): Value => {
      const arr = inputE.evaluate(frame);
      if (isNullish(arr)) return null;
      if (!isArray(arr))
        fail(
          ErrorCode.Location40080,
          `$reduce requires that 'input' be an array, found: ${formatValue(arr)}`,
        );
      let acc = initialE.evaluate(frame);
      for (const el of arr) {
        frame.vars[thisSlot] = el;
        frame.vars[valueSlot] = acc;
        acc = body.evaluate(frame);
        // Each step may wrap the last one: stop at the depth no result can have.
        checkBuiltDepth(acc);
      }
      return acc;
    };
    return { kind: 'operator', op: '$reduce', evaluate };
  },
};

// ---- $zip, $sortArray -----------------------------------------------------------------------------

const $zip: OperatorDefinition = {
  name: '$zip',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location34460,
        `$zip only supports an object as an argument, found ${typeName(arg)}`,
      );
    let inputs: Expression[] = [];
    let defaults: Expression[] = [];
    let longest = false;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'inputs') {
        if (!isArray(v))
          fail(
            ErrorCode.Location34461,
            `inputs must be an array of expressions, found ${typeName(v)}`,
          );
        inputs = v.map((x) => ctx.parse(x));
      } else if (k === 'defaults') {
        if (!isArray(v))
          fail(
            ErrorCode.Location34462,
            `defaults must be an array of expressions, found ${typeName(v)}`,
          );
        defaults = v.map((x) => ctx.parse(x));
      } else if (k === 'useLongestLength') {
        if (typeof v !== 'boolean')
          fail(ErrorCode.Location34463, `useLongestLength must be a bool, found ${typeName(v)}`);
        longest = v;
      } else fail(ErrorCode.Location34464, `$zip found an unknown argument: ${k}`);
    }
    if (inputs.length === 0)
      fail(ErrorCode.Location34465, '$zip requires at least one input array');
    if (!longest && defaults.length > 0)
      fail(ErrorCode.Location34466, 'cannot specify defaults unless useLongestLength is true');
    if (defaults.length > 0 && defaults.length !== inputs.length)
      fail(ErrorCode.Location34467, 'defaults and inputs must have the same length');
    const evaluate = (frame: Frame): Value => {
      const arrays: BsonValue[][] = [];
      for (const e of inputs) {
        const v = e.evaluate(frame);
        if (isNullish(v)) return null;
        if (!isArray(v))
          fail(
            ErrorCode.Location34468,
            `$zip found a non-array expression in input: ${formatValue(v)}`,
          );
        arrays.push(v);
      }
      const lengths = arrays.map((a) => a.length);
      const { min, max } = minMax(lengths);
      const defs: Value[] = inputs.map((_, i) =>
        min !== max && defaults[i] !== undefined
          ? (defaults[i] as Expression).evaluate(frame)
          : null,
      );
      const n = longest ? max : min;
      const out: BsonValue[] = [];
      for (let r = 0; r < n; r++) {
        out.push(
          arrays.map((a, c) =>
            r < a.length
              ? (a[r] as BsonValue)
              : ((defs[c] === MISSING ? null : defs[c]) as BsonValue),
          ),
        );
      }
      return out;
    };
    return operatorExpression('$zip', [...inputs, ...defaults], evaluate);
  },
};

const $sortArray: OperatorDefinition = {
  name: '$sortArray',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location2942500,
        `$sortArray requires an object as an argument, found: ${typeName(arg)}`,
      );
    let input: Expression | undefined;
    let compare: ((a: BsonValue, b: BsonValue) => number) | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'input') input = ctx.parse(v);
      else if (k === 'sortBy') {
        if (isPlainDocument(v)) {
          // Fields of non-document elements are missing (null); documents sort by the pattern.
          compare = documentComparator(parseSortPattern(v as BsonDocument, ctx.env.collator));
        } else if (isNumeric(v)) {
          const d = toDouble(v);
          if (d !== 1 && d !== -1)
            fail(ErrorCode.Location2942506, 'The $sort element value must be either 1 or -1');
          const collator = ctx.env.collator;
          compare = (a, b) => d * compareValues(a, b, collator);
        } else {
          fail(
            ErrorCode.Location2942507,
            'The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields',
          );
        }
      } else fail(ErrorCode.Location2942501, `$sortArray found an unknown argument: ${k}`);
    }
    if (input === undefined)
      fail(ErrorCode.Location2942502, "$sortArray requires 'input' to be specified");
    if (compare === undefined)
      fail(ErrorCode.Location2942503, "$sortArray requires 'sortBy' to be specified");
    const inputE = input;
    const cmp = compare;
    const evaluate = (frame: Frame): Value => {
      const v = inputE.evaluate(frame);
      if (isNullish(v)) return null;
      if (!isArray(v))
        fail(
          ErrorCode.Location2942504,
          `The input argument to $sortArray must be an array, but was of type: ${typeName(v)}`,
        );
      return [...v].sort(cmp);
    };
    return operatorExpression('$sortArray', [inputE], evaluate);
  },
};

export const arrayOperators: readonly OperatorDefinition[] = [
  $arrayElemAt,
  $first,
  $last,
  $concatArrays,
  $filter,
  $map,
  $reduce,
  $in,
  $indexOfArray,
  $isArray,
  $range,
  $reverseArray,
  $size,
  $slice,
  $zip,
  $sortArray,
];
