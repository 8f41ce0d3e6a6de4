// $jsonSchema keywords on arrays: minItems, maxItems, uniqueItems, items, additionalItems.
// At the top level they are validated and then ignored: a stored document is not an array.

import { isArray, isPlainDocument } from '../../../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../../../bson/types.js';
import { integerOrFail, parseIntegerToNonNegativeLong } from '../numbers.js';
import { hasDuplicates, restrict, typeMismatch, typeNameOf } from './shared.js';
import type { Check } from './shared.js';

export type SchemaCompiler = (schema: BsonDocument, root: boolean) => Check;

function arrayCheck(check: (arr: BsonArray) => boolean): Check {
  return restrict('array', (v) => check(v as BsonArray));
}

/** `items` as an array: position i must satisfy schema i. Returns the checks and where additionalItems start. */
function positionalItems(arg: BsonArray, compile: SchemaCompiler): { check: Check; next: number } {
  const schemas = arg.map((s) => {
    if (!isPlainDocument(s)) {
      typeMismatch(
        `$jsonSchema keyword 'items' requires that each element of the array is an object, but found a ${typeNameOf(s)}`,
      );
    }
    return compile(s, false);
  });
  const check = arrayCheck((arr) =>
    schemas.every((c, i) => i >= arr.length || c(arr[i] as BsonValue)),
  );
  return { check, next: schemas.length };
}

function itemsKeyword(
  arg: BsonValue,
  compile: SchemaCompiler,
): { check: Check; next: number | undefined } {
  if (isArray(arg)) return positionalItems(arg, compile);
  if (!isPlainDocument(arg))
    typeMismatch(
      `$jsonSchema keyword 'items' must be an array or an object, not ${typeNameOf(arg)}`,
    );
  const each = compile(arg, false);
  return { check: arrayCheck((arr) => arr.every((el) => each(el))), next: undefined };
}

function additionalItemsKeyword(
  arg: BsonValue,
  start: number | undefined,
  compile: SchemaCompiler,
): Check | undefined {
  let each: Check;
  if (typeof arg === 'boolean') each = () => arg;
  else if (isPlainDocument(arg)) each = compile(arg, false);
  else {
    typeMismatch(
      `$jsonSchema keyword 'additionalItems' must be either an object or a boolean, but got a ${typeNameOf(arg)}`,
    );
  }
  if (start === undefined) return undefined; // only meaningful after a positional `items`
  return arrayCheck((arr) => arr.slice(start).every((el) => each(el)));
}

export function arrayKeywords(
  get: (k: string) => BsonValue | undefined,
  root: boolean,
  compile: SchemaCompiler,
): Check[] {
  const checks: Check[] = [];
  const minItems = get('minItems');
  if (minItems !== undefined) {
    const n = Number(integerOrFail(parseIntegerToNonNegativeLong('minItems', minItems)));
    checks.push(arrayCheck((arr) => arr.length >= n));
  }
  const maxItems = get('maxItems');
  if (maxItems !== undefined) {
    const n = Number(integerOrFail(parseIntegerToNonNegativeLong('maxItems', maxItems)));
    checks.push(arrayCheck((arr) => arr.length <= n));
  }
  const uniqueItems = get('uniqueItems');
  if (uniqueItems !== undefined) {
    if (typeof uniqueItems !== 'boolean')
      typeMismatch("$jsonSchema keyword 'uniqueItems' must be a boolean");
    if (uniqueItems) checks.push(arrayCheck((arr) => !hasDuplicates(arr)));
  }
  let additionalStart: number | undefined;
  const items = get('items');
  if (items !== undefined) {
    const parsed = itemsKeyword(items, compile);
    checks.push(parsed.check);
    additionalStart = parsed.next;
  }
  const additionalItems = get('additionalItems');
  if (additionalItems !== undefined) {
    const check = additionalItemsKeyword(additionalItems, additionalStart, compile);
    if (check !== undefined) checks.push(check);
  }
  return root ? [] : checks;
}
