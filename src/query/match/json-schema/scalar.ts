// $jsonSchema keywords on numbers and strings: pattern, maxLength, minLength, multipleOf,
// maximum/exclusiveMaximum, minimum/exclusiveMinimum. At the top level they are validated and
// then ignored: a stored document is never a number or a string.

import { Decimal } from 'decimal.js';
import { Decimal128, Int32, Long } from '../../../bson/types.js';
import { isNumeric } from '../../../bson/numeric.js';
import type { BsonValue, Double } from '../../../bson/types.js';
import type { PathValue } from '../../../bson/path.js';
import { comparisonTest } from '../compare.js';
import { integerOrFail, parseIntegerToNonNegativeLong } from '../numbers.js';
import { compileRegex } from '../regex.js';
import { failedToParse, restrict, typeMismatch } from './shared.js';
import type { Check } from './shared.js';

/** Decimal arithmetic wide enough for decimal128's 34 digits. */
const Dec = Decimal.clone({ precision: 60 });

/**
 * A number as mongod's numberDecimal() sees it: a double is rounded to 15 significant digits
 * (Decimal128's default conversion), so 0.3 is a multiple of 0.1 as users expect.
 */
function toDecimal(v: Int32 | Long | Double | Decimal128): Decimal {
  if (v instanceof Int32) return new Dec(v.value);
  if (v instanceof Long) return new Dec(v.toString());
  if (v instanceof Decimal128) return new Dec(v.toString());
  return Number.isFinite(v.value) ? new Dec(v.value.toPrecision(15)) : new Dec(v.value);
}

function lengthKeyword(name: string, arg: BsonValue): number {
  return Number(integerOrFail(parseIntegerToNonNegativeLong(name, arg)));
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function bound(
  name: 'maximum' | 'minimum',
  arg: BsonValue,
  exclusiveArg: BsonValue | undefined,
): Check {
  const exclusiveName = name === 'maximum' ? 'exclusiveMaximum' : 'exclusiveMinimum';
  let exclusive = false;
  if (exclusiveArg !== undefined) {
    if (typeof exclusiveArg !== 'boolean')
      typeMismatch(`$jsonSchema keyword '${exclusiveName}' must be a boolean`);
    exclusive = exclusiveArg;
  }
  if (!isNumeric(arg)) typeMismatch(`$jsonSchema keyword '${name}' must be a number`);
  const op = name === 'maximum' ? (exclusive ? 'lt' : 'lte') : exclusive ? 'gt' : 'gte';
  return restrict('number', comparisonTest(op, arg));
}

export function scalarKeywords(get: (k: string) => BsonValue | undefined, root: boolean): Check[] {
  const checks: Check[] = [];
  const pattern = get('pattern');
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') typeMismatch("$jsonSchema keyword 'pattern' must be a string");
    const re = compileRegex(pattern, '', '$jsonSchema');
    checks.push(restrict('string', (v) => re.test(v as string)));
  }
  const maxLength = get('maxLength');
  if (maxLength !== undefined) {
    const n = lengthKeyword('maxLength', maxLength);
    checks.push(restrict('string', (v) => codePoints(v as string) <= n));
  }
  const minLength = get('minLength');
  if (minLength !== undefined) {
    const n = lengthKeyword('minLength', minLength);
    checks.push(restrict('string', (v) => codePoints(v as string) >= n));
  }
  const multipleOf = get('multipleOf');
  if (multipleOf !== undefined) checks.push(multipleOfCheck(multipleOf));
  for (const name of ['maximum', 'minimum'] as const) {
    const exclusiveName = name === 'maximum' ? 'exclusiveMaximum' : 'exclusiveMinimum';
    const arg = get(name);
    if (arg !== undefined) checks.push(bound(name, arg, get(exclusiveName)));
    else if (get(exclusiveName) !== undefined) {
      failedToParse(
        `$jsonSchema keyword '${name}' must be a present if ${exclusiveName} is present`,
      );
    }
  }
  return root ? [] : checks;
}

function multipleOfCheck(arg: BsonValue): Check {
  if (!isNumeric(arg)) typeMismatch("$jsonSchema keyword 'multipleOf' must be a number");
  const divisor = toDecimal(arg);
  if (divisor.isNegative() || divisor.isZero()) {
    failedToParse("$jsonSchema keyword 'multipleOf' must have a positive value");
  }
  return restrict('number', (v: PathValue) =>
    toDecimal(v as Int32)
      .mod(divisor)
      .isZero(),
  );
}
