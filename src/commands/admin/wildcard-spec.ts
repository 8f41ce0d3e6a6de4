// createIndexes' checks of wildcard index specs, as mongod 7.0's index_key_validate and
// wildcard_validation (codes as mongod's; messages follow its wording):
//
// - the key holds one wildcard field ("$**" or "a.b.$**", 7246201 for two) with a non-zero
//   number; compound wildcard indexes (7.0's {a: 1, "$**": 1}) answer NotImplemented;
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
  if (fields.length > 1) {
    throw new CommandError(
      ErrorCode.NotImplemented,
      `compound wildcard indexes are not supported yet: ${formatBson(key)}`,
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

function checkProjection(projection: BsonDocument): void {
  const paths = projectionPaths(projection);
  // The kind of the projection is that of its first path other than _id.
  const first = paths.find((p) => p.path !== '_id');
  for (const p of paths) {
    if (first === undefined || p.path === '_id' || p.included === first.included) continue;
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
  if (projection === undefined) return;
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
  checkProjection(projection);
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
