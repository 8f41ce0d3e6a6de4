// Collection document validation, as mongod 7.0: the `validator` (a query filter, $expr and
// $jsonSchema included; $where, $text and the $near family refused), `validationLevel`
// (off | strict | moderate) and `validationAction` (error | warn) stored in the collection's
// options. Every insert and every new version of an updated document is checked unless the
// command says `bypassDocumentValidation: true` (the write unit, src/catalog/write-unit.ts,
// calls the DocumentValidator made here for every document it stores); a failure is
// DocumentValidationFailure (121)
// with an `errInfo` in the shape of mongod's doc_validation_error (see generateDetails), or
// under 'warn' a log line (id 20294) that names the document by its _id only.

import { EJSON, Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { bsonTypeName, isArray, isPlainDocument } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import { MISSING } from '../../bson/path.js';
import type { Collection } from '../../catalog/collection.js';
import type { DocumentValidator } from '../../catalog/document-validator.js';
import type { Collator } from '../../bson/collation.js';
import { CommandError, ErrorCode } from '../../errors.js';
import type { Logger } from '../../log.js';
import { commandExpressions, compileQueryFilter } from '../query-language.js';
import type { DocumentFilter } from '../../query/exec/stages.js';
import { collectionCollation } from './operation-env.js';

const validationLevels = ['off', 'strict', 'moderate'] as const;
const validationActions = ['error', 'warn'] as const;

/** Checks validationLevel / validationAction as mongod's IDL enums do (BadValue). */
export function checkValidationEnums(
  command: string,
  args: { validationLevel?: string | undefined; validationAction?: string | undefined },
): void {
  const check = (field: string, value: string | undefined, allowed: readonly string[]): void => {
    if (value !== undefined && !allowed.includes(value)) {
      throw new CommandError(
        ErrorCode.BadValue,
        `Enumeration value '${value}' for field '${command}.${field}' is not a valid value.`,
      );
    }
  };
  check('validationLevel', args.validationLevel, validationLevels);
  check('validationAction', args.validationAction, validationActions);
}

const internalDbs = new Set(['admin', 'local', 'config']);
/** Match operators a validator may not use (mongod parses validators without kText, kGeoNear, kJavascript). */
const refusedTopLevel: Record<string, string> = {
  $where: '$where is not allowed in this context',
  $text: '$text is not allowed in this context',
};
const refusedGeo = new Set(['$near', '$nearSphere', '$geoNear']);
const geoMessage = '$geoNear, $near, and $nearSphere are not allowed in this context';

function failParse(code: number, message: string): never {
  throw new CommandError(code, `Parsing of collection validator failed :: caused by :: ${message}`);
}

/** Refuses the operators a validator may not contain, through $and/$or/$nor, $not and $elemMatch. */
function checkAllowedOperators(filter: BsonDocument): void {
  for (const [key, value] of Object.entries(filter)) {
    const refused = refusedTopLevel[key];
    if (refused !== undefined) failParse(ErrorCode.BadValue, refused);
    if ((key === '$and' || key === '$or' || key === '$nor') && isArray(value)) {
      for (const clause of value) if (isPlainDocument(clause)) checkAllowedOperators(clause);
    } else if (!key.startsWith('$') && isPlainDocument(value)) {
      checkOperatorDocument(value);
    }
  }
}

function checkOperatorDocument(ops: BsonDocument): void {
  for (const [op, operand] of Object.entries(ops)) {
    if (refusedGeo.has(op)) failParse(ErrorCode.BadValue, geoMessage);
    if (op === '$not' && isPlainDocument(operand)) checkOperatorDocument(operand);
    if (op === '$elemMatch' && isPlainDocument(operand)) {
      checkAllowedOperators(operand);
      checkOperatorDocument(operand);
    }
  }
}

/**
 * Parses a validator for create / collMod, with mongod's refusals: none on system
 * collections or the internal databases (InvalidOptions), parse errors prefixed with
 * "Parsing of collection validator failed". An empty validator is no validator.
 */
export function checkValidator(
  db: string,
  name: string,
  validator: BsonDocument,
  collator: Collator | undefined,
): void {
  if (Object.keys(validator).length === 0) return;
  if (name.startsWith('system.')) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `Document validators not allowed on system collection ${db}.${name}`,
    );
  }
  if (internalDbs.has(db)) {
    throw new CommandError(
      ErrorCode.InvalidOptions,
      `Document validators are not allowed on collection ${db}.${name} in the ${db} internal database`,
    );
  }
  checkAllowedOperators(validator);
  try {
    compileValidator(validator, collator);
  } catch (e) {
    if (e instanceof CommandError) failParse(e.code, e.message);
    throw e;
  }
}

function compileValidator(
  validator: BsonDocument,
  collator: Collator | undefined,
): DocumentFilter | undefined {
  return compileQueryFilter(validator, {
    collator,
    expressions: commandExpressions({ collator, forbidRandom: true }),
  });
}

interface CompiledValidator {
  readonly filter: DocumentFilter | undefined;
  readonly spec: BsonDocument;
  readonly collator: Collator | undefined;
}

/** Compiled once per stored options document (a collMod stores a new one). */
const compiled = new WeakMap<BsonDocument, CompiledValidator>();

function validatorOf(coll: Collection): CompiledValidator | undefined {
  const options = coll.meta.options;
  const spec = options['validator'];
  if (!isPlainDocument(spec) || Object.keys(spec).length === 0) return undefined;
  let v = compiled.get(options);
  if (v === undefined) {
    const collator = collectionCollation(coll);
    v = { spec, collator, filter: compileValidator(spec, collator) };
    compiled.set(options, v);
  }
  return v;
}

function passes(v: CompiledValidator, doc: BsonDocument): boolean {
  if (v.filter === undefined) return true;
  try {
    return v.filter.matches(doc);
  } catch {
    // As mongod: an error while matching (an $expr that throws) is a validation failure.
    return false;
  }
}

/** Whether a stored document passes its collection's validator (validate's schema check). */
export function conformsToValidator(coll: Collection, doc: BsonDocument): boolean {
  const v = validatorOf(coll);
  return v === undefined || passes(v, doc);
}

/**
 * A fixed validator (a time-series buckets collection's bucket schema) checked against `doc`:
 * the DocumentValidationFailure mongod reports, or undefined when the document passes.
 */
export function fixedValidatorFailure(
  spec: BsonDocument,
  doc: BsonDocument,
): CommandError | undefined {
  let v = fixedValidators.get(spec);
  if (v === undefined) {
    v = { spec, collator: undefined, filter: compileValidator(spec, undefined) };
    fixedValidators.set(spec, v);
  }
  if (passes(v, doc)) return undefined;
  const errInfo: BsonDocument = {
    failingDocumentId: getOwn(doc, '_id') ?? null,
    details: generateDetails(v, doc),
  };
  return new CommandError(ErrorCode.DocumentValidationFailure, 'Document failed validation', {
    info: { errInfo },
  });
}

const fixedValidators = new WeakMap<BsonDocument, CompiledValidator>();

/** The catalog's document validator; 'warn' failures are logged to `logger`. */
export function documentValidator(logger: Logger): DocumentValidator {
  return { check: (coll, doc, before) => validateDocument(coll, doc, before, logger) };
}

/**
 * Checks a document about to be stored. `before` is the stored version an update replaces
 * (undefined for an insert or upsert): under 'moderate', a document that already failed is
 * not checked. Throws DocumentValidationFailure, or logs under 'warn'.
 */
function validateDocument(
  coll: Collection,
  doc: BsonDocument,
  before: BsonDocument | undefined,
  logger: Logger,
): void {
  const options = coll.meta.options;
  const level = options['validationLevel'] ?? 'strict';
  if (level === 'off') return;
  const v = validatorOf(coll);
  if (v === undefined || passes(v, doc)) return;
  if (level === 'moderate' && before !== undefined && !passes(v, before)) return;
  const errInfo: BsonDocument = {
    failingDocumentId: getOwn(doc, '_id') ?? null,
    details: generateDetails(v, doc),
  };
  if (options['validationAction'] === 'warn') {
    // Relaxed extended JSON, as mongod's log; the document by its _id only (no contents).
    const logged = {
      failingDocumentId: errInfo['failingDocumentId'],
      details: { operatorName: (errInfo['details'] as BsonDocument)['operatorName'] },
    };
    logger.warn('STORAGE', 20294, 'Document would fail validation', {
      namespace: `${coll.meta.db}.${coll.meta.name}`,
      document: EJSON.serialize({ _id: getOwn(doc, '_id') }, { relaxed: true }),
      errInfo: EJSON.serialize(logged, { relaxed: true }),
    });
    return;
  }
  throw new CommandError(ErrorCode.DocumentValidationFailure, 'Document failed validation', {
    info: { errInfo },
  });
}

/**
 * The `details` of errInfo, a subset of mongod's doc_validation_error: the failing clause's
 * operatorName, with specifiedAs for a field's operator or $expr (and the reason and
 * considered values of comparisons and $in, $expr's expressionResult); several top-level
 * clauses are an implicit $and listing the failing ones as clausesNotSatisfied {index,
 * details}; $jsonSchema's rules for typed properties and required. Not produced
 * (docs/compatibility.md): the other $jsonSchema rules, the details of an $expr that throws,
 * the reason / considered values of the other operators, and the clauses of explicit
 * $and / $or / $nor.
 */
function generateDetails(v: CompiledValidator, doc: BsonDocument): BsonDocument {
  const clauses = Object.entries(v.spec);
  if (clauses.length === 1) {
    const [key, value] = clauses[0] as [string, BsonValue];
    return clauseDetails(key, value, doc, v.collator);
  }
  const failing: BsonDocument[] = [];
  clauses.forEach(([key, value], index) => {
    let ok = false;
    try {
      ok = compileQueryFilter({ [key]: value }, { collator: v.collator })?.matches(doc) ?? true;
    } catch {
      ok = false;
    }
    if (!ok)
      failing.push({
        index: new Int32(index),
        details: clauseDetails(key, value, doc, v.collator),
      });
  });
  return { operatorName: '$and', clausesNotSatisfied: failing };
}

function clauseDetails(
  key: string,
  value: BsonValue,
  doc: BsonDocument,
  collator: Collator | undefined,
): BsonDocument {
  if (key === '$jsonSchema') return jsonSchemaDetails(value, doc, collator);
  if (key === '$expr') return exprDetails(value, doc, collator);
  if (key.startsWith('$')) return { operatorName: key };
  if (isPlainDocument(value)) {
    const ops = Object.keys(value);
    const first = ops[0];
    if (ops.length === 1 && first !== undefined && first.startsWith('$'))
      return pathDetails(first, key, value, doc);
    // Several operators on one field are an implicit $and.
    if (first !== undefined && first.startsWith('$')) return { operatorName: '$and' };
  }
  return pathDetails('$eq', key, value, doc);
}

const schemaTopKeywords = new Set([
  'bsonType',
  'type',
  'required',
  'properties',
  'title',
  'description',
]);
const schemaPropertyKeywords = new Set(['bsonType', 'type', 'title', 'description']);

/**
 * $jsonSchema's details for the schemas of documents with typed properties: `properties`
 * whose subschemas use only bsonType / type (with title / description) and `required`, as
 * doc_validation_error reports them (a property's failing type, the missing properties). Any
 * other schema, or one failing both rules (whose order we have not verified), gets
 * operatorName alone.
 */
function jsonSchemaDetails(
  schema: BsonValue,
  doc: BsonDocument,
  collator: Collator | undefined,
): BsonDocument {
  const bare: BsonDocument = { operatorName: '$jsonSchema' };
  if (!isPlainDocument(schema) || !Object.keys(schema).every((k) => schemaTopKeywords.has(k)))
    return bare;
  const properties = schema['properties'];
  if (
    properties !== undefined &&
    !(
      isPlainDocument(properties) &&
      Object.values(properties).every(
        (sub) =>
          isPlainDocument(sub) && Object.keys(sub).every((k) => schemaPropertyKeywords.has(k)),
      )
    )
  ) {
    return bare;
  }
  const rules: BsonDocument[] = [];
  if (isPlainDocument(properties)) {
    const failing: BsonDocument[] = [];
    for (const [name, sub] of Object.entries(properties) as Array<[string, BsonDocument]>) {
      const value = getOwn(doc, name);
      if (value === undefined) continue;
      const keyword =
        sub['bsonType'] !== undefined ? 'bsonType' : sub['type'] !== undefined ? 'type' : undefined;
      if (keyword === undefined) continue;
      const test = compileQueryFilter(
        { $jsonSchema: { properties: { [name]: { [keyword]: sub[keyword] as BsonValue } } } },
        { collator },
      );
      if (test === undefined || test.matches(doc)) continue;
      const entry: BsonDocument = { propertyName: name };
      if (sub['title'] !== undefined) entry['title'] = sub['title'];
      if (sub['description'] !== undefined) entry['description'] = sub['description'];
      entry['details'] = [
        {
          operatorName: keyword,
          specifiedAs: { [keyword]: sub[keyword] as BsonValue },
          reason: 'type did not match',
          consideredValue: value,
          consideredType: bsonTypeName(value),
        },
      ];
      failing.push(entry);
    }
    if (failing.length > 0)
      rules.push({ operatorName: 'properties', propertiesNotSatisfied: failing });
  }
  const required = schema['required'];
  if (isArray(required)) {
    const missing = required.filter(
      (name) => typeof name === 'string' && getOwn(doc, name) === undefined,
    );
    if (missing.length > 0)
      rules.push({
        operatorName: 'required',
        specifiedAs: { required },
        missingProperties: missing,
      });
  }
  if (rules.length !== 1) return bare;
  const out: BsonDocument = { operatorName: '$jsonSchema' };
  if (schema['title'] !== undefined) out['title'] = schema['title'];
  if (schema['description'] !== undefined) out['description'] = schema['description'];
  out['schemaRulesNotSatisfied'] = rules;
  return out;
}

/** $expr's details: the expression's value (none when missing), or that evaluating it failed. */
function exprDetails(
  spec: BsonValue,
  doc: BsonDocument,
  collator: Collator | undefined,
): BsonDocument {
  const base: BsonDocument = { operatorName: '$expr', specifiedAs: { $expr: spec } };
  let result: BsonValue | typeof MISSING;
  try {
    result = commandExpressions({ collator, forbidRandom: true }).compileValue(spec)(doc);
  } catch {
    return { ...base, reason: 'failed to evaluate aggregation expression' };
  }
  return result === MISSING
    ? { ...base, reason: 'expression did not match' }
    : { ...base, reason: 'expression did not match', expressionResult: result };
}

/** The reason a path operator reports when the values at its path fail it (doc_validation_error's generatePathError). */
const pathReasons: Record<string, string> = {
  $eq: 'comparison failed',
  $gt: 'comparison failed',
  $gte: 'comparison failed',
  $lt: 'comparison failed',
  $lte: 'comparison failed',
  $in: 'no matching value found in array',
};

/**
 * A field operator's details: operatorName and specifiedAs, and for the comparisons and $in
 * the reason with the value(s) considered ('field was missing' when there are none). Paths
 * through an array get operatorName and specifiedAs only.
 */
function pathDetails(op: string, path: string, spec: BsonValue, doc: BsonDocument): BsonDocument {
  const base: BsonDocument = { operatorName: op, specifiedAs: { [path]: spec } };
  const reason = pathReasons[op];
  if (reason === undefined) return base;
  const values = valuesAt(doc, path);
  if (values === 'through-array') return base;
  if (values === undefined) return { ...base, reason: 'field was missing' };
  // mongod omits the array itself from the values it considers, keeping its elements.
  return values.length === 1
    ? { ...base, reason, consideredValue: values[0] as BsonValue }
    : { ...base, reason, consideredValues: values };
}

function valuesAt(doc: BsonDocument, path: string): BsonValue[] | undefined | 'through-array' {
  let cur: BsonValue = doc;
  for (const part of path.split('.')) {
    if (isArray(cur)) return 'through-array';
    if (!isPlainDocument(cur)) return undefined;
    const next = getOwn(cur, part);
    if (next === undefined) return undefined;
    cur = next;
  }
  return isArray(cur) ? [...cur] : [cur];
}
