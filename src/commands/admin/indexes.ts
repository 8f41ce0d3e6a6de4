// createIndexes, listIndexes, dropIndexes — with mongod 7.0's rules:
//
// - a spec needs `key` and `name` (FailedToParse); key values are non-zero numbers or the
//   index plugins "text", "2dsphere", "2d" and "hashed" (index-plugins.ts normalises their
//   specs); a "$**" field makes a wildcard index (wildcard-spec.ts checks it; compound
//   wildcard indexes answer NotImplemented);
//   unknown options are InvalidIndexSpecificationOption (197); errors name the spec
//   ("Error in specification {...} :: caused by :: ...");
// - an index's identity (its "signature") is its key pattern plus unique, sparse,
//   partialFilterExpression and collation: indexes that differ in any of them may coexist.
//   The same name with another signature is IndexKeySpecsConflict (86); the same signature
//   with other non-identifying options (expireAfterSeconds, hidden) or another name is
//   IndexOptionsConflict (85); an identical index is no error ("all indexes already exist");
// - partialFilterExpression may use only $eq, $lt, $lte, $gt, $gte, $exists: true, $type,
//   $in, $and and $or, at most 4 levels deep (CannotCreateIndex, 67), and not with sparse;
// - expireAfterSeconds: a number, not NaN, 0 ≤ n ≤ 2^31-1, on a single-field index (67);
// - every index of a request is built over the existing documents in one storage write:
//   a duplicate key (11000, with keyPattern and keyValue) leaves nothing created.
// collMod's `index` option (hidden, expireAfterSeconds) is at the end of this file.

import { Double, Int32, Long } from 'bson';
import { compareBson } from '../../bson/compare.js';
import { formatBson } from '../../bson/format.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { bsonTypeName, isPlainDocument, numericValue } from '../../bson/types.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { Collection, IndexMeta } from '../../catalog/collection.js';
import type { RecordId } from '../../catalog/record-id.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import { compileRestrictedFilter } from '../../query/match/index.js';
import type { MatchNode } from '../../query/match/index.js';
import { serializeFilter } from '../../query/planner/serialize-filter.js';
import type { ReadView, WriteTxn } from '../../storage/engine.js';
import type { IndexAccess } from '../../catalog/index-access.js';
import { BSON } from 'bson';
import { writeConflictError } from '../../txn/conflicts.js';
import { clusteredIndexEntry } from './clustered.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { parseCursorOption, queuedCursorReply } from '../crud/cursor-reply.js';
import { targetCollection, viewOf } from '../crud/target.js';
import { withWriteConcernError } from '../write-concern.js';
import type { OperationContext, ServerServices } from '../context.js';
import { TtlMonitor } from '../../catalog/ttl-monitor.js';
import { compileQueryFilter } from '../query-language.js';
import { slicedDelete } from '../crud/write-exec.js';
import { uninterruptible } from '../../query/exec/drive.js';
import { collectionCollation } from '../crud/operation-env.js';
import { parseCollation } from '../../bson/collation.js';
import { lookupView, notACollection } from '../../catalog/views.js';
import { timeseriesTargetOf } from '../crud/timeseries-writes.js';
import { bucketsIndexKey, bucketsIndexSpec, listedTimeseriesIndexes } from './timeseries.js';
import {
  checkPluginConflicts,
  checkPluginField,
  finishPluginSpec,
  isSupportedPlugin,
  pluginAcceptsOption,
  pluginOf,
} from './index-plugins.js';

import {
  checkWildcardKeyPattern,
  hasIllegalDollarPart,
  checkWildcardSpec,
  normalWildcardProjection,
} from './wildcard-spec.js';
import { onCollection } from '../authorization.js';
import type { IndexBuild } from './index-build.js';

/** Options an index spec may carry. */
const acceptedOptions = new Set([
  'key',
  'name',
  'v',
  'unique',
  'sparse',
  'background',
  'hidden',
  'expireAfterSeconds',
  'partialFilterExpression',
  'ns',
  'dropDups',
  'wildcardProjection',
  'prepareUnique',
]);
const notImplementedOptions = new Set([
  'weights',
  'default_language',
  'language_override',
  'textIndexVersion',
  '2dsphereIndexVersion',
  'bits',
  'min',
  'max',
  'bucketSize',
  'storageEngine',
  'clustered',
  'coarsestIndexedLevel',
  'finestIndexedLevel',
]);
/** Options that are not part of an index's identity but must match for "identical". */
const notComparedForEquality = new Set([
  'key',
  'ns',
  'name',
  'v',
  'textIndexVersion',
  '2dsphereIndexVersion',
  'background',
  'dropDups',
  'collation',
  'partialFilterExpression',
  'unique',
  'sparse',
  'wildcardProjection',
]);
/** internalPartialFilterExpressionMaxDepth. */
const partialFilterDepthMax = 4;

function specError(raw: BsonDocument, code: number, message: string): CommandError {
  return new CommandError(
    code,
    `Error in specification ${formatBson(raw)} :: caused by :: ${message}`,
  );
}

function trueValue(v: BsonValue): boolean {
  if (v === null || v === undefined || v === false) return false;
  const n = numericValue(v);
  return n === undefined ? true : n !== 0;
}

function checkBoolOption(raw: BsonDocument, option: string): void {
  const v = raw[option];
  if (v === undefined) return;
  if (typeof v === 'boolean' || numericValue(v) !== undefined) return;
  throw specError(
    raw,
    ErrorCode.TypeMismatch,
    `The field '${option} has value ${option}: ${formatBson(v)}, which is not convertible to bool`,
  );
}

/** mongod's debugString of a filter node, as CannotCreateIndex messages show it. */
function debugString(node: MatchNode, level = 0): string {
  const pad = '    '.repeat(level);
  const children = (list: readonly MatchNode[]): string =>
    list.map((c) => debugString(c, level + 1)).join('');
  switch (node.kind) {
    case 'and':
    case 'or':
    case 'nor':
      return `${pad}$${node.kind}\n${children(node.children)}`;
    case 'not':
      return `${pad}$not\n${debugString(node.child, level + 1)}`;
    case 'exists':
      return `${pad}${node.path} exists\n`;
    case 'regex':
      return `${pad}${node.path} regex /${node.pattern}/${node.flags}\n`;
    case 'elemMatchObject':
      return `${pad}${node.path} $elemMatch (obj)\n${debugString(node.child, level + 1)}`;
    case 'elemMatchValue':
      return `${pad}${node.path} $elemMatch (value)\n${children(node.children)}`;
    case 'size':
      return `${pad}${node.path} $size : ${node.size}\n`;
    case 'mod':
      return `${pad}${node.path} mod ${node.divisor} % x == ${node.remainder}\n`;
    case 'eq':
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return `${pad}${node.path} $${node.kind} ${formatBson(node.value)}\n`;
    default:
      return `${pad}${'path' in node ? `${String(node.path)} ` : ''}$${node.kind}\n`;
  }
}

/**
 * The nesting depth mongod's parser gives a filter document: a document of several
 * predicates is an AND one level above them (one predicate stands for itself), and every
 * $and / $or / $nor is a level of its own, even with one clause.
 */
function filterDepth(doc: BsonDocument, level: number): number {
  const preds: Array<[string, BsonValue]> = [];
  for (const [k, v] of Object.entries(doc)) {
    if (
      !k.startsWith('$') &&
      isPlainDocument(v) &&
      Object.keys(v).length > 0 &&
      Object.keys(v).every((o) => o.startsWith('$'))
    ) {
      for (const [o, x] of Object.entries(v)) preds.push([o, x]);
    } else preds.push([k, v]);
  }
  const at = preds.length > 1 ? level + 1 : level;
  let max = preds.length > 1 ? level : 0;
  for (const [k, v] of preds) {
    max = Math.max(max, at);
    if ((k === '$and' || k === '$or' || k === '$nor') && Array.isArray(v)) {
      for (const clause of v)
        if (isPlainDocument(clause)) max = Math.max(max, filterDepth(clause, at + 1));
    }
  }
  return max;
}

/** mongod's _checkValidFilterExpressions with the timeseries-metric-indexes rules of 7.0. */
function checkPartialFilter(node: MatchNode, level: number): string | undefined {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const c of node.children) {
        const e = checkPartialFilter(c, level + 1);
        if (e !== undefined) return e;
      }
      return undefined;
    case 'eq':
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
    case 'exists':
    case 'type':
    case 'in':
    case 'alwaysTrue':
      return undefined;
    default:
      return `Expression not supported in partial index: ${debugString(node)}`;
  }
}

function validatePartialFilter(raw: BsonDocument, pfe: BsonValue): void {
  if (!isPlainDocument(pfe))
    throw specError(
      raw,
      ErrorCode.CannotCreateIndex,
      '"partialFilterExpression" for an index must be a document',
    );
  let tree: MatchNode;
  try {
    tree = compileRestrictedFilter(pfe).tree;
  } catch (e) {
    if (e instanceof CommandError)
      throw new CommandError(
        e.code,
        `Error in specification ${formatBson(raw)} :: caused by :: ${e.message}`,
      );
    throw e;
  }
  if (filterDepth(pfe, 0) + 1 > partialFilterDepthMax) {
    throw specError(
      raw,
      ErrorCode.CannotCreateIndex,
      `partialFilterExpression depth may not exceed ${partialFilterDepthMax}`,
    );
  }
  const error = checkPartialFilter(tree, 0);
  if (error !== undefined) throw specError(raw, ErrorCode.CannotCreateIndex, error);
}

function validateKeyPattern(raw: BsonDocument, key: BsonDocument): void {
  const fields = Object.entries(key);
  if (fields.length === 0)
    throw specError(raw, ErrorCode.CannotCreateIndex, 'Index keys cannot be an empty field.');
  if (fields.length > limits.indexFieldsMax) {
    throw specError(
      raw,
      ErrorCode.CannotCreateIndex,
      `Index key pattern has ${fields.length} fields; the limit is ${limits.indexFieldsMax}`,
    );
  }
  for (const [field, dir] of fields) {
    if (field === '')
      throw specError(raw, ErrorCode.CannotCreateIndex, 'Index keys cannot be an empty field.');
    if (isSupportedPlugin(dir)) {
      checkPluginField(field, dir);
      continue;
    }
    if (typeof dir === 'string') {
      if (['2d', '2dsphere', 'text', 'hashed', 'geoHaystack', 'columnstore'].includes(dir)) {
        throw new CommandError(
          ErrorCode.NotImplemented,
          `index type '${dir}' is not supported yet`,
        );
      }
      throw specError(raw, ErrorCode.CannotCreateIndex, `Unknown index plugin '${dir}'`);
    }
    if (field.split('.').some((p) => p === ''))
      throw specError(
        raw,
        ErrorCode.CannotCreateIndex,
        'Index keys cannot contain an empty field.',
      );
    if (hasIllegalDollarPart(field, { wildcard: true }))
      throw specError(
        raw,
        ErrorCode.CannotCreateIndex,
        "Index key contains an illegal field name: field name starts with '$'.",
      );
    const n = numericValue(dir);
    if (n === undefined || n === 0 || Number.isNaN(n)) {
      throw specError(
        raw,
        ErrorCode.CannotCreateIndex,
        `Values in the index key pattern can only be numbers > 0, numbers < 0, or strings. Found: ${field}: ${formatBson(dir)}`,
      );
    }
  }
  try {
    checkWildcardKeyPattern(key);
  } catch (e) {
    if (e instanceof CommandError && e.code !== ErrorCode.NotImplemented)
      throw specError(raw, e.code, e.message);
    throw e;
  }
}

/** mongod's validateIndexSpecTTL (createIndexes' validateTTLOptions). */
function validateTTL(spec: BsonDocument): void {
  const v = spec['expireAfterSeconds'];
  if (v === undefined) return;
  const shown = formatBson(spec);
  const n = numericValue(v);
  if (n === undefined) {
    throw new CommandError(
      ErrorCode.CannotCreateIndex,
      `TTL index 'expireAfterSeconds' option must be numeric, but received a type of '${bsonTypeName(v)}'. Index spec: ${shown}`,
    );
  }
  if (Number.isNaN(n))
    throw new CommandError(
      ErrorCode.CannotCreateIndex,
      `TTL index 'expireAfterSeconds' option must not be NaN. Index spec: ${shown}`,
    );
  if (n > 2147483647 || n < -2147483648) {
    throw new CommandError(
      ErrorCode.CannotCreateIndex,
      `TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer. Index spec: ${shown}`,
    );
  }
  if (n < 0)
    throw new CommandError(
      ErrorCode.CannotCreateIndex,
      `TTL index 'expireAfterSeconds' option cannot be less than 0. Index spec: ${shown}`,
    );
  if (Object.keys(spec['key'] as BsonDocument).length !== 1) {
    throw new CommandError(
      ErrorCode.CannotCreateIndex,
      `TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: ${shown}`,
    );
  }
}

/**
 * An index's `collation`, checked as mongod does: the simple collation is the default and is not
 * stored; any other answers NotImplemented (its keys would be ICU sort keys, which Intl.Collator
 * cannot produce).
 */
function withoutSimpleCollation(raw: BsonDocument): BsonDocument {
  if (raw['collation'] === undefined) return raw;
  if (parseCollation(raw['collation']) !== undefined) {
    throw new CommandError(
      ErrorCode.NotImplemented,
      'indexes with a non-simple collation are not supported (index keys would need ICU sort keys); use {locale: "simple"}',
    );
  }
  const { collation: _simple, ...rest } = raw;
  return rest;
}

/** Parses and validates one spec; returns it as stored ({v, key, name, ...options}). */
export function validateIndexSpec(raw: BsonValue, position: number): BsonDocument {
  if (!isPlainDocument(raw)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'createIndexes.indexes.${position}' is the wrong type '${bsonTypeName(raw)}', expected type 'object'`,
    );
  }
  raw = withoutSimpleCollation(raw);
  const plugin = isPlainDocument(raw['key']) ? pluginOf(raw['key']) : undefined;
  for (const opt of Object.keys(raw)) {
    if (pluginAcceptsOption(plugin, opt)) continue;
    if (notImplementedOptions.has(opt))
      throw new CommandError(
        ErrorCode.NotImplemented,
        `index option '${opt}' is not supported yet`,
      );
    if (!acceptedOptions.has(opt)) {
      throw specError(
        raw,
        ErrorCode.InvalidIndexSpecificationOption,
        `The field '${opt}' is not valid for an index specification. Specification: ${formatBson(raw)}`,
      );
    }
  }
  const key = raw['key'];
  if (key === undefined)
    throw specError(
      raw,
      ErrorCode.FailedToParse,
      "The 'key' field is a required property of an index specification",
    );
  if (!isPlainDocument(key))
    throw specError(
      raw,
      ErrorCode.TypeMismatch,
      `The field 'key' must be an object, but got ${bsonTypeName(key)}`,
    );
  const name = raw['name'];
  if (name === undefined)
    throw specError(
      raw,
      ErrorCode.FailedToParse,
      "The 'name' field is a required property of an index specification",
    );
  if (typeof name !== 'string')
    throw specError(
      raw,
      ErrorCode.TypeMismatch,
      `The field 'name' must be a string, but got ${bsonTypeName(name)}`,
    );
  validateKeyPattern(raw, key);
  checkWildcardSpec(raw);
  if (name === '') throw specError(raw, ErrorCode.CannotCreateIndex, 'index name cannot be empty');
  if (name.includes('\0'))
    throw specError(raw, ErrorCode.CannotCreateIndex, 'index name cannot contain NUL bytes');
  const v = raw['v'];
  if (v !== undefined) {
    const n = numericValue(v);
    if (n !== 1 && n !== 2)
      throw specError(
        raw,
        ErrorCode.CannotCreateIndex,
        `Invalid index specification ${formatBson(raw)}; cannot create an index with v=${formatBson(v)}`,
      );
  }
  for (const opt of ['unique', 'sparse', 'hidden', 'background', 'prepareUnique'])
    checkBoolOption(raw, opt);
  const isId =
    Object.keys(key).length === 1 &&
    Object.keys(key)[0] === '_id' &&
    numericValue(key['_id']) === 1;
  const shownWithV = formatBson({ ...raw, v: new Int32(2) });
  if (isId) {
    for (const opt of Object.keys(raw)) {
      if (!['key', 'name', 'v', 'ns', 'background'].includes(opt)) {
        throw new CommandError(
          ErrorCode.InvalidIndexSpecificationOption,
          `The field '${opt}' is not valid for an _id index specification. Specification: ${shownWithV}`,
        );
      }
    }
  } else {
    if (name === '_id_') {
      throw new CommandError(
        ErrorCode.BadValue,
        `The index name '_id_' is reserved for the _id index, which must have key pattern {_id: 1}, found ${formatBson(key)}`,
      );
    }
    if (name === '*')
      throw new CommandError(ErrorCode.BadValue, "The index name '*' is not valid.");
  }
  const pfe = raw['partialFilterExpression'];
  if (pfe !== undefined) {
    if (trueValue(raw['sparse'] ?? false))
      throw specError(
        raw,
        ErrorCode.CannotCreateIndex,
        'cannot mix "partialFilterExpression" and "sparse" options',
      );
    validatePartialFilter(raw, pfe);
  }
  const spec: BsonDocument = { v: new Int32(2), key, name };
  for (const [k, val] of Object.entries(raw)) {
    if (k === 'key' || k === 'name' || k === 'v' || k === 'ns') continue;
    // Stored as booleans, as mongod's IDL coerces them.
    spec[k] =
      k === 'unique' ||
      k === 'sparse' ||
      k === 'hidden' ||
      k === 'background' ||
      k === 'prepareUnique'
        ? trueValue(val)
        : val;
  }
  return plugin === undefined ? spec : finishPluginSpec(plugin, spec);
}

// ---- identity -----------------------------------------------------------------------------------

/** A partial filter in a normal form: nested $and flattened, conjuncts ordered by kind and path. */
function normalFilter(spec: BsonDocument): BsonDocument | undefined {
  const pfe = spec['partialFilterExpression'];
  if (!isPlainDocument(pfe)) return undefined;
  const flatten = (n: MatchNode): MatchNode[] =>
    n.kind === 'and' ? n.children.flatMap(flatten) : [n];
  const parts = flatten(compileRestrictedFilter(pfe).tree);
  const keyOf = (n: MatchNode): string => `${n.kind}\u0000${'path' in n ? String(n.path) : ''}`;
  const sorted = [...parts].sort((a, b) =>
    keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0,
  );
  return { $and: sorted.map(serializeFilter) };
}

function sameKeyPattern(a: BsonDocument, b: BsonDocument): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k, i) => k === kb[i] && compareBson(a[k] as BsonValue, b[k] as BsonValue) === 0)
  );
}

type Comparison = 'different' | 'equivalent' | 'identical';

/** mongod's IndexDescriptor::compareIndexOptions. */
function compareIndexSpecs(candidate: BsonDocument, existing: BsonDocument): Comparison {
  if (!sameKeyPattern(candidate['key'] as BsonDocument, existing['key'] as BsonDocument))
    return 'different';
  const isId = (s: BsonDocument): boolean => s['name'] === '_id_';
  if (
    (isId(candidate) || trueValue(candidate['unique'] ?? false)) !==
    (isId(existing) || trueValue(existing['unique'] ?? false))
  )
    return 'different';
  if (trueValue(candidate['sparse'] ?? false) !== trueValue(existing['sparse'] ?? false))
    return 'different';
  if (normalWildcardProjection(candidate) !== normalWildcardProjection(existing))
    return 'different';
  const fa = normalFilter(candidate);
  const fb = normalFilter(existing);
  if ((fa === undefined) !== (fb === undefined)) return 'different';
  if (fa !== undefined && fb !== undefined && compareBson(fa, fb) !== 0) return 'different';
  const rest = (s: BsonDocument): Array<[string, BsonValue]> =>
    Object.entries(s)
      .filter(([k]) => !notComparedForEquality.has(k))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const ra = rest(candidate);
  const rb = rest(existing);
  const same =
    ra.length === rb.length &&
    ra.every(([k, v], i) => rb[i]?.[0] === k && compareBson(v, rb[i]?.[1] as BsonValue) === 0);
  return same ? 'identical' : 'equivalent';
}

/**
 * mongod's _doesSpecConflictWithExisting: 'exists' for an identical index (no error), an
 * error for a conflict, undefined when the index may be built. `pending`: the specs of the same
 * request to be built with it. An index being built with the same name or signature is
 * IndexBuildAlreadyInProgress: createIndexes waits for that build and tries again, as mongod.
 */
function conflictWith(
  coll: Collection,
  spec: BsonDocument,
  pending: readonly BsonDocument[] = [],
): 'exists' | undefined {
  const name = spec['name'] as string;
  const shown = (s: BsonDocument): string => formatBson(s);
  for (const b of coll.meta.building ?? []) {
    if (b.name === name || compareIndexSpecs(spec, b.spec) !== 'different') {
      throw new CommandError(
        ErrorCode.IndexBuildAlreadyInProgress,
        `Index build already in progress: ${b.name} on ${coll.ns} (build ${b.buildUUID ?? ''})`,
      );
    }
  }
  const existingSpecs = [...coll.meta.indexes.map((i) => i.spec), ...pending];
  const byName = existingSpecs.find((s) => s['name'] === name);
  if (byName !== undefined) {
    const c = compareIndexSpecs(spec, byName);
    if (c === 'different') {
      throw new CommandError(
        ErrorCode.IndexKeySpecsConflict,
        `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${shown(spec)}, existing index: ${shown(byName)}`,
      );
    }
    if (c === 'equivalent') {
      throw new CommandError(
        ErrorCode.IndexOptionsConflict,
        `An equivalent index already exists with the same name but different options. Requested index: ${shown(spec)}, existing index: ${shown(byName)}`,
      );
    }
    return 'exists';
  }
  for (const existing of existingSpecs) {
    const c = compareIndexSpecs(spec, existing);
    if (c === 'different') continue;
    if (c === 'equivalent') {
      throw new CommandError(
        ErrorCode.IndexOptionsConflict,
        `An equivalent index already exists with a different name and options. Requested index: ${shown(spec)}, existing index: ${shown(existing)}`,
      );
    }
    throw new CommandError(
      ErrorCode.IndexOptionsConflict,
      `Index already exists with a different name: ${String(existing['name'])}`,
    );
  }
  checkPluginConflicts(coll, spec);
  if (
    coll.indexes.length + coll.building.length + pending.length >=
    limits.indexesPerCollectionMax
  ) {
    throw new CommandError(
      ErrorCode.CannotCreateIndex,
      `add index fails, too many indexes for ${coll.ns} key:${formatBson(spec['key'] as BsonDocument)}`,
    );
  }
  return undefined;
}

// ---- build ------------------------------------------------------------------------------------

/** Inside a write transaction: add the index and build its entries from existing documents. */
export function buildIndex(
  txn: WriteTxn,
  catalog: Catalog,
  coll: Collection,
  spec: BsonDocument,
): Collection {
  const meta: IndexMeta = {
    name: spec['name'] as string,
    key: spec['key'] as BsonDocument,
    spec,
    ident: `i:${coll.meta.uuid}:${coll.meta.nextIndexIdent}`,
  };
  const updated = catalog.updateMeta(
    txn,
    coll,
    {
      ...coll.meta,
      indexes: [...coll.meta.indexes, meta],
      nextIndexIdent: coll.meta.nextIndexIdent + 1,
    },
    { op: 'createIndexes', specs: [spec] },
  );
  const index = updated.index(meta.name);
  if (index === undefined)
    throw new CommandError(ErrorCode.InternalError, 'index vanished during build');
  for (const rec of updated.scanRecords(txn)) {
    const keys = index.keysFor(rec.doc, txn);
    try {
      index.checkInsert(txn, keys, rec.recordId, rec.doc);
    } catch (e) {
      if (e instanceof CommandError && e.code === ErrorCode.DuplicateKey) {
        throw new CommandError(
          e.code,
          `Index build failed: ${coll.meta.uuid}: Collection ${coll.ns} ( ${coll.meta.uuid} ) :: caused by :: ${e.message}`,
          { ...(e.info === undefined ? {} : { info: e.info }) },
        );
      }
      throw e;
    }
    index.addEntries(txn, keys, rec.recordId);
  }
  return updated;
}

interface CreateOutcome {
  readonly existed: boolean;
  readonly before: number;
  readonly after: number;
  readonly created: number;
}

/** How long createIndexes waits between looks at what it waits for (a build, a transaction). */
const buildWaitPollMs = 50;

/** Resolves when one of `waits` settles or after `ms`, whichever is first. */
async function waitAny(waits: readonly Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    ...waits.map((w) => w.catch(() => undefined)),
    new Promise<void>((r) => (timer = setTimeout(r, ms))),
  ]);
  if (timer !== undefined) clearTimeout(timer);
}

/**
 * createIndexes' work: indexes on an empty (or new) collection, or in a transaction, are built
 * in the registering write itself; on a collection with documents, by a hybrid build
 * (index-build.ts) that this waits for. A spec whose index is being built waits for that build
 * and looks again (mongod's IndexBuildAlreadyInProgress loop), as does a collection with open
 * transactions that wrote to it.
 *
 * In a transaction, as mongod: the write is the transaction's (a collection it creates and the
 * indexes are its own until it commits); new indexes only on a collection it created and that
 * has no documents yet, or on none (created here); all indexes already there is no error.
 */
async function createOrBuild(
  services: ServerServices,
  op: OperationContext,
  db: string,
  name: string,
  specs: readonly BsonDocument[],
): Promise<CreateOutcome> {
  const inTransaction = op.access.transaction !== undefined;
  const write = <T>(fn: (txn: WriteTxn) => T): Promise<T> =>
    inTransaction
      ? op.access.write(fn)
      : services.engine.write(fn, { durable: op.writeConcern.durable });
  for (;;) {
    op.checkDeadline();
    let waits: Promise<unknown>[] = [];
    const step = await write((txn) => {
      const existing = services.catalog.get(db, name, txn);
      // Created by another session after the transaction's snapshot: mongod's transaction
      // would create it itself and conflict.
      if (existing !== undefined && !services.catalog.visibleIn(txn, existing))
        throw writeConflictError();
      if (existing === undefined && lookupView(services.catalog, txn, db, name) !== undefined) {
        throw new CommandError(
          ErrorCode.CommandNotSupportedOnView,
          'Cannot create indexes on a view',
        );
      }
      let coll = services.catalog.getOrCreate(txn, db, name);
      const before = coll.indexes.length;
      const toBuild: BsonDocument[] = [];
      try {
        for (const spec of specs) {
          if (conflictWith(coll, spec, toBuild) === 'exists') continue;
          toBuild.push(spec);
        }
      } catch (e) {
        if (e instanceof CommandError && e.code === ErrorCode.IndexBuildAlreadyInProgress) {
          if (inTransaction) throw e;
          waits = services.indexBuilds.forCollection(coll.meta.uuid).map((b) => b.done);
          return undefined;
        }
        throw e;
      }
      const createdHere = existing === undefined || services.catalog.createdIn(txn, existing);
      const outcome = { existed: !createdHere, before, created: toBuild.length };
      if (toBuild.length === 0) return { ...outcome, after: before, build: undefined };
      const empty = existing === undefined || coll.scanRecords(txn).next().done === true;
      if (inTransaction && !createdHere) {
        throw new CommandError(
          ErrorCode.OperationNotSupportedInTransaction,
          `Cannot create new indexes on existing collection ${db}.${name} in a multi-document transaction.`,
        );
      }
      if (inTransaction && !empty) {
        throw new CommandError(
          ErrorCode.OperationNotSupportedInTransaction,
          `Cannot create new indexes on non-empty collection ${db}.${name} in a multi-document transaction.`,
        );
      }
      if (empty || inTransaction) {
        for (const spec of toBuild) coll = buildIndex(txn, services.catalog, coll, spec);
        return { ...outcome, after: coll.indexes.length, build: undefined };
      }
      const pending = services.indexBuilds.pendingTransactions(coll);
      if (pending.length > 0) {
        waits = pending;
        return undefined;
      }
      const build = services.indexBuilds.register(txn, coll, toBuild);
      return { ...outcome, after: before, build };
    });
    if (step === undefined) {
      await waitAny(waits, buildWaitPollMs);
      continue;
    }
    if (step.build === undefined) return step;
    try {
      const built = await services.indexBuilds.run(step.build, op, op.writeConcern.durable);
      return { ...step, before: built.numIndexesBefore, after: built.numIndexesAfter };
    } catch (e) {
      // The collection dropped during the build: not an error (mongod's createIndexes).
      if (e instanceof CommandError && e.code === ErrorCode.NamespaceNotFound) return step;
      throw e;
    }
  }
}

export const createIndexes = defineCommand({
  name: 'createIndexes',
  auth: onCollection('createIndex'),
  args: {
    indexes: t.array,
    commitQuorum: t.any,
    ignoreUnknownIndexOptions: t.bool,
    isTimeseriesNamespace: t.ignored,
    collectionUUID: t.ignored,
  },
  traits: { isWrite: true, allowedInTransaction: true, apiVersion1: true },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const target = targetCollection(inv, { allowSystem: false });
    if (args.indexes === undefined) throw missingFieldError('createIndexes.indexes');
    // A time-series collection: the indexes are built on its buckets, keys mapped as mongod's.
    const ts = timeseriesTargetOf(services, op, db, target);
    const name = ts === undefined ? target : ts.buckets.name;
    const given =
      ts === undefined
        ? args.indexes
        : args.indexes.map((s, i) =>
            bucketsIndexSpec(ts.options, s, validateIndexSpec(s, i)['name'] ?? null),
          );
    const rawSpecs =
      args.ignoreUnknownIndexOptions === true
        ? given.map((s) =>
            isPlainDocument(s)
              ? Object.fromEntries(
                  Object.entries(s).filter(
                    ([k]) =>
                      acceptedOptions.has(k) || notImplementedOptions.has(k) || k === 'collation',
                  ),
                )
              : s,
          )
        : given;
    // mongod gives an index without `collation` the collection's default: one we cannot build.
    if (
      collectionCollation(services.catalog.get(db, name, op.access.transaction)) !== undefined &&
      rawSpecs.some((s) => isPlainDocument(s) && s['collation'] === undefined)
    ) {
      throw new CommandError(
        ErrorCode.NotImplemented,
        'indexes on a collection with a default collation must give collation {locale: "simple"} (collated indexes are not supported)',
      );
    }
    const specs = rawSpecs.map((s, i) => validateIndexSpec(s as BsonValue, i));
    if (specs.length === 0)
      throw new CommandError(ErrorCode.BadValue, 'Must specify at least one index to create');
    for (const spec of specs) validateTTL(spec);
    const inTransaction = op.access.transaction !== undefined;
    const result = await createOrBuild(services, op, db, name, specs);
    const reply: BsonDocument = {
      numIndexesBefore: new Int32(result.before),
      numIndexesAfter: new Int32(result.after),
      createdCollectionAutomatically: !result.existed,
    };
    if (result.created === 0) reply['note'] = 'all indexes already exist';
    else if (result.created < specs.length) reply['note'] = 'index already exists';
    if (result.created > 0 && result.existed && services.config.replSet !== '' && !inTransaction)
      reply['commitQuorum'] = 'votingMembers';
    return withWriteConcernError(reply, op.writeConcern, services.config.replSet);
  },
});

export const listIndexes = defineCommand({
  name: 'listIndexes',
  auth: onCollection('listIndexes'),
  args: {
    cursor: t.document,
    includeBuildUUIDs: t.ignored,
    includeIndexBuildInfo: t.ignored,
    collectionUUID: t.ignored,
  },
  traits: { allowedInTransaction: false, apiVersion1: true },
  run: (inv) => {
    const { services, db } = inv;
    const name = targetCollection(inv);
    const coll = services.catalog.get(db, name);
    const ts = coll === undefined ? timeseriesTargetOf(services, inv.op, db, name) : undefined;
    const buckets = ts === undefined ? undefined : services.catalog.get(db, ts.buckets.name);
    const ns = `${db}.$cmd.listIndexes.${name}`;
    const batchSize = parseCursorOption('listIndexes', inv.args.cursor);
    if (ts !== undefined && buckets !== undefined)
      return queuedCursorReply(inv, ns, listedTimeseriesIndexes(ts.options, buckets), batchSize);
    if (coll === undefined && viewOf(services, inv.op, db, name) !== undefined)
      throw notACollection(db, name);
    if (coll === undefined)
      throw new CommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${db}.${name}`);
    // A clustered collection's _id index is its clustered index (mongod shows only that).
    const specs = coll.meta.indexes.map((i) =>
      i.name === '_id_' ? (clusteredIndexEntry(coll) ?? i.spec) : i.spec,
    );
    return queuedCursorReply(inv, ns, specs, batchSize);
  },
});

export const dropIndexes = defineCommand({
  name: 'dropIndexes',
  auth: onCollection('dropIndex'),
  aliases: ['deleteIndexes'],
  args: { index: t.any, collectionUUID: t.ignored },
  traits: { isWrite: true, apiVersion1: true },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const target = targetCollection(inv);
    const ts = timeseriesTargetOf(services, op, db, target);
    const name = ts === undefined ? target : ts.buckets.name;
    const which =
      ts !== undefined && isPlainDocument(args.index)
        ? bucketsIndexKey(ts.options, args.index)
        : args.index;
    if (which === undefined) throw missingFieldError('dropIndexes.index');
    if (Array.isArray(which) && !which.every((n) => typeof n === 'string')) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        "BSON field 'dropIndexes.index' is the wrong type 'array', expected types '[string']",
      );
    }
    if (typeof which !== 'string' && !Array.isArray(which) && !isPlainDocument(which)) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `BSON field 'dropIndexes.index' is the wrong type '${bsonTypeName(which)}', expected types '[string, object']`,
      );
    }
    const building = services.catalog.get(db, name);
    const aborting = building === undefined ? undefined : buildsToAbort(services, building, which);
    if (aborting !== undefined) {
      for (const b of aborting.builds)
        await services.indexBuilds.abort(b, `dropIndexes command on ${db}.${name}`);
      if (aborting.remaining === undefined) {
        const after = services.catalog.get(db, name);
        return withWriteConcernError(
          { nIndexesWas: new Int32(after?.indexes.length ?? 0) },
          op.writeConcern,
          services.config.replSet,
        );
      }
    }
    const remaining = aborting?.remaining ?? which;
    const outcome = await op.access.write((txn) => {
      const coll = services.catalog.get(db, name);
      if (coll === undefined && lookupView(services.catalog, txn, db, name) !== undefined) {
        throw new CommandError(
          ErrorCode.CommandNotSupportedOnView,
          `Cannot drop indexes on view ${db}.${name}`,
        );
      }
      if (coll === undefined)
        throw new CommandError(ErrorCode.NamespaceNotFound, `ns not found ${db}.${name}`);
      const toDrop = selectIndexes(coll, remaining);
      for (const meta of toDrop) txn.clearTable(meta.ident);
      const keep = coll.meta.indexes.filter((i) => !toDrop.includes(i));
      services.catalog.updateMeta(
        txn,
        coll,
        { ...coll.meta, indexes: keep },
        { op: 'dropIndexes', specs: toDrop.map((m) => m.spec) },
      );
      return coll.indexes.length;
    });
    const reply: BsonDocument = { nIndexesWas: new Int32(outcome) };
    if (which === '*') reply['msg'] = 'non-_id indexes dropped for collection';
    return withWriteConcernError(reply, op.writeConcern, services.config.replSet);
  },
});

/**
 * dropIndexes of indexes being built (mongod 4.4+): the builds that hold them are aborted, and
 * only whole builds: naming some indexes of a build and not the others is refused. `remaining`:
 * what is still to drop among the ready indexes (undefined: nothing). Undefined when no index
 * being built is named.
 */
function buildsToAbort(
  services: ServerServices,
  coll: Collection,
  which: BsonValue,
): { builds: IndexBuild[]; remaining: BsonValue | undefined } | undefined {
  const building = coll.meta.building ?? [];
  if (building.length === 0) return undefined;
  const builds = services.indexBuilds.forCollection(coll.meta.uuid);
  if (which === '*') return { builds, remaining: '*' };
  let named: IndexMeta[];
  let remaining: BsonValue | undefined;
  if (typeof which === 'string' || Array.isArray(which)) {
    const names = typeof which === 'string' ? [which] : (which as string[]);
    named = building.filter((m) => names.includes(m.name));
    const rest = names.filter((n) => !named.some((m) => m.name === n));
    remaining = rest.length === 0 ? undefined : typeof which === 'string' ? which : rest;
  } else if (isPlainDocument(which)) {
    if (coll.meta.indexes.some((i) => sameKeyPattern(i.key, which))) return undefined;
    named = building.filter((m) => sameKeyPattern(m.key, which));
    remaining = undefined;
  } else return undefined;
  if (named.length === 0) return undefined;
  const hit = builds.filter((b) => named.some((m) => m.buildUUID === b.buildUUID));
  for (const b of hit) {
    if (!b.names.every((n) => named.some((m) => m.name === n))) {
      throw new CommandError(
        ErrorCode.BackgroundOperationInProgressForNamespace,
        `Cannot drop index(es) '${named.map((m) => m.name).join(', ')}' on ${coll.ns}: they are built together with '${b.names.join(', ')}' by build ${b.buildUUID}; drop all of them at once`,
      );
    }
  }
  return { builds: hit, remaining };
}

function selectIndexes(coll: Collection, which: BsonValue): IndexMeta[] {
  if (which === '*') return coll.meta.indexes.filter((i) => i.name !== '_id_');
  const byName = (n: string): IndexMeta => {
    if (n === '*')
      throw new CommandError(
        ErrorCode.BadValue,
        "The index name '*' is not valid when dropping a list of indexes",
      );
    if (n === '_id_') throw new CommandError(ErrorCode.InvalidOptions, 'cannot drop _id index');
    const m = coll.meta.indexes.find((i) => i.name === n);
    if (m === undefined)
      throw new CommandError(ErrorCode.IndexNotFound, `index not found with name [${n}]`);
    return m;
  };
  if (typeof which === 'string') return [byName(which)];
  if (Array.isArray(which)) return which.map((n) => byName(n as string));
  const key = which as BsonDocument;
  const matches = coll.meta.indexes.filter((i) => sameKeyPattern(i.key, key));
  if (matches.length === 0)
    throw new CommandError(
      ErrorCode.IndexNotFound,
      `can't find index with key: ${formatBson(key)}`,
    );
  if (matches.length > 1) {
    throw new CommandError(
      ErrorCode.AmbiguousIndexKeyPattern,
      `${matches.length} indexes found for key: ${formatBson(key)}, identify by name instead. Conflicting indexes: ${matches.map((m) => formatBson(m.spec)).join(', ')}`,
    );
  }
  const m = matches[0] as IndexMeta;
  if (m.name === '_id_') throw new CommandError(ErrorCode.InvalidOptions, 'cannot drop _id index');
  return [m];
}

// ---- collMod index ------------------------------------------------------------------------------

/** What else the collMod asks besides its index change (mongod counts modifications). */
export interface CollModIndexContext {
  /** collMod's dryRun: check a unique conversion, change nothing. */
  readonly dryRun: boolean;
  /** How many collection-level modifications the same collMod makes. */
  readonly otherModifications: number;
  /** Checks for killOp / maxTimeMS during the duplicate scan. */
  readonly interrupt: () => void;
  /** The duplicate scan done before the write transaction, if one was (scanUniqueConversion). */
  readonly scanned?: ScannedConversion;
}

/** A unique conversion's duplicate scan, done on a snapshot before collMod's transaction. */
export interface ScannedConversion {
  /** The collection's metadata the scan saw: any change since means scanning again. */
  readonly meta: Collection['meta'];
  readonly index: string;
}

/**
 * collMod's duplicate scan for `unique: true` (or its dryRun), before the write transaction:
 * on a snapshot, in slices that give the event loop back and check killOp and maxTimeMS
 * between them (mongod scans under an intent lock). Duplicates fail the collMod as the scan
 * in the transaction would. Undefined when there is nothing to scan (no such index, already
 * unique, not prepared: the transaction reports those cases).
 *
 * A clean scan holds for the transaction while the collection's metadata is unchanged: the
 * index was prepareUnique when the snapshot was taken, and a prepared index refuses every new
 * duplicate key, so no write after the snapshot can have made one; the transaction then skips
 * its own scan. Any metadata change in between (prepareUnique turned off and on, say) makes it
 * scan again in the transaction.
 */
export async function scanUniqueConversion(
  view: ReadView,
  coll: Collection,
  option: BsonDocument,
  op: Pick<OperationContext, 'checkDeadline'>,
): Promise<ScannedConversion | undefined> {
  // ({name: 'x', unique: true} has two keys; so has {keyPattern: {...}, unique: true}.)
  // Only the plain conversion ({name | keyPattern, unique: true}): any other option is
  // checked in the transaction first, with its own error, and the scan is done there.
  const keys = Object.keys(option);
  if (option['unique'] !== true || keys.length !== 2) return undefined;
  const name = option['name'];
  const keyPattern = option['keyPattern'];
  const metas = coll.meta.indexes.filter((i) =>
    typeof name === 'string'
      ? i.name === name
      : isPlainDocument(keyPattern) && sameKeyPattern(i.key, keyPattern),
  );
  const meta = metas.length === 1 ? metas[0] : undefined;
  const access = meta === undefined ? undefined : coll.index(meta.name);
  if (meta === undefined || access === undefined || access.unique || !access.prepareUnique)
    return undefined;
  const steps = access.duplicateScan(view, limits.collModDuplicateRecordsMax);
  let sliceEnd = performance.now() + limits.execSliceMs;
  let groups: RecordId[][];
  for (;;) {
    const r = steps.next();
    if (r.done === true) {
      groups = r.value;
      break;
    }
    if (performance.now() >= sliceEnd) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      op.checkDeadline();
      sliceEnd = performance.now() + limits.execSliceMs;
    }
  }
  if (groups.length > 0) throw duplicatesError(view, coll, groups);
  return { meta: coll.meta, index: meta.name };
}

/** One collMod index option that is a flag: true, false, or absent (a number counts). */
function flagOption(option: BsonDocument, field: string): boolean | undefined {
  const v = option[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean' && numericValue(v) === undefined)
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'collMod.index.${field}' is the wrong type '${bsonTypeName(v)}', expected types '[bool, long, int, decimal, double]'`,
    );
  return trueValue(v);
}

/**
 * The records holding duplicate keys in `index`, as collMod reports them: CannotConvertIndexToUnique
 * with `violations: [{ids: [...]}, ...]` (the _ids of each group of records sharing a key).
 */
function refuseDuplicates(
  view: ReadView,
  coll: Collection,
  index: IndexAccess,
  interrupt: () => void,
): void {
  const groups = index.duplicateGroups(view, limits.collModDuplicateRecordsMax, interrupt);
  if (groups.length > 0) throw duplicatesError(view, coll, groups);
}

/** CannotConvertIndexToUnique for these groups of records sharing a key. */
function duplicatesError(view: ReadView, coll: Collection, groups: RecordId[][]): CommandError {
  // The reply lists _ids up to a byte budget, at least one.
  const violations: Array<{ ids: BsonValue[] }> = [];
  let bytes = 0;
  let cut = groups.flat().length >= limits.collModDuplicateRecordsMax;
  for (const group of groups) {
    const ids: BsonValue[] = [];
    for (const recordId of group) {
      const id = coll.getRecord(view, recordId)?.doc['_id'] ?? null;
      bytes += BSON.calculateObjectSize({ id });
      if (bytes > limits.collModViolationIdBytesMax && (violations.length > 0 || ids.length > 0)) {
        cut = true;
        break;
      }
      ids.push(id);
    }
    if (ids.length > 0) violations.push({ ids });
    if (cut && bytes > limits.collModViolationIdBytesMax) break;
  }
  return new CommandError(
    ErrorCode.CannotConvertIndexToUnique,
    cut
      ? 'Cannot convert the index to unique. Too many conflicting documents were detected. Please resolve them and rerun collMod.'
      : 'Cannot convert the index to unique. Please resolve conflicting documents before running collMod again.',
    { info: { violations } },
  );
}

/**
 * collMod {index: {name | keyPattern, hidden?, expireAfterSeconds?, prepareUnique?, unique?,
 * forceNonUnique?}}: inside the collMod's write transaction, changes one index's spec; returns
 * the index's name and the reply fields for what changed (hidden_old/new,
 * expireAfterSeconds_old/new, prepareUnique_old/new, unique_new, forceNonUnique_new).
 *
 * An index becomes unique in two steps, as in mongod: `prepareUnique: true` makes it refuse new
 * duplicate keys, then `unique: true` converts it when no key has two records (otherwise
 * CannotConvertIndexToUnique lists them). `forceNonUnique: true` converts it back.
 */
export function modifyIndex(
  txn: WriteTxn,
  catalog: Catalog,
  coll: Collection,
  option: BsonDocument,
  context: CollModIndexContext,
): { name: string; reply: BsonDocument } {
  for (const k of Object.keys(option)) {
    if (
      ![
        'name',
        'keyPattern',
        'hidden',
        'expireAfterSeconds',
        'prepareUnique',
        'unique',
        'forceNonUnique',
      ].includes(k)
    ) {
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'collMod.index.${k}' is an unknown field.`,
      );
    }
  }
  const unique = flagOption(option, 'unique');
  const prepareUnique = flagOption(option, 'prepareUnique');
  const forceNonUnique = flagOption(option, 'forceNonUnique');
  if (context.dryRun && unique !== true)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'dry run mode requires an index modification with unique: true.',
    );
  const name = option['name'];
  const keyPattern = option['keyPattern'];
  if (name !== undefined && keyPattern !== undefined)
    throw new CommandError(ErrorCode.InvalidOptions, 'Cannot specify both key pattern and name.');
  if (name === undefined && keyPattern === undefined)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'Must specify either index name or key pattern.',
    );
  const hidden = option['hidden'];
  const ttl = option['expireAfterSeconds'];
  if (
    hidden === undefined &&
    ttl === undefined &&
    unique === undefined &&
    prepareUnique === undefined &&
    forceNonUnique === undefined
  )
    throw new CommandError(
      ErrorCode.InvalidOptions,
      'no expireAfterSeconds, hidden, unique, or prepareUnique field',
    );
  if (unique !== undefined && forceNonUnique !== undefined)
    throw new CommandError(
      ErrorCode.InvalidOptions,
      "collMod does not support 'unique' and 'forceNonUnique' options at the same time",
    );
  let meta: IndexMeta | undefined;
  if (name !== undefined) {
    if (typeof name !== 'string')
      throw new CommandError(
        ErrorCode.TypeMismatch,
        "BSON field 'collMod.index.name' is the wrong type, expected type 'string'",
      );
    meta = coll.meta.indexes.find((i) => i.name === name);
    if (meta === undefined)
      throw new CommandError(
        ErrorCode.IndexNotFound,
        `cannot find index ${name} for ns ${coll.ns}`,
      );
  } else {
    if (!isPlainDocument(keyPattern))
      throw new CommandError(
        ErrorCode.TypeMismatch,
        "BSON field 'collMod.index.keyPattern' is the wrong type, expected type 'object'",
      );
    const found = coll.meta.indexes.filter((i) => sameKeyPattern(i.key, keyPattern));
    if (found.length > 1) {
      throw new CommandError(
        ErrorCode.AmbiguousIndexKeyPattern,
        `index keyPattern ${formatBson(keyPattern)} matches ${found.length} indexes, must use index name. Conflicting indexes: ${found.map((f) => formatBson(f.spec)).join(', ')}`,
      );
    }
    meta = found[0];
    if (meta === undefined)
      throw new CommandError(
        ErrorCode.IndexNotFound,
        `cannot find index ${formatBson(keyPattern)} for ns ${coll.ns}`,
      );
  }
  const spec: BsonDocument = { ...meta.spec };
  const reply: BsonDocument = {};
  if (ttl !== undefined) {
    const n = numericValue(ttl);
    if (n === undefined || Number.isNaN(n) || n < 0 || n > 2147483647) {
      throw new CommandError(
        ErrorCode.BadValue,
        "TTL index 'expireAfterSeconds' option must be a number between 0 and 2147483647",
      );
    }
    if (meta.name === '_id_')
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'the _id field does not support TTL indexing',
      );
    if (Object.keys(meta.key).length !== 1)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'TTL indexes are single-field indexes, compound indexes do not support TTL',
      );
    const old = spec['expireAfterSeconds'];
    const now = Long.fromNumber(Math.trunc(n));
    if (old === undefined || numericValue(old) !== Math.trunc(n)) {
      reply['expireAfterSeconds_old'] = old === undefined ? null : old;
      reply['expireAfterSeconds_new'] = now;
      spec['expireAfterSeconds'] = Number.isInteger(n) ? new Int32(n) : new Double(Math.trunc(n));
    }
  }
  if (hidden !== undefined) {
    if (typeof hidden !== 'boolean')
      throw new CommandError(
        ErrorCode.TypeMismatch,
        "BSON field 'collMod.index.hidden' is the wrong type, expected type 'bool'",
      );
    if (meta.name === '_id_') throw new CommandError(ErrorCode.BadValue, "can't hide _id index");
    const old = spec['hidden'] === true;
    if (old !== hidden) {
      reply['hidden_old'] = old;
      reply['hidden_new'] = hidden;
      if (hidden) spec['hidden'] = true;
      else delete spec['hidden'];
    }
  }
  const access = coll.index(meta.name);
  // The scan before the transaction holds if nothing changed since (scanUniqueConversion).
  const scanned =
    context.scanned !== undefined &&
    context.scanned.meta === coll.meta &&
    context.scanned.index === meta.name &&
    access?.prepareUnique === true;
  const modifications =
    [ttl, hidden, unique, prepareUnique, forceNonUnique].filter((v) => v !== undefined).length +
    context.otherModifications;
  let relayout: boolean | undefined;
  if (unique !== undefined) {
    if (!unique) throw new CommandError(ErrorCode.BadValue, 'Cannot make index non-unique');
    if (access !== undefined && !access.unique && !access.prepareUnique)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        "Cannot make index unique with 'prepareUnique=false'. Run collMod to set it first.",
      );
  }
  if (context.dryRun) {
    if (modifications > 1)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'unique: true cannot be combined with any other modification in dry run mode.',
      );
    if (access !== undefined && !access.unique && !scanned)
      refuseDuplicates(txn, coll, access, context.interrupt);
    return { name: meta.name, reply: {} };
  }
  if (unique === true && access !== undefined && !access.unique) {
    if (!scanned) refuseDuplicates(txn, coll, access, context.interrupt);
    spec['unique'] = true;
    delete spec['prepareUnique'];
    reply['unique_new'] = true;
    relayout = true;
  }
  if (prepareUnique !== undefined) {
    if (modifications > 1)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'prepareUnique cannot be combined with any other modification.',
      );
    const old = access?.prepareUnique ?? false;
    if (old !== prepareUnique && access?.unique !== true) {
      reply['prepareUnique_old'] = old;
      reply['prepareUnique_new'] = prepareUnique;
      if (prepareUnique) spec['prepareUnique'] = true;
      else delete spec['prepareUnique'];
    }
  }
  if (forceNonUnique !== undefined) {
    if (!forceNonUnique)
      throw new CommandError(ErrorCode.BadValue, "'forceNonUnique: false' is not supported");
    if (meta.name === '_id_')
      throw new CommandError(ErrorCode.BadValue, 'Cannot make the _id index non-unique');
    if (access?.unique === true) {
      delete spec['unique'];
      reply['forceNonUnique_new'] = true;
      relayout = false;
    }
  }
  if (Object.keys(reply).length > 0) {
    const target = meta;
    if (relayout !== undefined) access?.relayout(txn, relayout);
    const indexes = coll.meta.indexes.map((i) => (i === target ? { ...i, spec } : i));
    catalog.updateMeta(txn, coll, { ...coll.meta, indexes });
  }
  return { name: meta.name, reply };
}

// ---- TTL ------------------------------------------------------------------------------------------

/** The server's TTL monitor: deletes through the delete command's write path (oplog included). */
export function createTtlMonitor(services: ServerServices): TtlMonitor {
  return new TtlMonitor({
    catalog: services.catalog,
    parameters: services.parameters,
    logger: services.logger,
    // A pass over many expired documents deletes in slices that yield (runSlicedWrite).
    deleteMatching: (db, coll, filter) =>
      slicedDelete(
        services,
        uninterruptible,
        { db, name: coll },
        { filter, matcher: compileQueryFilter(filter) },
        { durable: true },
      ),
  });
}

export const indexCommands: CommandDefinition[] = [createIndexes, listIndexes, dropIndexes];
