// String operators: $concat $substr $substrBytes $substrCP $toLower $toUpper $strLenBytes
// $strLenCP $split $trim $ltrim $rtrim $indexOfBytes $indexOfCP $strcasecmp $replaceOne
// $replaceAll. mongod's strings are UTF-8 byte strings: the "Bytes" variants count UTF-8 bytes
// (and refuse to cut a character), the "CP" variants count code points, and $toLower/$toUpper
// change ASCII letters only (boost::to_lower in the C locale).

import { Int32 } from 'bson';
import { compareStrings } from '../../bson/compare.js';
import { isNumeric, toDouble } from '../../bson/numeric.js';
import { isPlainDocument } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import {
  coerceToString,
  formatValue,
  integralValue,
  isIntegral32,
  isNullish,
  typeName,
} from '../values.js';
import {
  checkArityRange,
  naryOperator,
  operatorExpression,
  parseOperands,
  unaryOperator,
} from './operator.js';
import type { Expression, Frame, OperatorDefinition, Value } from './types.js';

const $concat: OperatorDefinition = {
  name: '$concat',
  parse(arg, ctx) {
    const children = parseOperands(arg, ctx);
    const evaluate = (frame: Frame): Value => {
      let out = '';
      for (const c of children) {
        const v = c.evaluate(frame);
        if (isNullish(v)) return null;
        if (typeof v !== 'string')
          fail(ErrorCode.Location16702, `$concat only supports strings, not ${typeName(v)}`);
        out += v;
      }
      return out;
    };
    return operatorExpression('$concat', children, evaluate);
  },
};

function isContinuation(b: number | undefined): boolean {
  return b !== undefined && (b & 0xc0) === 0x80;
}

/** A numeric argument as C++'s coerceToLong (truncation toward zero). */
function toLong(v: Value): number {
  const exact = integralValue(v);
  if (exact !== undefined) return Number(exact);
  return Math.trunc(toDouble(v as Parameters<typeof toDouble>[0]));
}

function substrBytes(name: string, s: Value, lowerV: Value, lengthV: Value): Value {
  const str = Buffer.from(coerceToString(s), 'utf8');
  if (!isNumeric(lowerV))
    fail(
      ErrorCode.Location16034,
      `${name}:  starting index must be a numeric type (is BSON type ${typeName(lowerV)})`,
    );
  if (!isNumeric(lengthV))
    fail(
      ErrorCode.Location16035,
      `${name}:  length must be a numeric type (is BSON type ${typeName(lengthV)})`,
    );
  const lower = toLong(lowerV);
  if (lower < 0)
    fail(ErrorCode.Location50752, `${name}:  starting index must be non-negative (got: ${lower})`);
  const signedLength = toLong(lengthV);
  const length = signedLength < 0 ? str.length : signedLength;
  if (lower < str.length && isContinuation(str[lower])) {
    fail(
      ErrorCode.Location28656,
      `${name}:  Invalid range, starting index is a UTF-8 continuation byte.`,
    );
  }
  if (lower + length < str.length && isContinuation(str[lower + length])) {
    fail(
      ErrorCode.Location28657,
      `${name}:  Invalid range, ending index is in the middle of a UTF-8 character.`,
    );
  }
  if (lower >= str.length) return '';
  return str.subarray(lower, Math.min(str.length, lower + length)).toString('utf8');
}

function substrBytesOperator(name: string): OperatorDefinition {
  // $substr is the deprecated spelling; mongod parses it as $substrBytes and names it so.
  return naryOperator(name, 3, ([s, l, n]) =>
    substrBytes('$substrBytes', s as Value, l as Value, n as Value),
  );
}

const $substrCP = naryOperator('$substrCP', 3, ([s, l, n]) => {
  const str = [...coerceToString(s as Value)];
  const lower = l as Value;
  const len = n as Value;
  if (!isNumeric(lower))
    fail(
      ErrorCode.Location34450,
      `$substrCP: starting index must be a numeric type (is BSON type ${typeName(lower)})`,
    );
  if (!isIntegral32(lower))
    fail(
      ErrorCode.Location34451,
      `$substrCP: starting index cannot be represented as a 32-bit integral value: ${formatValue(lower)}`,
    );
  if (!isNumeric(len))
    fail(
      ErrorCode.Location34452,
      `$substrCP: length must be a numeric type (is BSON type ${typeName(len)})`,
    );
  if (!isIntegral32(len))
    fail(
      ErrorCode.Location34453,
      `$substrCP: length cannot be represented as a 32-bit integral value: ${formatValue(len)}`,
    );
  const start = toLong(lower);
  const length = toLong(len);
  if (length < 0) fail(ErrorCode.Location34454, '$substrCP: length must be a nonnegative integer.');
  if (start < 0)
    fail(ErrorCode.Location34455, '$substrCP: the starting index must be nonnegative integer.');
  return str.slice(start, start + length).join('');
});

function asciiCase(s: string, upper: boolean): string {
  return s.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) =>
    upper ? m.toUpperCase() : m.toLowerCase(),
  );
}

const $toLower = unaryOperator('$toLower', (v) => asciiCase(coerceToString(v), false));
const $toUpper = unaryOperator('$toUpper', (v) => asciiCase(coerceToString(v), true));

const $strLenBytes = unaryOperator('$strLenBytes', (v) => {
  if (typeof v !== 'string')
    fail(ErrorCode.Location34473, `$strLenBytes requires a string argument, found: ${typeName(v)}`);
  return new Int32(Buffer.byteLength(v, 'utf8'));
});

const $strLenCP = unaryOperator('$strLenCP', (v) => {
  if (typeof v !== 'string')
    fail(ErrorCode.Location34471, `$strLenCP requires a string argument, found: ${typeName(v)}`);
  let n = 0;
  for (const _ of v) n++;
  return new Int32(n);
});

const $strcasecmp = naryOperator('$strcasecmp', 2, ([a, b]) => {
  const x = asciiCase(coerceToString(a as Value), true);
  const y = asciiCase(coerceToString(b as Value), true);
  return new Int32(compareStrings(x, y));
});

const $split = naryOperator('$split', 2, ([a, b]) => {
  const input = a as Value;
  const sep = b as Value;
  if (isNullish(input) || isNullish(sep)) return null;
  if (typeof input !== 'string')
    fail(
      ErrorCode.Location40085,
      `$split requires an expression that evaluates to a string as a first argument, found: ${typeName(input)}`,
    );
  if (typeof sep !== 'string')
    fail(
      ErrorCode.Location40086,
      `$split requires an expression that evaluates to a string as a second argument, found: ${typeName(sep)}`,
    );
  if (sep.length === 0) fail(ErrorCode.Location40087, '$split requires a non-empty separator');
  return input.split(sep);
});

// ---- $trim, $ltrim, $rtrim --------------------------------------------------------------------

const DEFAULT_TRIM = new Set([
  '\0',
  ' ',
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2001',
  '\u2002',
  '\u2003',
  '\u2004',
  '\u2005',
  '\u2006',
  '\u2007',
  '\u2008',
  '\u2009',
  '\u200a',
]);

function trimOperator(name: string, left: boolean, right: boolean): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      if (!isPlainDocument(arg))
        fail(
          ErrorCode.Location50696,
          `${name} only supports an object as an argument, found ${typeName(arg)}`,
        );
      let input: Expression | undefined;
      let chars: Expression | undefined;
      for (const [k, v] of Object.entries(arg)) {
        if (k === 'input') input = ctx.parse(v);
        else if (k === 'chars') chars = ctx.parse(v);
        else fail(ErrorCode.Location50694, `${name} found an unknown argument: ${k}`);
      }
      if (input === undefined) fail(ErrorCode.Location50695, `${name} requires an 'input' field`);
      const inputE = input;
      const charsE = chars;
      const evaluate = (frame: Frame): Value => {
        const s = inputE.evaluate(frame);
        if (isNullish(s)) return null;
        if (typeof s !== 'string')
          fail(
            ErrorCode.Location50699,
            `${name} requires its input to be a string, got ${formatValue(s)} (of type ${typeName(s)}) instead.`,
          );
        let set = DEFAULT_TRIM;
        if (charsE !== undefined) {
          const c = charsE.evaluate(frame);
          if (isNullish(c)) return null;
          if (typeof c !== 'string')
            fail(
              ErrorCode.Location50700,
              `${name} requires 'chars' to be a string, got ${formatValue(c)} (of type ${typeName(c)}) instead.`,
            );
          set = new Set(c);
        }
        const cps = [...s];
        let from = 0;
        let to = cps.length;
        if (left) while (from < to && set.has(cps[from] as string)) from++;
        if (right) while (to > from && set.has(cps[to - 1] as string)) to--;
        return cps.slice(from, to).join('');
      };
      return operatorExpression(name, [inputE, charsE], evaluate);
    },
  };
}

// ---- $indexOfBytes, $indexOfCP ----------------------------------------------------------------

function indexArgument(name: string, v: Value, what: string): number {
  if (!isIntegral32(v)) {
    fail(
      ErrorCode.Location40096,
      `${name}requires an integral ${what}, found a value of type: ${typeName(v)}, with value: ${formatValue(v)}`,
    );
  }
  const n = toLong(v);
  if (n < 0)
    fail(
      ErrorCode.Location40097,
      `${name} requires a nonnegative ${what}, found: ${formatValue(v)}`,
    );
  return n;
}

function indexOfOperator(name: string, bytes: boolean): OperatorDefinition {
  const [c1, c2] = bytes
    ? [ErrorCode.Location40091, ErrorCode.Location40092]
    : [ErrorCode.Location40093, ErrorCode.Location40094];
  return {
    name,
    parse(arg, ctx) {
      const children = parseOperands(arg, ctx);
      checkArityRange(name, children.length, 2, 4);
      const evaluate = (frame: Frame): Value => {
        const s = (children[0] as Expression).evaluate(frame);
        if (isNullish(s)) return null;
        if (typeof s !== 'string')
          fail(c1, `${name} requires a string as the first argument, found: ${typeName(s)}`);
        const token = (children[1] as Expression).evaluate(frame);
        if (typeof token !== 'string')
          fail(c2, `${name} requires a string as the second argument, found: ${typeName(token)}`);
        const units: readonly string[] | Buffer = bytes ? Buffer.from(s, 'utf8') : [...s];
        const start =
          children[2] === undefined
            ? 0
            : indexArgument(name, children[2].evaluate(frame), 'starting index');
        let end = units.length;
        if (children[3] !== undefined)
          end = Math.min(end, indexArgument(name, children[3].evaluate(frame), 'ending index'));
        if (start > units.length || end < start) return new Int32(-1);
        if (bytes) {
          const buf = (units as Buffer).subarray(0, end);
          const pos = buf.indexOf(Buffer.from(token, 'utf8'), start);
          return new Int32(pos);
        }
        const cps = units as string[];
        const tok = [...token];
        if (start === 0 && cps.length === 0 && tok.length === 0) return new Int32(0);
        for (let i = start; i < end; i++) {
          let ok = i + tok.length <= cps.length;
          for (let j = 0; ok && j < tok.length; j++) ok = cps[i + j] === tok[j];
          if (ok) return new Int32(i);
        }
        return new Int32(-1);
      };
      return operatorExpression(name, children, evaluate);
    },
  };
}

// ---- $replaceOne, $replaceAll ------------------------------------------------------------------

function replaceOperator(name: string, all: boolean): OperatorDefinition {
  return {
    name,
    parse(arg, ctx) {
      if (!isPlainDocument(arg))
        fail(
          ErrorCode.Location51751,
          `${name} requires an object as an argument, found: ${typeName(arg)}`,
        );
      const parts: Record<'input' | 'find' | 'replacement', Expression | undefined> = {
        input: undefined,
        find: undefined,
        replacement: undefined,
      };
      for (const [k, v] of Object.entries(arg)) {
        if (k === 'input' || k === 'find' || k === 'replacement')
          parts[k] = ctx.parse(v as BsonValue);
        else fail(ErrorCode.Location51750, `${name} found an unknown argument: ${k}`);
      }
      const { input, find, replacement } = parts;
      if (input === undefined)
        fail(ErrorCode.Location51749, `${name} requires 'input' to be specified`);
      if (find === undefined)
        fail(ErrorCode.Location51748, `${name} requires 'find' to be specified`);
      if (replacement === undefined)
        fail(ErrorCode.Location51747, `${name} requires 'replacement' to be specified`);
      const evaluate = (frame: Frame): Value => {
        const i = input.evaluate(frame);
        const f = find.evaluate(frame);
        const r = replacement.evaluate(frame);
        if (!(typeof i === 'string' || isNullish(i)))
          fail(
            ErrorCode.Location51746,
            `${name} requires that 'input' be a string, found: ${formatValue(i)}`,
          );
        if (!(typeof f === 'string' || isNullish(f)))
          fail(
            ErrorCode.Location51745,
            `${name} requires that 'find' be a string, found: ${formatValue(f)}`,
          );
        if (!(typeof r === 'string' || isNullish(r)))
          fail(
            ErrorCode.Location51744,
            `${name} requires that 'replacement' be a string, found: ${formatValue(r)}`,
          );
        if (typeof i !== 'string' || typeof f !== 'string' || typeof r !== 'string') return null;
        if (!all) {
          const at = i.indexOf(f);
          return at < 0 ? i : i.slice(0, at) + r + i.slice(at + f.length);
        }
        // An empty 'find' matches before every character (mongod walks bytes; we walk code points).
        if (f.length === 0) return r + [...i].map((c) => c + r).join('');
        return i.split(f).join(r);
      };
      return operatorExpression(name, [input, find, replacement], evaluate);
    },
  };
}

export const stringOperators: readonly OperatorDefinition[] = [
  $concat,
  substrBytesOperator('$substr'),
  substrBytesOperator('$substrBytes'),
  $substrCP,
  $toLower,
  $toUpper,
  $strLenBytes,
  $strLenCP,
  $strcasecmp,
  $split,
  trimOperator('$trim', true, true),
  trimOperator('$ltrim', true, false),
  trimOperator('$rtrim', false, true),
  indexOfOperator('$indexOfBytes', true),
  indexOfOperator('$indexOfCP', false),
  replaceOperator('$replaceOne', false),
  replaceOperator('$replaceAll', true),
];
