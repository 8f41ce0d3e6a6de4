// A collection's metadata as mongodump writes it (<coll>.metadata.json, and the `metadata`
// string of an archive's prelude): canonical Extended JSON v2 of
//   {options?, indexes: [...], uuid?, collectionName, type?}
// in that order. `options` are listCollections' (validator, collation, viewOn/pipeline, ...),
// left out when empty; `indexes` are listIndexes' specs as the server reports them (none for
// views); `uuid` is the collection's UUID as 32 hex digits; `type` is listCollections' type
// ("collection", "view", "timeseries").

import { EJSON } from './bson.js';
import type { Document } from './bson.js';
import { ToolError } from './tool-error.js';

export interface CollectionMetadata {
  readonly options: Document;
  readonly indexes: readonly Document[];
  readonly uuid: string | undefined;
  readonly collectionName: string;
  readonly type: string | undefined;
}

function isPlainObject(v: unknown): v is Document {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !('_bsontype' in v) &&
    Object.getPrototypeOf(v) === Object.prototype
  );
}

export function metadataToJson(m: CollectionMetadata): string {
  const doc: Document = {};
  if (Object.keys(m.options).length > 0) doc['options'] = m.options;
  doc['indexes'] = m.indexes;
  if (m.uuid !== undefined && m.uuid !== '') doc['uuid'] = m.uuid;
  doc['collectionName'] = m.collectionName;
  if (m.type !== undefined && m.type !== '') doc['type'] = m.type;
  return EJSON.stringify(doc, { relaxed: false });
}

/**
 * Parses metadata JSON (canonical or relaxed Extended JSON, as any mongodump version wrote it).
 * An empty text is no metadata (mongorestore treats it so); anything malformed is an error.
 */
export function metadataFromJson(text: string, where: string): CollectionMetadata | undefined {
  if (text.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = EJSON.parse(text, { relaxed: false });
  } catch (e) {
    throw new ToolError(
      `error parsing metadata from ${where}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const bad = (why: string): ToolError =>
    new ToolError(`error parsing metadata from ${where}: ${why}`);
  if (!isPlainObject(parsed)) throw bad('the metadata is not a JSON object');
  const options = parsed['options'] ?? {};
  if (!isPlainObject(options)) throw bad('"options" is not an object');
  const indexes = parsed['indexes'] ?? [];
  if (!Array.isArray(indexes)) throw bad('"indexes" is not an array');
  for (const ix of indexes) {
    if (!isPlainObject(ix)) throw bad('an index specification is not an object');
    if (!isPlainObject(ix['key']))
      throw bad(`index ${JSON.stringify(ix['name'])} has no key document`);
    if (typeof ix['name'] !== 'string') throw bad('an index specification has no name');
  }
  const uuid = parsed['uuid'];
  if (uuid !== undefined && (typeof uuid !== 'string' || !/^([0-9a-fA-F]{32})?$/.test(uuid)))
    throw bad('"uuid" is not 32 hexadecimal digits');
  const collectionName = parsed['collectionName'] ?? '';
  if (typeof collectionName !== 'string') throw bad('"collectionName" is not a string');
  const type = parsed['type'];
  if (type !== undefined && typeof type !== 'string') throw bad('"type" is not a string');
  return {
    options,
    indexes: indexes as Document[],
    uuid: uuid === '' ? undefined : uuid,
    collectionName,
    type,
  };
}
