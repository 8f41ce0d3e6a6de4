// $jsonSchema keywords on objects: required, properties, patternProperties,
// additionalProperties, minProperties, maxProperties, dependencies. At the top level they apply
// to the document itself; below it, only to values that are objects.

import type { MISSING } from '../../../bson/path.js';
import { isMissing } from '../../../bson/path.js';
import { isArray, isPlainDocument } from '../../../bson/types.js';
import type { BsonDocument, BsonValue } from '../../../bson/types.js';
import { integerOrFail, parseIntegerToNonNegativeLong } from '../numbers.js';
import { compileRegex } from '../regex.js';
import type { GuardedRegex } from '../regex-guard.js';
import type { SchemaCompiler } from './array.js';
import { failedToParse, field, objectOf, restrict, typeMismatch, typeNameOf } from './shared.js';
import type { Check } from './shared.js';

type ObjectCheck = (doc: BsonDocument) => boolean;

function parseRequired(arg: BsonValue): Set<string> {
  if (!isArray(arg))
    typeMismatch(
      `$jsonSchema keyword 'required' must be an array, but found an element of type ${typeNameOf(arg)}`,
    );
  const names = arg.map((n) => {
    if (typeof n !== 'string') {
      typeMismatch(
        `$jsonSchema keyword 'required' must be an array of strings, but found an element of type: ${typeNameOf(n)}`,
      );
    }
    return n;
  });
  if (names.length === 0) failedToParse("$jsonSchema keyword 'required' cannot be an empty array");
  const set = new Set(names);
  if (set.size !== names.length)
    failedToParse("$jsonSchema keyword 'required' array cannot contain duplicate values");
  return set;
}

function propertiesCheck(
  arg: BsonValue,
  required: ReadonlySet<string>,
  compile: SchemaCompiler,
): ObjectCheck {
  if (!isPlainDocument(arg)) typeMismatch("$jsonSchema keyword 'properties' must be an object");
  const props = Object.entries(arg).map(([name, schema]) => {
    if (!isPlainDocument(schema))
      typeMismatch(`Nested schema for $jsonSchema property '${name}' must be an object`);
    return { name, check: compile(schema, false), required: required.has(name) };
  });
  return (doc) =>
    props.every(({ name, check, required: isRequired }) => {
      const v = field(doc, name);
      return (!isRequired && isMissing(v)) || check(v);
    });
}

/**
 * patternProperties + additionalProperties (mongod's $_internalSchemaAllowedProperties): a
 * field matching patterns must satisfy each of their schemas; a field neither listed in
 * `properties` nor matching a pattern must satisfy additionalProperties.
 */
function allowedPropertiesCheck(
  propertiesArg: BsonValue | undefined,
  patternArg: BsonValue | undefined,
  additionalArg: BsonValue | undefined,
  compile: SchemaCompiler,
): ObjectCheck {
  const listed = new Set(isPlainDocument(propertiesArg) ? Object.keys(propertiesArg) : []);
  const patterns: Array<{ re: GuardedRegex; check: Check }> = [];
  if (patternArg !== undefined) {
    if (!isPlainDocument(patternArg))
      typeMismatch("$jsonSchema keyword 'patternProperties' must be an object");
    for (const [source, schema] of Object.entries(patternArg)) {
      if (!isPlainDocument(schema)) {
        typeMismatch(
          `$jsonSchema keyword 'patternProperties' has property '${source}' which is not an object`,
        );
      }
      patterns.push({ re: compileRegex(source, '', '$jsonSchema'), check: compile(schema, false) });
    }
  }
  let otherwise: Check = () => true;
  if (additionalArg !== undefined) {
    if (typeof additionalArg === 'boolean') otherwise = () => additionalArg;
    else if (isPlainDocument(additionalArg)) otherwise = compile(additionalArg, false);
    else typeMismatch("$jsonSchema keyword 'additionalProperties' must be an object or a boolean");
  }
  return (doc) => {
    for (const [name, v] of Object.entries(doc)) {
      let checkOtherwise = !listed.has(name);
      for (const p of patterns) {
        if (!p.re.test(name)) continue;
        checkOtherwise = false;
        if (!p.check(v)) return false;
      }
      if (checkOtherwise && !otherwise(v)) return false;
    }
    return true;
  };
}

function countKeyword(
  name: string,
  arg: BsonValue,
  holds: (count: number, n: number) => boolean,
): ObjectCheck {
  const n = Number(integerOrFail(parseIntegerToNonNegativeLong(name, arg)));
  return (doc) => holds(Object.keys(doc).length, n);
}

function propertyDependency(name: string, arg: BsonValue[]): ObjectCheck {
  const where = `in $jsonSchema keyword 'dependencies'`;
  if (arg.length === 0) failedToParse(`property '${name}' ${where} cannot be an empty array`);
  const needed = new Set<string>();
  for (const d of arg) {
    if (typeof d !== 'string')
      typeMismatch(
        `array '${name}' ${where} can only contain strings, but found element of type: ${typeNameOf(d)}`,
      );
    if (needed.has(d)) failedToParse(`array '${name}' ${where} contains duplicate element: ${d}`);
    needed.add(d);
  }
  return (doc) =>
    isMissing(field(doc, name)) || [...needed].every((d) => !isMissing(field(doc, d)));
}

/** dependencies: when a field is present, more fields must be (array) or the whole value must satisfy a schema (object). */
function dependenciesCheck(arg: BsonValue, root: boolean, compile: SchemaCompiler): ObjectCheck {
  if (!isPlainDocument(arg)) typeMismatch("$jsonSchema keyword 'dependencies' must be an object");
  const checks = Object.entries(arg).map(([name, dep]): ObjectCheck => {
    if (isArray(dep)) return propertyDependency(name, dep);
    if (!isPlainDocument(dep)) {
      typeMismatch(
        `property '${name}' in $jsonSchema keyword 'dependencies' must be either an object or an array`,
      );
    }
    const schema = compile(dep, root);
    return (doc) => isMissing(field(doc, name)) || schema(doc);
  });
  return (doc) => checks.every((c) => c(doc));
}

export function objectKeywords(
  get: (k: string) => BsonValue | undefined,
  root: boolean,
  compile: SchemaCompiler,
): Check[] {
  const checks: ObjectCheck[] = [];
  const requiredArg = get('required');
  const required = requiredArg === undefined ? new Set<string>() : parseRequired(requiredArg);
  const properties = get('properties');
  if (properties !== undefined) checks.push(propertiesCheck(properties, required, compile));
  const patternProperties = get('patternProperties');
  const additionalProperties = get('additionalProperties');
  if (patternProperties !== undefined || additionalProperties !== undefined) {
    checks.push(
      allowedPropertiesCheck(properties, patternProperties, additionalProperties, compile),
    );
  }
  if (required.size > 0)
    checks.push((doc) => [...required].every((n) => !isMissing(field(doc, n))));
  const minProperties = get('minProperties');
  if (minProperties !== undefined)
    checks.push(countKeyword('minProperties', minProperties, (c, n) => c >= n));
  const maxProperties = get('maxProperties');
  if (maxProperties !== undefined)
    checks.push(countKeyword('maxProperties', maxProperties, (c, n) => c <= n));
  const dependencies = get('dependencies');
  if (dependencies !== undefined) checks.push(dependenciesCheck(dependencies, root, compile));
  if (checks.length === 0) return [];
  const all = (v: BsonValue | typeof MISSING): boolean => {
    const doc = objectOf(v);
    return checks.every((c) => c(doc));
  };
  return [root ? all : restrict('object', all)];
}
