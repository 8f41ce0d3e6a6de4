// mongod's hash of a BSON value (BSONElementHasher::hash64 with seed 0), the key of a hashed
// index and the result of $toHashedIndexKey: the first 8 bytes, read as a little-endian int64,
// of the MD5 of
//
//   seed (int32 LE, 0) ‖ element
//   element := canonicalType (int32 LE) ‖ [field name ‖ 0x00, inside documents and arrays]
//              ‖ value
//
// where the value of a number of any type is its safeNumberLongForHash (int64 LE: doubles and
// decimals truncated towards zero / rounded half-even respectively, NaN 0, out-of-range values
// clamped, the double 2^63 as -2^63), the value of a document, array or code-with-scope is its
// elements in turn (code first for the latter) and then the terminating EOO element (type 0,
// empty name), and any other value is its BSON value bytes as stored (so a string and a symbol
// with the same characters hash alike: both have canonical type 15). The hash is computed on
// the encoded bytes, which is how mongod sees the value.

import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { Decimal128, Long } from 'bson';
import { encodeDocument, valueSize } from './codec.js';
import { decodeDecimal } from './numeric.js';
import type { BsonValue } from './types.js';

/** mongod's canonicalizeBSONType, by BSON type byte (EOO and undefined are 0). */
function canonicalType(type: number): number {
  switch (type) {
    case 0xff: // MinKey
      return -1;
    case 0x7f: // MaxKey
      return 127;
    case 0x00: // EOO
    case 0x06: // undefined
      return 0;
    case 0x0a: // null
      return 5;
    case 0x01: // double
    case 0x10: // int32
    case 0x12: // int64
    case 0x13: // decimal128
      return 10;
    case 0x02: // string
    case 0x0e: // symbol
      return 15;
    case 0x03:
      return 20;
    case 0x04:
      return 25;
    case 0x05:
      return 30;
    case 0x07:
      return 35;
    case 0x08:
      return 40;
    case 0x09:
      return 45;
    case 0x11: // timestamp
      return 47;
    case 0x0b: // regex
      return 50;
    case 0x0c: // DBPointer
      return 55;
    case 0x0d: // code
      return 60;
    case 0x0f: // code with scope
      return 65;
    default:
      return 0;
  }
}

const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);
const TWO_63 = 2 ** 63;

function clampLong(n: bigint): bigint {
  return n > LONG_MAX ? LONG_MAX : n < LONG_MIN ? LONG_MIN : n;
}

/** A decimal128 rounded half-even to an integer, clamped to int64 (NaN: 0). */
function decimalForHash(d: Decimal128): bigint {
  const dec = decodeDecimal(d);
  if (dec.kind === 'nan') return 0n;
  if (dec.kind === 'inf') return dec.sign === 1 ? LONG_MIN : LONG_MAX;
  let n: bigint;
  if (dec.exp >= 0) {
    // Avoid building huge powers: anything with more than 19 integer digits is out of range.
    n = dec.coef === 0n ? 0n : dec.exp > 40 ? LONG_MAX + 1n : dec.coef * 10n ** BigInt(dec.exp);
  } else {
    const scale = 10n ** BigInt(-dec.exp);
    const q = dec.coef / scale;
    const r = dec.coef % scale;
    const twice = r * 2n;
    n = twice > scale || (twice === scale && q % 2n === 1n) ? q + 1n : q;
  }
  return clampLong(dec.sign === 1 ? -n : n);
}

/** safeNumberLongForHash of a numeric element's value bytes. */
function numberForHash(type: number, view: DataView, at: number): bigint {
  switch (type) {
    case 0x10:
      return BigInt(view.getInt32(at, true));
    case 0x12:
      return view.getBigInt64(at, true);
    case 0x01: {
      const x = view.getFloat64(at, true);
      if (Number.isNaN(x)) return 0n;
      if (x === TWO_63) return LONG_MIN;
      if (!(x < TWO_63)) return LONG_MAX;
      if (x < -TWO_63) return LONG_MIN;
      return BigInt(Math.trunc(x));
    }
    default: {
      const bytes = new Uint8Array(view.buffer, view.byteOffset + at, 16);
      return decimalForHash(new Decimal128(bytes));
    }
  }
}

function int32LE(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32LE(n, 0);
  return b;
}

/** Hashes the element at `at` of an encoded document; returns where the next one starts. */
function hashElement(
  h: Hash,
  bytes: Uint8Array,
  view: DataView,
  at: number,
  named: boolean,
): number {
  const type = bytes[at] as number;
  h.update(int32LE(canonicalType(type)));
  if (type === 0) return at + 1; // EOO: its type only (its name is empty, of size 0)
  let nameEnd = at + 1;
  while (bytes[nameEnd] !== 0) nameEnd++;
  if (named) h.update(bytes.subarray(at + 1, nameEnd + 1));
  const value = nameEnd + 1;
  const size = valueSize(type, bytes, value);
  if (type === 0x03 || type === 0x04) {
    hashElements(h, bytes, view, value);
  } else if (type === 0x0f) {
    // code with scope: total int32, code string (int32 length incl. NUL, chars), scope document
    const codeLength = view.getInt32(value + 4, true);
    h.update(bytes.subarray(value + 8, value + 8 + codeLength));
    hashElements(h, bytes, view, value + 8 + codeLength);
  } else if (type === 0x01 || type === 0x10 || type === 0x12 || type === 0x13) {
    const b = Buffer.allocUnsafe(8);
    b.writeBigInt64LE(numberForHash(type, view, value), 0);
    h.update(b);
  } else {
    h.update(bytes.subarray(value, value + size));
  }
  return value + size;
}

/** The elements of the document starting at `at`, then its EOO element. */
function hashElements(h: Hash, bytes: Uint8Array, view: DataView, at: number): void {
  const end = at + view.getInt32(at, true) - 1;
  let p = at + 4;
  while (p < end) p = hashElement(h, bytes, view, p, true);
  hashElement(h, bytes, view, end, true);
}

/** mongod's hash of a value (BSONElementHasher::hash64, seed 0). */
export function hashBsonValue(value: BsonValue): Long {
  // The encoder writes undefined as null; undefined hashes as its canonical type alone.
  const bytes = encodeDocument({ '': value });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = createHash('md5');
  h.update(int32LE(0));
  if (value === undefined) h.update(int32LE(canonicalType(0x06)));
  else hashElement(h, bytes, view, 4, false);
  const digest = h.digest();
  return Long.fromBigInt(digest.readBigInt64LE(0));
}
