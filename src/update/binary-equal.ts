// Byte-for-byte equality of BSON values, without encoding them.
//
// mongod decides whether `$set` and a replacement are no-ops by comparing the BSON bytes
// (BSONElement::binaryEqualValues, BSONObj::binaryEqual), not by the comparison order: setting
// 1 (int32) over 1.0 (double) is a change, so is {b: 1, a: 1} over {a: 1, b: 1}, so is -0.0
// over 0.0. This walks the decoded values and answers what comparing their encodings would.

import type {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  Decimal128,
  Int32,
  Long,
  ObjectId,
  Timestamp,
} from 'bson';
import { DBRef, Double } from 'bson';
import { asDocument, bsonTypeName } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function doubleBitsEqual(x: number, y: number): boolean {
  // Object.is tells -0 from 0; every NaN the bson package decodes carries the same payload.
  return Object.is(x, y);
}

export function binaryEqualDocuments(a: BsonDocument, b: BsonDocument): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const name = ka[i] as string;
    if (name !== kb[i]) return false;
    if (!binaryEqual(a[name] as BsonValue, b[name] as BsonValue)) return false;
  }
  return true;
}

/** True when both values would encode to the same BSON type byte and value bytes. */
export function binaryEqual(a: BsonValue, b: BsonValue): boolean {
  if (a === b) return true;
  const type = bsonTypeName(a);
  if (type !== bsonTypeName(b)) return false;
  switch (type) {
    case 'double':
      return doubleBitsEqual(
        a instanceof Double ? a.value : (a as unknown as number),
        b instanceof Double ? b.value : (b as unknown as number),
      );
    case 'int':
      return (a as Int32).value === (b as Int32).value;
    case 'long':
      return (a as Long).equals(b as Long);
    case 'decimal':
      return bytesEqual((a as Decimal128).bytes, (b as Decimal128).bytes);
    case 'string':
      return a === b;
    case 'symbol':
      return (a as BSONSymbol).value === (b as BSONSymbol).value;
    case 'bool':
    case 'null':
    case 'undefined':
    case 'minKey':
    case 'maxKey':
      return (
        a === b || type === 'null' || type === 'undefined' || type === 'minKey' || type === 'maxKey'
      );
    case 'date':
      return doubleBitsEqual((a as Date).getTime(), (b as Date).getTime());
    case 'objectId':
      return bytesEqual((a as ObjectId).id, (b as ObjectId).id);
    case 'timestamp':
      return (a as Timestamp).equals(b as Timestamp);
    case 'regex':
      return (
        (a as BSONRegExp).pattern === (b as BSONRegExp).pattern &&
        (a as BSONRegExp).options === (b as BSONRegExp).options
      );
    case 'binData': {
      const x = a as Binary;
      const y = b as Binary;
      return (
        x.sub_type === y.sub_type &&
        bytesEqual(x.buffer.subarray(0, x.position), y.buffer.subarray(0, y.position))
      );
    }
    case 'javascript':
      return (a as Code).code === (b as Code).code;
    case 'javascriptWithScope':
      return (
        (a as Code).code === (b as Code).code &&
        binaryEqualDocuments(
          ((a as Code).scope ?? {}) as BsonDocument,
          ((b as Code).scope ?? {}) as BsonDocument,
        )
      );
    case 'array': {
      const x = a as BsonValue[];
      const y = b as BsonValue[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++)
        if (!binaryEqual(x[i] as BsonValue, y[i] as BsonValue)) return false;
      return true;
    }
    case 'object': {
      // A DBRef instance and a plain {$ref, $id} document encode alike.
      const x = a instanceof DBRef ? asDocument(a) : (a as BsonDocument);
      const y = b instanceof DBRef ? asDocument(b) : (b as BsonDocument);
      return x !== undefined && y !== undefined && binaryEqualDocuments(x, y);
    }
    case 'dbPointer':
      return false;
  }
}
