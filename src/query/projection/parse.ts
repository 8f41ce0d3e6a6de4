// Parsing a find projection with mongod 7.0's rules and error codes
// (src/mongo/db/query/projection_parser.cpp): inclusion and exclusion do not mix (except _id),
// literals and expressions make an inclusion, $slice / $elemMatch / "a.$" are find-only
// operators, and two specifications of the same path collide.

import { BSONRegExp, asDocument, bsonTypeName, isArray } from '../../bson/types.js';
import { isNumeric } from '../../bson/numeric.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { CommandError, ErrorCode, fail } from '../../errors.js';
import { compileRestrictedFilter } from '../match/index.js';
import type { Matcher } from '../match/index.js';
import { trueValue } from '../match/operators/element/exists.js';
import { toJsNumber } from '../match/numbers.js';
import { validateFieldPath } from './field-path.js';
import { compileComputed } from './computed.js';
import type { ProjectionOptions } from './computed.js';
import { newPathNode } from './tree.js';
import { META_FIELD_NAMES } from '../exec/metadata.js';
import type { PathNode, ProjectionLeaf, ProjectionNode, ProjectionType } from './tree.js';

export interface ParsedProjection {
  readonly root: PathNode;
  readonly type: ProjectionType;
  /** Full paths of find-only operators, applied after the main projection. */
  readonly slices: ReadonlyArray<{ path: string[]; skip: number | undefined; limit: number }>;
  readonly positional: string[] | undefined;
  readonly elemMatches: ReadonlyArray<{ field: string; matcher: Matcher }>;
  /** {$meta: ...} fields, set after the projection (they neither include nor exclude). */
  readonly metaFields: ReadonlyArray<{ path: string[]; name: string }>;
}

interface Context {
  readonly options: ProjectionOptions;
  type: ProjectionType | undefined;
  idSpecified: boolean;
  idIncludedEntirely: boolean;
  hasPositional: boolean;
  hasElemMatch: boolean;
  hasFindSlice: boolean;
  slices: Array<{ path: string[]; skip: number | undefined; limit: number }>;
  positional: string[] | undefined;
  elemMatches: Array<{ field: string; matcher: Matcher }>;
  metaFields: Array<{ path: string[]; name: string }>;
}

export function parseProjection(spec: BsonDocument, options: ProjectionOptions): ParsedProjection {
  const root = newPathNode();
  const ctx: Context = {
    options,
    type: undefined,
    idSpecified: false,
    idIncludedEntirely: false,
    hasPositional: false,
    hasElemMatch: false,
    hasFindSlice: false,
    slices: [],
    positional: undefined,
    elemMatches: [],
    metaFields: [],
  };
  for (const [name, value] of Object.entries(spec)) {
    ctx.idSpecified ||= name === '_id' || name.startsWith('_id.');
    parseElement(ctx, name, value, [], root);
  }
  const type = ctx.type ?? defaultType(ctx);
  if (!ctx.idSpecified && type === 'inclusion') addNodeAtPath(root, ['_id'], { kind: 'include' });
  // {_id: 1} in an exclusion projection is legal and changes nothing.
  if (type === 'exclusion' && ctx.idSpecified && ctx.idIncludedEntirely)
    root.children.delete('_id');
  return {
    root,
    type,
    slices: ctx.slices,
    positional: ctx.positional,
    elemMatches: ctx.elemMatches,
    metaFields: ctx.metaFields,
  };
}

/** Without explicit inclusions or exclusions, find's historical defaults decide. */
function defaultType(ctx: Context): ProjectionType {
  if (ctx.idIncludedEntirely) return 'inclusion';
  if (ctx.hasFindSlice) return 'exclusion';
  if (ctx.hasElemMatch) return 'inclusion';
  return 'exclusion';
}

// ---- the tree ----

function addNodeAtPath(root: PathNode, parts: readonly string[], leaf: ProjectionNode): void {
  let node = root;
  for (let i = 0; i < parts.length; i++) {
    const name = parts[i] as string;
    const child = node.children.get(name);
    if (i === parts.length - 1) {
      if (child !== undefined)
        fail(ErrorCode.Location31250, `Path collision at ${parts.join('.')}`);
      node.children.set(name, leaf);
      return;
    }
    if (child === undefined) {
      const created = newPathNode();
      node.children.set(name, created);
      node = created;
    } else if (child.kind === 'path') {
      node = child;
    } else {
      fail(
        ErrorCode.Location31249,
        `Path collision at ${parts.join('.')} remaining portion ${parts.slice(1).join('.')}`,
      );
    }
  }
}

/** The path node for a sub-projection ({a: {b: 1}}), shared with dotted specs of the same prefix. */
function subProjectionNode(parent: PathNode, parts: readonly string[]): PathNode {
  let node = parent;
  for (const name of parts) {
    const child = node.children.get(name);
    if (child === undefined) {
      const created = newPathNode();
      node.children.set(name, created);
      node = created;
    } else if (child.kind === 'path') {
      node = child;
    } else {
      fail(ErrorCode.Location31250, `Path collision at ${parts.join('.')}`);
    }
  }
  return node;
}

// ---- elements ----

/** Where "$" stands in a path: ".$." inside, ".$" at the end, or the whole path. */
function firstPositional(path: string): [number, number] | undefined {
  const inner = path.indexOf('.$.');
  if (inner >= 0) return [inner, inner + 3];
  if (path.endsWith('.$')) return [path.length - 2, path.length];
  if (path === '$') return [0, path.length];
  return undefined;
}

function isInclusionOrExclusionType(v: BsonValue): boolean {
  return typeof v === 'boolean' || isNumeric(v);
}

function parseElement(
  ctx: Context,
  name: string,
  value: BsonValue,
  parentPath: readonly string[],
  parent: PathNode,
): void {
  const positional = firstPositional(name);
  const obj = isArray(value) || value instanceof BSONRegExp ? undefined : asDocument(value);
  if (obj !== undefined) {
    if (positional)
      fail(
        ErrorCode.Location31271,
        'positional projection cannot be used with an expression or sub object',
      );
    parseSubObject(ctx, name, obj, parentPath, parent);
  } else if (isInclusionOrExclusionType(value)) {
    if (trueValue(value)) parseInclusion(ctx, name, parentPath, parent, positional);
    else parseExclusion(ctx, name, parentPath, parent);
  } else {
    if (positional)
      fail(ErrorCode.Location31308, 'positional projection cannot be used with a literal');
    parseLiteral(ctx, name, value, parent);
  }
}

function requireInclusionType(ctx: Context, name: string): void {
  if (ctx.type === 'exclusion')
    fail(ErrorCode.Location31253, `Cannot do inclusion on field ${name} in exclusion projection`);
  ctx.type = 'inclusion';
}

function parseInclusion(
  ctx: Context,
  name: string,
  parentPath: readonly string[],
  parent: PathNode,
  positional: [number, number] | undefined,
): void {
  const isTopLevelId = name === '_id' && parentPath.length === 0;
  if (positional === undefined) {
    addNodeAtPath(parent, validateFieldPath(name), { kind: 'include' });
    if (isTopLevelId) ctx.idIncludedEntirely = true;
  } else {
    parsePositional(ctx, name, parentPath, parent, positional);
  }
  if (!isTopLevelId) requireInclusionType(ctx, name);
}

/**
 * "a.b.$": mongod 7.0 no longer requires the filter to name the field (positional_projection.js
 * projects "g.$" with an empty filter); a missing position is reported when a document has an
 * array on the path (51246).
 */
function parsePositional(
  ctx: Context,
  name: string,
  parentPath: readonly string[],
  parent: PathNode,
  [begin, end]: [number, number],
): void {
  if (ctx.hasPositional)
    fail(ErrorCode.Location31276, 'Cannot specify more than one positional projection per query.');
  if (ctx.hasElemMatch)
    fail(ErrorCode.Location31256, 'Cannot specify positional operator and $elemMatch.');
  if (name.endsWith('.$.')) fail(ErrorCode.Location31270, "Path cannot end with '.$.'");
  const rest = name.slice(end);
  if (firstPositional(rest) !== undefined || rest === '$') {
    fail(ErrorCode.Location31287, `Cannot use positional operator twice: ${name}`);
  }
  if (begin === 0)
    fail(
      ErrorCode.Location5392900,
      `Positional projection '${name}' needs a field path before '$'`,
    );
  const parts = validateFieldPath(name.slice(0, begin));
  addNodeAtPath(parent, parts, { kind: 'positional' });
  ctx.hasPositional = true;
  ctx.positional = [...parentPath, ...parts];
}

function parseExclusion(
  ctx: Context,
  name: string,
  parentPath: readonly string[],
  parent: PathNode,
): void {
  addNodeAtPath(parent, validateFieldPath(name), { kind: 'exclude' });
  // Only the document's own _id may be excluded from an inclusion projection.
  if (name === '_id' && parentPath.length === 0) return;
  if (ctx.type === 'inclusion')
    fail(ErrorCode.Location31254, `Cannot do exclusion on field ${name} in inclusion projection`);
  ctx.type = 'exclusion';
}

function parseLiteral(ctx: Context, name: string, value: BsonValue, parent: PathNode): void {
  addNodeAtPath(parent, validateFieldPath(name), {
    kind: 'computed',
    compute: compileComputed(value, ctx.options),
  });
  if (ctx.type === 'exclusion')
    fail(
      ErrorCode.Location31310,
      `Cannot use an expression ${name}: ${formatBson(value)} in an exclusion projection`,
    );
  ctx.type = 'inclusion';
}

// ---- sub-objects ----

function parseSubObject(
  ctx: Context,
  name: string,
  obj: BsonDocument,
  parentPath: readonly string[],
  parent: PathNode,
): void {
  const parts = validateFieldPath(name);
  const keys = Object.keys(obj);
  const first = keys[0];
  if (keys.length === 1 && first !== undefined && first.startsWith('$')) {
    if (parseOperator(ctx, name, parts, first, obj[first] as BsonValue, parentPath, parent)) return;
    // Not an operator: a sub-projection of a DBRef field ({a: {$id: 1}}), or a mistake.
    if (!isValidFieldPath(first)) fail(ErrorCode.Location31325, `Unknown expression ${first}`);
  }
  if (keys.length === 0) {
    fail(
      ErrorCode.Location51270,
      `An empty sub-projection is not a valid value. Found empty object at path ${[...parentPath, ...parts].join('.')}`,
    );
  }
  const node = subProjectionNode(parent, parts);
  for (const [childName, childValue] of Object.entries(obj)) {
    parseElement(ctx, childName, childValue, [...parentPath, ...parts], node);
  }
}

/**
 * A one-field object whose name starts with '$': a find-only operator or an aggregation
 * expression. Returns false when it is neither (mongod then reads it as a sub-projection).
 */
function parseOperator(
  ctx: Context,
  name: string,
  parts: string[],
  op: string,
  arg: BsonValue,
  parentPath: readonly string[],
  parent: PathNode,
): boolean {
  if (op === '$slice') {
    parseSlice(ctx, parts, arg, parentPath, parent);
  } else if (op === '$elemMatch') {
    parseElemMatchProjection(ctx, name, parts, arg, parentPath, parent);
  } else if (op === '$meta') {
    if (typeof arg !== 'string')
      fail(ErrorCode.Location17307, '$meta only supports string arguments');
    if (!META_FIELD_NAMES.has(arg))
      fail(ErrorCode.Location17308, `Unsupported argument to $meta: ${arg}`);
    ctx.metaFields.push({ path: [...parentPath, ...parts], name: arg });
  } else {
    const hook = ctx.options.expressions;
    // Without the aggregation layer every other operator is taken for an expression (NotImplemented).
    if (hook !== undefined && !hook.isExpressionName(op)) return false;
    parseOperatorAsExpression(ctx, parts, op, arg, parent);
  }
  return true;
}

function isValidFieldPath(path: string): boolean {
  try {
    validateFieldPath(path);
    return true;
  } catch (e) {
    if (e instanceof CommandError) return false;
    throw e;
  }
}

function numberInt(v: BsonValue): number {
  const n = isNumeric(v) ? toJsNumber(v) : 0;
  // C++'s conversion to int: truncation, and out-of-range values (x86) become INT_MIN.
  if (!Number.isFinite(n) || n >= 2 ** 31 || n < -(2 ** 31)) return -(2 ** 31);
  return Math.trunc(n);
}

/**
 * find's $slice (a number, or [skip, limit]). When the argument fits neither, mongod tries the
 * aggregation $slice expression, and if that fails too, reports both (its code is the
 * expression's); without the expression hook the find error stands.
 */
function parseSlice(
  ctx: Context,
  parts: string[],
  arg: BsonValue,
  parentPath: readonly string[],
  parent: PathNode,
): void {
  try {
    parseFindSlice(ctx, parts, arg, parentPath, parent);
    return;
  } catch (findError) {
    if (!(findError instanceof CommandError) || ctx.options.expressions === undefined)
      throw findError;
    try {
      parseOperatorAsExpression(ctx, parts, '$slice', arg, parent);
    } catch (exprError) {
      if (!(exprError instanceof CommandError)) throw exprError;
      throw new CommandError(
        exprError.code,
        `Invalid $slice syntax. The given syntax ${formatBson({ $slice: arg } as BsonDocument)} did not match the find() syntax because :: ` +
          `${findError.codeName}: ${findError.message} :: The given syntax did not match the expression $slice syntax. :: caused by :: ${exprError.message}`,
      );
    }
  }
}

function parseFindSlice(
  ctx: Context,
  parts: string[],
  arg: BsonValue,
  parentPath: readonly string[],
  parent: PathNode,
): void {
  let leaf: Extract<ProjectionLeaf, { kind: 'slice' }>;
  if (isNumeric(arg)) {
    leaf = { kind: 'slice', skip: undefined, limit: numberInt(arg) };
  } else if (isArray(arg)) {
    if (arg.length !== 2)
      fail(ErrorCode.Location31272, '$slice array argument should be of form [skip, limit]');
    const [skip, limit] = arg as [BsonValue, BsonValue];
    if (!isNumeric(skip))
      fail(
        ErrorCode.Location31257,
        `$slice expects the skip argument to be a number, got ${bsonTypeName(skip)}`,
      );
    if (!isNumeric(limit))
      fail(
        ErrorCode.Location31258,
        `$slice expects the limit argument to be a number, got ${bsonTypeName(limit)}`,
      );
    if (numberInt(limit) <= 0)
      fail(ErrorCode.Location31259, `$slice limit must be positive, got ${numberInt(limit)}`);
    leaf = { kind: 'slice', skip: numberInt(skip), limit: numberInt(limit) };
  } else {
    fail(ErrorCode.Location31273, '$slice only supports numbers and [skip, limit] arrays');
  }
  addNodeAtPath(parent, parts, leaf);
  ctx.slices.push({ path: [...parentPath, ...parts], skip: leaf.skip, limit: leaf.limit });
  ctx.hasFindSlice = true;
}

function parseOperatorAsExpression(
  ctx: Context,
  parts: string[],
  op: string,
  arg: BsonValue,
  parent: PathNode,
): void {
  if (ctx.type === 'exclusion')
    fail(ErrorCode.Location31252, 'Cannot use expression other than $meta in exclusion projection');
  ctx.type = 'inclusion';
  addNodeAtPath(parent, parts, {
    kind: 'computed',
    compute: compileComputed({ [op]: arg } as BsonDocument, ctx.options, true),
  });
}

function parseElemMatchProjection(
  ctx: Context,
  name: string,
  parts: string[],
  arg: BsonValue,
  parentPath: readonly string[],
  parent: PathNode,
): void {
  const obj = isArray(arg) ? undefined : asDocument(arg);
  if (obj === undefined)
    fail(
      ErrorCode.Location31274,
      `elemMatch: Invalid argument, object required, but got ${bsonTypeName(arg)}`,
    );
  if (ctx.hasPositional)
    fail(ErrorCode.Location31255, 'Cannot specify positional operator and $elemMatch.');
  if (parts.length !== 1 || parentPath.length !== 0)
    fail(ErrorCode.Location31275, 'Cannot use $elemMatch projection on a nested field.');
  const matcher = compileRestrictedFilter({ [name]: { $elemMatch: obj } } as BsonDocument, {
    collator: ctx.options.collator,
  });
  addNodeAtPath(parent, parts, { kind: 'elemMatch', matcher });
  ctx.elemMatches.push({ field: name, matcher });
  ctx.hasElemMatch = true;
}
