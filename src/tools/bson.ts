// The BSON classes and codec the tools use are the driver's own (it re-exports its bson), not
// an import of 'bson': the driver is CommonJS and loads bson's CommonJS build, while an ES
// import of 'bson' gets its ES build, and values of one fail `instanceof` checks of the other.

import { BSON } from 'mongodb';

export const deserialize = BSON.deserialize;
export const serialize = BSON.serialize;
export const EJSON = BSON.EJSON;
export { Double, Int32, Long, Timestamp, UUID } from 'mongodb';
export type { Document } from 'mongodb';

/** Decoding that keeps every value's BSON type (int32, double, int64 and regexes stay distinct). */
export const rawDecodeOptions = {
  promoteValues: false,
  promoteLongs: false,
  promoteBuffers: false,
  bsonRegExp: true,
} as const;
