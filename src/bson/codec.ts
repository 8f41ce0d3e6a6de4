// Decoding and encoding documents with the options that keep BSON types distinct.

import { calculateObjectSize, deserialize, serialize } from 'bson';
import type { BsonDocument } from './types.js';

/** int32/int64/double/decimal stay as Int32/Long/Double/Decimal128; regexes as BSONRegExp. */
export const decodeOptions = {
  promoteValues: false,
  promoteLongs: false,
  promoteBuffers: false,
  bsonRegExp: true,
  useBigInt64: false,
  validation: { utf8: true },
} as const;

export function decodeDocument(bytes: Uint8Array): BsonDocument {
  return deserialize(bytes, decodeOptions) as BsonDocument;
}

export function encodeDocument(doc: BsonDocument): Uint8Array {
  return serialize(doc, { checkKeys: false, ignoreUndefined: false, serializeFunctions: false });
}

export function bsonSize(doc: BsonDocument): number {
  return calculateObjectSize(doc, { ignoreUndefined: false, serializeFunctions: false });
}
