// Document metadata, as mongod's Document carries it beside the fields: the text score of a
// $text search and the distance and point of a $near / $geoNear. It rides with the document
// object through the plan stages (a side table keyed by the document, so every stage that passes
// a document on passes its metadata too); a stage that builds a new document from an old one
// ($project, $addFields, $replaceRoot, $unwind) copies it over. `{$meta: ...}` reads it.

import { Double } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';

export interface DocumentMetadata {
  textScore?: number;
  geoNearDistance?: number;
  geoNearPoint?: BsonValue;
}

/** The names {$meta: ...} accepts (mongod's DocumentMetadataFields), in find and aggregation. */
export const META_FIELD_NAMES: ReadonlySet<string> = new Set([
  'textScore',
  'randVal',
  'searchScore',
  'searchHighlights',
  'geoNearDistance',
  'geoNearPoint',
  'recordId',
  'indexKey',
  'sortKey',
  'searchScoreDetails',
  'timeseriesBucketMinTime',
  'timeseriesBucketMaxTime',
]);

const metadataByDocument = new WeakMap<BsonDocument, DocumentMetadata>();

export function metadataOf(doc: BsonDocument): DocumentMetadata | undefined {
  return metadataByDocument.get(doc);
}

/** Adds fields to a document's metadata. */
export function setMetadata(doc: BsonDocument, meta: DocumentMetadata): void {
  const old = metadataByDocument.get(doc);
  metadataByDocument.set(doc, old === undefined ? { ...meta } : { ...old, ...meta });
}

/** Gives `to` the metadata of `from` (a stage's output document built from its input). */
export function copyMetadata(from: BsonDocument, to: BsonDocument): void {
  if (from === to) return;
  const meta = metadataByDocument.get(from);
  if (meta !== undefined) metadataByDocument.set(to, meta);
}

/** A document and its metadata as one document, for spill files ({d, m?}). */
export function encodeWithMetadata(doc: BsonDocument): BsonDocument {
  const meta = metadataByDocument.get(doc);
  if (meta === undefined) return { d: doc };
  const m: BsonDocument = {};
  if (meta.textScore !== undefined) m['textScore'] = new Double(meta.textScore);
  if (meta.geoNearDistance !== undefined) m['geoNearDistance'] = new Double(meta.geoNearDistance);
  if (meta.geoNearPoint !== undefined) m['geoNearPoint'] = meta.geoNearPoint;
  return { d: doc, m };
}

/** The document of encodeWithMetadata's output, its metadata restored. */
export function decodeWithMetadata(rec: BsonDocument): BsonDocument {
  const doc = rec['d'] as BsonDocument;
  const m = rec['m'] as BsonDocument | undefined;
  if (m !== undefined) {
    const meta: DocumentMetadata = {};
    const score = m['textScore'];
    const distance = m['geoNearDistance'];
    if (score instanceof Double) meta.textScore = score.value;
    if (distance instanceof Double) meta.geoNearDistance = distance.value;
    if (m['geoNearPoint'] !== undefined) meta.geoNearPoint = m['geoNearPoint'];
    metadataByDocument.set(doc, meta);
  }
  return doc;
}
