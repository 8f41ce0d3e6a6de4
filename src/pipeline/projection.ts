// Aggregation projections: $project (inclusion or exclusion, with computed fields), $addFields
// / $set (computed fields added to the whole document) and $unset (exclusion), after mongod's
// ProjectionNode tree (src/mongo/db/exec/projection_node.cpp):
//
// - an inclusion keeps the included fields in the *input* document's order, drops other
//   fields (and non-document array elements on a projected path), and then sets computed fields
//   in the order of the specification (replacing a field in place, or appending it);
// - a computed field on a path through an array applies to every element; a scalar met on that
//   path is replaced by a document holding the computed fields ({"a.b": 1} on {a: 2} → {a: {b: 1}});
// - an exclusion copies the document and removes the excluded paths;
// - `_id` is included unless excluded explicitly.

import { deleteOwn, hasOwn, setOwn } from '../bson/document.js';
import { isNumeric } from '../bson/numeric.js';
import { isArray, isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode, fail } from '../errors.js';
import { formatBson } from '../bson/format.js';
import { isExpressionName } from './context.js';
import { parseFieldPath } from './expressions/field-path.js';
import { MISSING, ROOT_SLOT } from './expressions/types.js';
import type { Expression, Frame, ParseContext, Value } from './expressions/types.js';
import { toBool } from './values.js';

export type ProjectionKind = 'inclusion' | 'exclusion' | 'addFields';

interface Node {
  /** Leaf inclusions (inclusion) or exclusions (exclusion). */
  readonly leaves: Set<string>;
  readonly children: Map<string, Node>;
  readonly expressions: Map<string, Expression>;
  /** Computed fields and children holding computed fields, in specification order. */
  readonly order: string[];
}

function newNode(): Node {
  return { leaves: new Set(), children: new Map(), expressions: new Map(), order: [] };
}

export interface Projection {
  readonly kind: ProjectionKind;
  apply(doc: BsonDocument, frame: Frame): BsonDocument;
}

/** The flag value of a projection field: true/false for numbers and booleans, else undefined. */
function flagOf(v: BsonValue): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (isNumeric(v)) return toBool(v);
  return undefined;
}

function isExpressionObject(v: BsonValue): boolean {
  return isPlainDocument(v) && (Object.keys(v)[0] ?? '').startsWith('$');
}

interface Builder {
  kind: ProjectionKind | undefined;
  readonly root: Node;
  readonly ctx: ParseContext;
  idExcluded: boolean;
  idComputed: boolean;
  readonly stage: string;
}

function wrapped(stage: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof CommandError && !e.message.startsWith('Invalid ')) {
      throw new CommandError(e.code, `Invalid ${stage} :: caused by :: ${e.message}`);
    }
    throw e;
  }
}

/**
 * Parses a $project specification. Errors carry mongod's "Invalid $project :: caused by ::"
 * prefix and codes (51272 empty, 31253/31254 mixed kinds, 31252 expression in exclusion,
 * 31249/31250 path collisions, 51270 empty sub-projection).
 */
export function parseProjection(
  spec: BsonDocument,
  ctx: ParseContext,
  stage = '$project',
): Projection {
  const b: Builder = {
    kind: undefined,
    root: newNode(),
    ctx,
    idExcluded: false,
    idComputed: false,
    stage,
  };
  wrapped(stage, () => {
    if (Object.keys(spec).length === 0)
      fail(ErrorCode.Location51272, 'specification must have at least one field');
    walkSpec(b, spec, []);
  });
  // A projection of only `_id: 0` (or only `_id: 1`) keeps its kind from _id.
  const kind: ProjectionKind = b.kind ?? (b.idExcluded ? 'exclusion' : 'inclusion');
  if (kind === 'exclusion' && b.idExcluded) b.root.leaves.add('_id');
  if (kind === 'inclusion' && !b.idExcluded && !b.idComputed && !b.root.children.has('_id'))
    b.root.leaves.add('_id');
  return makeProjection(kind, b.root);
}

/** $addFields / $set: every field is a computed field (nested objects are sub-field additions). */
export function parseAddFields(spec: BsonDocument, ctx: ParseContext, stage: string): Projection {
  const root = newNode();
  wrapped(stage, () => {
    for (const [field, value] of Object.entries(spec))
      addComputed(root, parseFieldPath(field), value, ctx, true);
  });
  return makeProjection('addFields', root);
}

/** $unset: an exclusion of the given paths. */
export function parseUnset(paths: readonly string[]): Projection {
  const root = newNode();
  for (const p of paths) addLeaf(root, parseFieldPath(p), p);
  return makeProjection('exclusion', root);
}

function setKind(b: Builder, kind: 'inclusion' | 'exclusion', path: string): void {
  if (b.kind === undefined) b.kind = kind;
  else if (b.kind !== kind) {
    if (b.kind === 'inclusion')
      fail(ErrorCode.Location31254, `Cannot do exclusion on field ${path} in inclusion projection`);
    fail(ErrorCode.Location31253, `Cannot do inclusion on field ${path} in exclusion projection`);
  }
}

/** "a.$", "a.$.b" or "$": find's positional projection, which no aggregation stage takes. */
function isPositional(field: string): boolean {
  return field === '$' || field.endsWith('.$') || field.includes('.$.');
}

/**
 * A one-field object named with '$' is an expression when the name is an operator; $elemMatch
 * is find-only, and another name is a sub-projection if it is a field name ($id, $ref, $db),
 * else unknown (mongod's projection_parser.cpp parseSubObject).
 */
function isProjectionExpression(value: BsonDocument): boolean {
  const keys = Object.keys(value);
  const first = keys[0];
  if (keys.length !== 1 || first === undefined || !first.startsWith('$')) return false;
  if (first === '$elemMatch')
    fail(ErrorCode.InvalidPipelineOperator, 'Cannot use $elemMatch in this context');
  if (isExpressionName(first)) return true;
  if (!DBREF_FIELDS.has(first)) fail(ErrorCode.Location31325, `Unknown expression ${first}`);
  return false;
}

const DBREF_FIELDS = new Set(['$id', '$ref', '$db']);

function walkSpec(b: Builder, spec: BsonDocument, prefix: string[]): void {
  for (const [field, value] of Object.entries(spec)) {
    if (isPositional(field))
      fail(ErrorCode.Location31324, 'Cannot use positional projection in aggregation projection');
    const parts = [...prefix, ...parseFieldPath(field)];
    const path = parts.join('.');
    const flag = flagOf(value);
    if (path === '_id' && flag !== undefined) {
      // _id's flag does not decide the projection's kind: {_id: 0, a: 1} is an inclusion.
      b.idExcluded = !flag;
      continue;
    }
    if (flag !== undefined) {
      setKind(b, flag ? 'inclusion' : 'exclusion', path);
      addLeaf(b.root, parts, path);
      continue;
    }
    if (isPlainDocument(value) && !isProjectionExpression(value)) {
      if (Object.keys(value).length === 0)
        fail(
          ErrorCode.Location51270,
          `An empty sub-projection is not a valid value. Found empty object at path`,
        );
      walkSpec(b, value, parts);
      continue;
    }
    // A computed field: allowed in an inclusion projection only ($meta aside). A literal or a
    // field path is 31310 there, an operator 31252 (projection_parser.cpp parseLiteral and
    // attemptToParseGenericExpression).
    if (b.kind === 'exclusion') {
      if (!isPlainDocument(value))
        fail(
          ErrorCode.Location31310,
          `Cannot use an expression ${field}: ${formatBson(value)} in an exclusion projection`,
        );
      fail(
        ErrorCode.Location31252,
        'Cannot use expression other than $meta in exclusion projection',
      );
    }
    if (path === '_id') b.idComputed = true;
    b.kind = 'inclusion';
    addComputed(b.root, parts, value, b.ctx, false);
  }
}

function descend(root: Node, parts: readonly string[], path: string): Node {
  let node = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const name = parts[i] as string;
    if (node.leaves.has(name) || node.expressions.has(name)) {
      fail(
        ErrorCode.Location31249,
        `Path collision at ${path} remaining portion ${parts.slice(i + 1).join('.')}`,
      );
    }
    let child = node.children.get(name);
    if (child === undefined) {
      child = newNode();
      node.children.set(name, child);
    }
    node = child;
  }
  return node;
}

function addLeaf(root: Node, parts: readonly string[], path: string): void {
  const node = descend(root, parts, path);
  const last = parts[parts.length - 1] as string;
  if (node.leaves.has(last) || node.expressions.has(last) || node.children.has(last))
    fail(ErrorCode.Location31250, `Path collision at ${path}`);
  node.leaves.add(last);
}

function addComputed(
  root: Node,
  parts: readonly string[],
  value: BsonValue,
  ctx: ParseContext,
  nestedObjects: boolean,
): void {
  const path = parts.join('.');
  if (
    nestedObjects &&
    isPlainDocument(value) &&
    !isExpressionObject(value) &&
    Object.keys(value).length > 0
  ) {
    for (const [f, v] of Object.entries(value))
      addComputed(root, [...parts, ...parseFieldPath(f)], v as BsonValue, ctx, true);
    return;
  }
  // Record the path of children holding computed fields in specification order.
  let node = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const name = parts[i] as string;
    if (node.leaves.has(name) || node.expressions.has(name))
      fail(
        ErrorCode.Location31249,
        `Path collision at ${path} remaining portion ${parts.slice(i + 1).join('.')}`,
      );
    let child = node.children.get(name);
    if (child === undefined) {
      child = newNode();
      node.children.set(name, child);
    }
    if (!node.order.includes(name)) node.order.push(name);
    node = child;
  }
  const last = parts[parts.length - 1] as string;
  if (node.leaves.has(last) || node.expressions.has(last) || node.children.has(last))
    fail(ErrorCode.Location31250, `Path collision at ${path}`);
  node.expressions.set(last, ctx.parse(value));
  node.order.push(last);
}

function hasComputed(node: Node): boolean {
  return node.order.length > 0;
}

// ---- application ----------------------------------------------------------------------------

function makeProjection(kind: ProjectionKind, root: Node): Projection {
  return {
    kind,
    apply(doc: BsonDocument, frame: Frame): BsonDocument {
      frame.vars[ROOT_SLOT] = doc;
      let out: BsonDocument;
      if (kind === 'inclusion') out = includeFields(root, doc);
      else if (kind === 'exclusion') out = excludeFields(root, doc);
      else out = { ...doc };
      if (kind !== 'exclusion') applyExpressions(root, out, frame);
      return out;
    },
  };
}

function includeFields(node: Node, doc: BsonDocument): BsonDocument {
  const out: BsonDocument = {};
  for (const [k, v] of Object.entries(doc)) {
    if (node.leaves.has(k)) setOwn(out, k, v);
    else {
      const child = node.children.get(k);
      if (child === undefined) continue;
      const projected = includeValue(child, v);
      if (projected !== MISSING) setOwn(out, k, projected);
    }
  }
  return out;
}

function includeValue(node: Node, v: BsonValue): Value {
  if (isPlainDocument(v)) return includeFields(node, v);
  if (isArray(v)) {
    const out: BsonValue[] = [];
    for (const el of v) {
      const p = includeValue(node, el);
      if (p !== MISSING) out.push(p);
    }
    return out;
  }
  return MISSING;
}

function excludeFields(node: Node, doc: BsonDocument): BsonDocument {
  const out: BsonDocument = {};
  for (const [k, v] of Object.entries(doc)) {
    if (node.leaves.has(k)) continue;
    const child = node.children.get(k);
    setOwn(out, k, child === undefined ? v : excludeValue(child, v));
  }
  return out;
}

function excludeValue(node: Node, v: BsonValue): BsonValue {
  if (isPlainDocument(v)) return excludeFields(node, v);
  if (isArray(v)) return v.map((el) => excludeValue(node, el));
  return v;
}

function applyExpressions(node: Node, out: BsonDocument, frame: Frame): void {
  for (const name of node.order) {
    const expr = node.expressions.get(name);
    if (expr !== undefined) {
      const v = expr.evaluate(frame);
      if (v === MISSING) deleteOwn(out, name);
      else setOwn(out, name, v);
      continue;
    }
    const child = node.children.get(name);
    if (child === undefined || !hasComputed(child)) continue;
    const current: Value = hasOwn(out, name) ? (out[name] as BsonValue) : MISSING;
    setOwn(out, name, expressionsOnValue(child, current, frame));
  }
}

function expressionsOnValue(node: Node, v: Value, frame: Frame): BsonValue {
  if (v !== MISSING && isPlainDocument(v)) {
    const sub: BsonDocument = { ...v };
    applyExpressions(node, sub, frame);
    return sub;
  }
  if (v !== MISSING && isArray(v)) return v.map((el) => expressionsOnValue(node, el, frame));
  // A scalar (or nothing) on the path is replaced by a document of the computed fields.
  const sub: BsonDocument = {};
  applyExpressions(node, sub, frame);
  return sub;
}
