// $jsonSchema: MongoDB's subset of JSON Schema draft 4, plus bsonType. mongod translates a
// schema into match expressions (src/mongo/db/matcher/schema/json_schema_parser.cpp); here a
// schema compiles into a direct check over values with the same meaning: no implicit array
// traversal, restriction keywords apply only to values of their type, the top-level schema
// applies to the document itself. Keywords are validated in mongod's order, so the first
// error reported for a bad schema is the one mongod reports.
//
// Property names are taken literally (a property "a.b" names a field called "a.b").

import { hasOwn } from '../../../bson/document.js';
import type { BsonDocument, BsonValue } from '../../../bson/types.js';
import { isArray } from '../../../bson/types.js';
import { ErrorCode, fail } from '../../../errors.js';
import { TypeSetBuilder, bsonTypeAliases, jsonTypeAliases, typeSetHas } from '../type-set.js';
import type { TypeSet } from '../type-set.js';
import { arrayKeywords } from './array.js';
import { logicalKeywords } from './logical.js';
import { objectKeywords } from './object.js';
import { scalarKeywords } from './scalar.js';
import { failedToParse, typeMismatch } from './shared.js';
import type { Check } from './shared.js';

const KEYWORDS = new Set([
  'additionalItems',
  'additionalProperties',
  'allOf',
  'anyOf',
  'bsonType',
  'dependencies',
  'description',
  'encrypt',
  'encryptMetadata',
  'enum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'items',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'multipleOf',
  'not',
  'oneOf',
  'pattern',
  'patternProperties',
  'properties',
  'required',
  'title',
  'type',
  'uniqueItems',
]);
const UNSUPPORTED = new Set(['$ref', '$schema', 'default', 'definitions', 'format', 'id']);

/** Compiles a top-level schema into a test over documents. */
export function compileJsonSchema(schema: BsonDocument): (doc: BsonDocument) => boolean {
  const check = compileSchema(schema, true);
  return (doc) => check(doc);
}

function checkKeywords(schema: BsonDocument): void {
  for (const key of Object.keys(schema)) {
    if (KEYWORDS.has(key)) continue;
    if (UNSUPPORTED.has(key))
      failedToParse(`$jsonSchema keyword '${key}' is not currently supported`);
    failedToParse(`Unknown $jsonSchema keyword: ${key}`);
  }
  for (const key of ['description', 'title']) {
    if (hasOwn(schema, key) && typeof schema[key] !== 'string')
      typeMismatch(`$jsonSchema keyword '${key}' must be of type string`);
  }
}

function parseSchemaTypes(keyword: 'type' | 'bsonType', arg: BsonValue): TypeSet {
  if (typeof arg !== 'string' && !isArray(arg)) {
    typeMismatch(`$jsonSchema keyword '${keyword}' must be either a string or an array of strings`);
  }
  const names = typeof arg === 'string' ? [arg] : arg;
  const seen = new Set<string>();
  const builder = new TypeSetBuilder();
  for (const name of names) {
    if (typeof name !== 'string')
      typeMismatch(`$jsonSchema keyword '${keyword}' array elements must be strings`);
    if (name === 'integer') failedToParse("$jsonSchema type 'integer' is not currently supported.");
    if (seen.has(name))
      failedToParse(`$jsonSchema keyword '${keyword}' has duplicate value: ${name}`);
    seen.add(name);
  }
  for (const name of [...seen].sort())
    builder.addAlias(name, keyword === 'type' ? jsonTypeAliases : bsonTypeAliases);
  if (builder.isEmpty)
    failedToParse(`$jsonSchema keyword '${keyword}' must name at least one type`);
  return builder.build();
}

function statedTypes(get: (k: string) => BsonValue | undefined): TypeSet | undefined {
  const type = get('type');
  const bsonType = get('bsonType');
  const encrypt = get('encrypt');
  if (type !== undefined && bsonType !== undefined)
    failedToParse("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
  for (const [name, arg] of [
    ['type', type],
    ['bsonType', bsonType],
  ] as const) {
    if (arg !== undefined && encrypt !== undefined) {
      failedToParse(
        `$jsonSchema keyword 'encrypt' cannot be used in conjunction with '${name}', 'encrypt' implies type 'bsonType::BinData'`,
      );
    }
  }
  if (type !== undefined) return parseSchemaTypes('type', type);
  if (bsonType !== undefined) return parseSchemaTypes('bsonType', bsonType);
  return undefined;
}

function compileSchema(schema: BsonDocument, root: boolean): Check {
  checkKeywords(schema);
  const get = (k: string): BsonValue | undefined => (hasOwn(schema, k) ? schema[k] : undefined);
  const types = statedTypes(get);
  const checks: Check[] = [
    ...scalarKeywords(get, root),
    ...arrayKeywords(get, root, compileSchema),
  ];
  if (get('encrypt') !== undefined || get('encryptMetadata') !== undefined) {
    fail(
      ErrorCode.NotImplemented,
      "$jsonSchema keywords 'encrypt' and 'encryptMetadata' are not implemented",
    );
  }
  checks.push(
    ...objectKeywords(get, root, compileSchema),
    ...logicalKeywords(get, root, compileSchema),
  );
  if (types !== undefined) {
    // A stored document is an object: a top-level schema stating another type matches nothing.
    if (root && !types.types.has('object')) return () => false;
    if (!root) checks.unshift((v) => typeSetHas(types, v));
  }
  return (v) => checks.every((c) => c(v));
}
