// $jsonSchema's logical keywords: allOf, anyOf, oneOf, not, and enum. They apply to the same
// value as the schema that contains them (the document itself at the top level).

import { compareBson } from '../../../bson/compare.js';
import { isMissing } from '../../../bson/path.js';
import { asDocument, isArray, isPlainDocument } from '../../../bson/types.js';
import type { BsonValue } from '../../../bson/types.js';
import { ErrorCode, fail } from '../../../errors.js';
import type { SchemaCompiler } from './array.js';
import { canonical, failedToParse, hasDuplicates, typeMismatch, typeNameOf } from './shared.js';
import type { Check } from './shared.js';

function schemaList(name: string, arg: BsonValue, root: boolean, compile: SchemaCompiler): Check[] {
  if (!isArray(arg)) typeMismatch(`$jsonSchema keyword '${name}' must be an array`);
  if (arg.length === 0)
    fail(ErrorCode.BadValue, `$jsonSchema keyword '${name}' must be a non-empty array`);
  return arg.map((s) => {
    if (!isPlainDocument(s))
      typeMismatch(
        `$jsonSchema keyword '${name}' must be an array of objects, but found an element of type ${typeNameOf(s)}`,
      );
    return compile(s, root);
  });
}

/** enum: equality ignoring field order; at the top level only object values can match a document. */
function enumCheck(arg: BsonValue, root: boolean): Check {
  if (!isArray(arg))
    typeMismatch(
      `$jsonSchema keyword 'enum' must be an array, but found an element of type ${typeNameOf(arg)}`,
    );
  if (arg.length === 0) failedToParse("$jsonSchema keyword 'enum' cannot be an empty array");
  if (hasDuplicates(arg))
    failedToParse("$jsonSchema keyword 'enum' array cannot contain duplicate values.");
  const candidates = (
    root ? arg.filter((v) => !isArray(v) && asDocument(v) !== undefined) : arg
  ).map(canonical);
  return (v) => !isMissing(v) && candidates.some((c) => compareBson(canonical(v), c) === 0);
}

export function logicalKeywords(
  get: (k: string) => BsonValue | undefined,
  root: boolean,
  compile: SchemaCompiler,
): Check[] {
  const checks: Check[] = [];
  const allOf = get('allOf');
  if (allOf !== undefined) {
    const list = schemaList('allOf', allOf, root, compile);
    checks.push((v) => list.every((c) => c(v)));
  }
  const anyOf = get('anyOf');
  if (anyOf !== undefined) {
    const list = schemaList('anyOf', anyOf, root, compile);
    checks.push((v) => list.some((c) => c(v)));
  }
  const oneOf = get('oneOf');
  if (oneOf !== undefined) {
    const list = schemaList('oneOf', oneOf, root, compile);
    checks.push((v) => list.filter((c) => c(v)).length === 1);
  }
  const not = get('not');
  if (not !== undefined) {
    if (!isPlainDocument(not))
      typeMismatch(
        `$jsonSchema keyword 'not' must be an object, but found an element of type ${typeNameOf(not)}`,
      );
    const inner = compile(not, root);
    checks.push((v) => !inner(v));
  }
  const en = get('enum');
  if (en !== undefined) checks.push(enumCheck(en, root));
  return checks;
}
