// createIndexes' checks of wildcard index specs, as mongod 7.0's index_key_validate and
// wildcard_validation (codes as mongod's; messages follow its wording):
//
// - the key holds one wildcard field ("$**" or "a.b.$**", 7246201 for two) with a non-zero
//   number, alone or with regular fields (7.0's compound wildcard indexes, {a: 1, "b.$**": 1});
// - a compound index on all fields ({a: 1, "$**": 1}) needs a wildcardProjection (67); without
//   one the wildcard's root may not be a prefix of a regular field (7246204); with one, as the
//   7.0 jstest compound_wildcard_index_validation.js has it: inclusion and exclusion do not mix,
//   `_id` aside (7246211), an exclusion projection excludes every regular field (7246209, or
//   7246210 when no excluded path sorts after the field), and no included path is a regular
//   field or a prefix of one (7246208);
// - never unique, sparse or TTL, and only index version 2 (CannotCreateIndex, 67);
// - `wildcardProjection` only on a wildcard index (BadValue), a document (TypeMismatch), only
//   with the key {"$**": ±1} and not empty (FailedToParse); its values are numbers or booleans
//   (or sub-documents of them) (51271), all inclusions or all exclusions except `_id`
//   (31253 / 31254), and no path may be a prefix of another (7246200).

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { bsonTypeName, isPlainDocument, numericValue } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import {
  flattenProjection,
  isWildcardField,
  WILDCARD_FIELD,
  wildcardFieldOf,
} from '../../catalog/wildcard-keys.js';
import { CommandError, ErrorCode } from '../../errors.js';

function cannotCreate(message: string): CommandError {
  return new CommandError(ErrorCode.CannotCreateIndex, message);
}

function trueValue(v: BsonValue): boolean {
  if (v === null || v === undefined || v === false) return false;
  const n = numericValue(v);
  return n === undefined ? true : n !== 0;
}

/**
 * mongod's check of '$'-prefixed path components: allowed only as a DBRef field ($id, $ref,
 * $db) below the first component, or (`wildcard`) as the last component "$**" of a wildcard
 * index's field.
 */
export function hasIllegalDollarPart(field: string, options: { wildcard: boolean }): boolean {
  const parts = field.split('.');
  return parts.some((p, i) => {
    if (!p.startsWith('$')) return false;
    if (i > 0 && (p === '$id' || p === '$ref' || p === '$db')) return false;
    return !(options.wildcard && i === parts.length - 1 && p === WILDCARD_FIELD);
  });
}

/** The wildcard-specific checks of a key pattern whose fields were checked one by one. */
export function checkWildcardKeyPattern(key: BsonDocument): void {
  const fields = Object.entries(key);
  const wildcards = fields.filter(([f, v]) => isWildcardField(f) && typeof v !== 'string');
  if (wildcards.length === 0) return;
  if (wildcards.length > 1)
    throw new CommandError(
      ErrorCode.Location7246201,
      'Index Key can contain only one wildcard index field',
    );
  if (fields.some(([, v]) => typeof v === 'string'))
    throw cannotCreate("Can't use more than one index plugin for a single index.");
}

/** The path components of a dotted path (for prefix tests by component, as FieldRef's). */
function partsOf(path: string): string[] {
  return path.split('.');
}

function isPrefixOrEqual(prefix: readonly string[], path: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => path[i] === p);
}

/** FieldRef's order: component by component, a prefix first. */
function comparePaths(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** The regular (not wildcard) fields of a compound wildcard key, sorted. */
function regularFields(key: BsonDocument): string[][] {
  return Object.keys(key)
    .filter((f) => !isWildcardField(f))
    .map(partsOf)
    .sort(comparePaths);
}

/** A compound wildcard index without wildcardProjection: the wildcard's root and the fields apart. */
function checkCompoundWithoutProjection(key: BsonDocument, field: string): void {
  const regular = regularFields(key);
  if (regular.length === 0) return;
  if (field === WILDCARD_FIELD)
    throw cannotCreate(
      "Compound wildcard index on all fields ('$**') must specify a 'wildcardProjection' that excludes the regular index fields",
    );
  const root = partsOf(field).slice(0, -1);
  const hit = regular.find((r) => isPrefixOrEqual(root, r));
  if (hit !== undefined)
    throw new CommandError(
      ErrorCode.Location7246204,
      `A wildcard index field should not overlap with and index key fields if wildcard projection is empty, however '${hit.join('.')}' is overlapping with the wildcard index field.`,
    );
}

/** A compound wildcard index's projection against its regular fields (see the file comment). */
function checkCompoundProjection(
  key: BsonDocument,
  paths: ReadonlyArray<{ path: string; included: boolean }>,
): void {
  const regular = regularFields(key);
  if (regular.length === 0) return;
  const others = paths.filter((p) => p.path !== '_id');
  if (others.some((p) => p.included) && others.some((p) => !p.included))
    throw new CommandError(
      ErrorCode.Location7246211,
      'Inclusion and exclusion statements cannot combine in the wildcardProjection with an exception of explicitly including _id field',
    );
  const included = paths.filter((p) => p.included).map((p) => partsOf(p.path));
  const excluded = paths
    .filter((p) => !p.included)
    .map((p) => partsOf(p.path))
    .sort(comparePaths);
  if (!others.some((p) => p.included) && excluded.length > 0) {
    for (const r of regular) {
      if (excluded.some((e) => isPrefixOrEqual(e, r))) continue;
      const later = excluded.some((e) => comparePaths(e, r) > 0);
      throw new CommandError(
        later ? ErrorCode.Location7246209 : ErrorCode.Location7246210,
        `wildcardProjection paths must exclude all regular index fields, however '${r.join('.')}'is not excluded.`,
      );
    }
  }
  for (const r of regular) {
    const hit = included.find((i) => isPrefixOrEqual(i, r));
    if (hit !== undefined)
      throw new CommandError(
        ErrorCode.Location7246208,
        `Index Key and Wildcard Projection cannot contain overlapping fields, however '${r.join('.')}' index field is ovverlapping with '${hit.join('.')}' wildcardProjection path.`,
      );
  }
}

/** The flattened paths of a valid projection, with whether each is included. */
function projectionPaths(projection: BsonDocument): Array<{ path: string; included: boolean }> {
  return flattenProjection(projection).map(({ path, value }) => {
    if (typeof value !== 'boolean' && numericValue(value) === undefined) {
      throw new CommandError(
        ErrorCode.Location51271,
        'Bad projection specification, cannot use computed fields when parsing a spec in kBanComputedFields mode',
      );
    }
    return { path, included: trueValue(value) };
  });
}

function checkProjection(key: BsonDocument, projection: BsonDocument): void {
  const paths = projectionPaths(projection);
  const compound = Object.keys(key).length > 1;
  // The kind of the projection is that of its first path other than _id.
  const first = paths.find((p) => p.path !== '_id');
  for (const p of paths) {
    if (compound || first === undefined || p.path === '_id' || p.included === first.included)
      continue;
    throw p.included
      ? new CommandError(
          ErrorCode.Location31253,
          `Cannot do inclusion on field ${p.path} in exclusion projection`,
        )
      : new CommandError(
          ErrorCode.Location31254,
          `Cannot do exclusion on field ${p.path} in inclusion projection`,
        );
  }
  const sorted = paths.map((p) => p.path).sort();
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1] as string;
    const b = sorted[i] as string;
    if (a === b || b.startsWith(`${a}.`)) {
      throw new CommandError(
        ErrorCode.Location7246200,
        `Fields in Wildcard Projection cannot overlap, however '${a}' is overlapped with '${b}'`,
      );
    }
  }
  if (compound) checkCompoundProjection(key, paths);
}

/** The checks of a whole spec (after the key's), for wildcard and other indexes alike. */
export function checkWildcardSpec(spec: BsonDocument): void {
  const key = spec['key'] as BsonDocument;
  const field = wildcardFieldOf(key);
  const projection = spec['wildcardProjection'];
  if (field === undefined) {
    if (projection !== undefined)
      throw new CommandError(
        ErrorCode.BadValue,
        "The field 'wildcardProjection' is only allowed in an 'wildcard' index",
      );
    return;
  }
  for (const option of ['unique', 'sparse'] as const) {
    if (trueValue(spec[option] ?? false))
      throw cannotCreate(`Index type 'wildcard' does not support the ${option} option`);
  }
  if (spec['expireAfterSeconds'] !== undefined)
    throw cannotCreate("Index type 'wildcard' cannot be a TTL index");
  const v = spec['v'];
  if (v !== undefined && numericValue(v) !== 2)
    throw cannotCreate(
      `Index version ${formatBson(v)} does not support the 'wildcard' index type; it requires version 2`,
    );
  if (projection === undefined) {
    checkCompoundWithoutProjection(key, field);
    return;
  }
  if (!isPlainDocument(projection))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `The field 'wildcardProjection' must be a non-empty object, but got ${bsonTypeName(projection)}`,
    );
  if (field !== WILDCARD_FIELD)
    throw new CommandError(
      ErrorCode.FailedToParse,
      "The field 'wildcardProjection' is only allowed when 'key' is {\"$**\": ±1}",
    );
  if (Object.keys(projection).length === 0)
    throw new CommandError(
      ErrorCode.FailedToParse,
      "The 'wildcardProjection' field can't be an empty object",
    );
  checkProjection(key, projection);
}

/** A wildcard projection in a normal form, for comparing index signatures. */
export function normalWildcardProjection(spec: BsonDocument): string | undefined {
  const projection = spec['wildcardProjection'];
  if (!isPlainDocument(projection)) return undefined;
  return projectionPaths(projection)
    .map((p) => `${p.path}:${p.included ? 1 : 0}`)
    .sort()
    .join(',');
}
