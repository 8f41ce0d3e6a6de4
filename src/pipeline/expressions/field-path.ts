// Field paths in expressions: "$a.b" (below $$CURRENT) and "$$var.a.b".
//
// Aggregation traverses arrays differently from find: "$a.b" on {a: [{b: 1}, {c: 2}, {b: [3]}]}
// is [1, [3]] — the path is applied to every document element of an array, elements where it
// reaches nothing are dropped, and non-documents are skipped, nested arrays included: "$x.y" on
// {x: [[{y: 1}], {y: 2}]} is [2] (mongod's ExpressionFieldPath::evaluatePath /
// evaluatePathArray; jstests/core/query/project/computed_projections.js). A numeric component
// is a field name, never an array index.

import { getField } from '../../bson/path.js';
import { asDocument, isArray } from '../../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { lookupVariable, validateNameForUserRead } from './variables.js';
import { MISSING, ROOT_SLOT } from './types.js';
import type { Expression, ParseContext, Value } from './types.js';

/** Names a stored document may carry with a leading '$' (DBRef fields). */
const DOLLAR_FIELDS_ALLOWED = new Set(['$id', '$ref', '$db']);

/** mongod's FieldPath::uassertValidFieldName, for one component of a path or an output field. */
export function validateFieldName(name: string): void {
  if (name.length === 0)
    fail(ErrorCode.Location15998, 'FieldPath field names may not be empty strings.');
  if (name.startsWith('$') && !DOLLAR_FIELDS_ALLOWED.has(name)) {
    fail(
      ErrorCode.Location16410,
      "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
    );
  }
  if (name.includes('\0'))
    fail(ErrorCode.Location16411, "FieldPath field names may not contain '\\0'.");
  if (name.includes('.'))
    fail(
      ErrorCode.Location16412,
      "FieldPath field names may not contain '.'. Consider using $getField or $setField.",
    );
}

/** Splits and validates a dotted path ("a.b.c"), as mongod's FieldPath constructor does. */
export function parseFieldPath(path: string): string[] {
  if (path.length === 0)
    fail(ErrorCode.Location40352, 'FieldPath cannot be constructed with empty string');
  const parts = path.split('.');
  for (const p of parts) {
    if (p.length === 0)
      fail(ErrorCode.Location15998, 'FieldPath field names may not be empty strings.');
    if (p.startsWith('$') && !DOLLAR_FIELDS_ALLOWED.has(p)) {
      fail(
        ErrorCode.Location16410,
        "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
      );
    }
    if (p.includes('\0'))
      fail(ErrorCode.Location16411, "FieldPath field names may not contain '\\0'.");
  }
  return parts;
}

function fieldOf(doc: BsonDocument, name: string): Value {
  return getField(doc, name);
}

/** Follows `parts[from..]` down from a document with aggregation's array semantics. */
export function evaluatePath(doc: BsonDocument, parts: readonly string[], from: number): Value {
  let cur: BsonDocument = doc;
  for (let i = from; ; i++) {
    const v = fieldOf(cur, parts[i] as string);
    if (i === parts.length - 1 || v === MISSING) return v;
    if (isArray(v)) return evaluatePathArray(v, parts, i + 1);
    const sub = asDocument(v);
    if (sub === undefined) return MISSING;
    cur = sub;
  }
}

function evaluatePathArray(arr: BsonArray, parts: readonly string[], from: number): BsonValue[] {
  const out: BsonValue[] = [];
  for (const el of arr) {
    const sub = isArray(el) ? undefined : asDocument(el);
    if (sub === undefined) continue;
    const v = evaluatePath(sub, parts, from);
    if (v !== MISSING) out.push(v);
  }
  return out;
}

/** The value of `parts` below an arbitrary value (a variable's value). */
export function evaluatePathOn(value: Value, parts: readonly string[]): Value {
  if (parts.length === 0) return value;
  if (value === MISSING) return MISSING;
  if (isArray(value)) return evaluatePathArray(value, parts, 0);
  const doc = asDocument(value);
  return doc === undefined ? MISSING : evaluatePath(doc, parts, 0);
}

/** A field path below the document being processed: "a.b" → $$CURRENT.a.b. */
export function rootPathExpression(path: string, ctx: ParseContext): Expression {
  return parseFieldPathExpression(`$${path}`, ctx);
}

/** Parses "$a.b" or "$$var.a.b" (mongod's ExpressionFieldPath::parse). */
export function parseFieldPathExpression(raw: string, ctx: ParseContext): Expression {
  if (raw.length < 2) fail(ErrorCode.Location16872, "'$' by itself is not a valid FieldPath");
  if (raw[1] !== '$') return variablePath('CURRENT', parseFieldPath(raw.slice(1)), ctx);
  const body = raw.slice(2);
  const dot = body.indexOf('.');
  const name = dot < 0 ? body : body.slice(0, dot);
  validateNameForUserRead(name);
  const rest = dot < 0 ? [] : parseFieldPath(body.slice(dot + 1));
  return variablePath(name, rest, ctx);
}

function constantPath(value: Value, rest: readonly string[]): Expression {
  const v = evaluatePathOn(value, rest);
  return { kind: 'constant', value: v, evaluate: () => v };
}

function variablePath(name: string, rest: readonly string[], ctx: ParseContext): Expression {
  const binding = lookupVariable(ctx.scope, name);
  if (binding !== undefined) {
    if ('constant' in binding) return constantPath(binding.constant, rest);
    const slot = binding.slot;
    if (rest.length === 0) return { kind: 'variable', evaluate: (f) => f.vars[slot] ?? MISSING };
    return { kind: 'fieldPath', evaluate: (f) => evaluatePathOn(f.vars[slot] ?? MISSING, rest) };
  }
  switch (name) {
    case 'ROOT':
    case 'CURRENT': {
      if (rest.length === 0)
        return { kind: 'variable', evaluate: (f) => f.vars[ROOT_SLOT] ?? MISSING };
      const path = rest.join('.');
      return {
        kind: 'fieldPath',
        path,
        evaluate: (f) => evaluatePathOn(f.vars[ROOT_SLOT] ?? MISSING, rest),
      };
    }
    case 'REMOVE':
      return constantPath(MISSING, rest);
    case 'NOW':
      return constantPath(ctx.env.now, rest);
    case 'CLUSTER_TIME':
      if (ctx.env.clusterTime === undefined)
        fail(ErrorCode.Location51144, "Builtin variable '$$CLUSTER_TIME' is not available");
      return constantPath(ctx.env.clusterTime, rest);
    case 'USER_ROLES':
      // No authentication yet: the session has no roles.
      return constantPath([], rest);
    case 'SEARCH_META':
      return constantPath(MISSING, rest);
    default:
      fail(ErrorCode.Location17276, `Use of undefined variable: ${name}`);
  }
}
