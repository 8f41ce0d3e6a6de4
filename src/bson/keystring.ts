// Index keys: an order-preserving binary encoding of BSON values ("KeyString").
//
// Comparing two encoded keys as unsigned bytes (memcmp, shorter prefix first) gives the
// lexicographic compareBson order of their parts, each part inverted where its index
// direction is -1. Values that compareBson calls equal (1, 1.0, 1L, 1.00m) encode to the
// same bytes, which is what a unique index checks. Every value's encoding is prefix-free
// (no encoding is a proper prefix of another), so parts concatenate into compound keys,
// a descending part is simply its bytes XOR 0xFF, and a suffix (the RecordId of a
// non-unique index entry) can follow the last part without disturbing the order.
//
// The encoding is canonical, so the BSON type of a number (and string vs symbol, document
// vs DBRef) is not in the key: `encodeTypeInfo` records it separately (usually 0 bytes) and
// `decodeKey(key, directions, typeInfo)` gives the original values back exactly.
//
// ---- Format -------------------------------------------------------------------------------
//
// key   := part* suffix?          part := value, all bytes XOR 0xFF when its direction is -1
// value := tag payload            (tags ascend with MongoDB's type order)
//
//   0x08  MinKey                  —
//   0x0C  undefined               —
//   0x10  null                    —
//   0x14–0xBB  numbers            see below
//   0xC0  string, symbol          str
//   0xC4  object (and DBRef)      fields
//   0xC8  array                   value* 0x00
//   0xCC  binData                 len, subtype (1 byte), the bytes;
//                                 len = 1 byte if < 0xFF, else 0xFF + 4 bytes big-endian
//   0xD0  ObjectId                12 bytes
//   0xD4  false, 0xD5 true        —
//   0xD8  date                    8 bytes: int64 ms big-endian, sign bit flipped;
//                                 an invalid Date (NaN) is 8 zero bytes (below all dates)
//   0xDC  timestamp               t (4 bytes BE), i (4 bytes BE)
//   0xE0  regex                   str pattern, str options
//   0xE8  javascript              str code
//   0xEC  javascript with scope   str code, fields scope
//   0xF0  MaxKey                  —
//
//   str    := UTF-8 bytes with 0x00 -> 01 01 and 0x01 -> 01 02, then 0x00. Byte order is
//             code point order, as compareStrings; the end marker sorts below every byte.
//             A lone surrogate (not valid UTF-8, so never in stored BSON) is written as
//             U+FFFD, as the BSON serializer writes it.
//   fields := (rank, str name, value)* 0x00 where rank = canonicalTypeRank(value) + 2,
//             the order compareDocuments uses: type, then name, then value.
//
// Numbers: by exact value, whatever the BSON type (keystring/numbers.ts).
//
//   0x14 NaN   0x15 -Infinity   0x68 zero (±0, 0L, 0m with any exponent)   0xBB +Infinity
//   x > 0, E = floor(log2 x):
//     0x69               E < -16:  E + 0x8000 (2 bytes BE), frac, tie?
//     0x6A + (E + 16)  -16 <= E <= 63, the exponent is in the tag: frac, tie?
//     0xBA               E > 63:   E + 0x8000 (2 bytes BE), frac, tie?
//   x < 0: tags 0x67 (E < -16), 0x66 - (E + 16), 0x16 (E > 63), and every byte after the
//     tag inverted (larger magnitudes sort first).
//   frac := the 52 fraction bits of T(x) = x truncated to 53 significant bits, plus a 53rd
//     bit set when x != T(x); as 7-bit chunks, most significant first, trailing zero chunks
//     dropped, byte = chunk << 1 | (1 if another chunk follows); no bits at all is 0x00.
//   tie := only when x != T(x) (int64 above 2^53, decimal128 off the binary grid):
//     e10 + 0x8000 (2 bytes BE, x = 0.d1d2... × 10^(e10+1)), then the significant decimal
//     digits as nibbles digit+1, ended by a 0 nibble.
//
//   Sizes (measured): 0 → 1 byte; 1..255 and 0.5 → 2; int32 → at most 6; 0.1 → 9; any
//   double → at most 11 (9 when 2^-16 <= |x| < 2^64); int64 → at most 21; decimal128 →
//   at most 31. Subnormals are no longer than other doubles (5e-324 → 4 bytes): the
//   exponent is not limited to the double range. An all-decimal design (exact decimal
//   expansion of every number) would need 31 bytes for 0.1 and ~380 for subnormals.
//
// Type info (encodeTypeInfo): bits, most significant first, in the order values are
// visited (depth first); trailing zero bytes are dropped, so keys of int32s, strings and
// plain documents have empty type info.
//   number: 2 bits: int32 00, double 01, int64 10, decimal 11, then
//           double zero: 1 bit (-0); decimal: see writeNumberTypeInfo (numbers.ts)
//   string: 1 bit (symbol)          document: 1 bit (DBRef), before its fields
//   Round trips are exact except: a DBRef whose db is '' comes back without db (they are
//   the same document to compareBson); a double NaN's payload bits are not kept (a decimal
//   NaN's are); a lone surrogate comes back as U+FFFD (see str); a plain JS number (not a
//   BSON value, but accepted) comes back as a Double.
//
// Key lengths: strings, binData and documents are as long as their content (plus escapes
// and markers); the storage engine rejects keys above its maxKeyBytes (KeyTooLongError).
//
// ---- Range scans ---------------------------------------------------------------------------
//
// Every key whose first n parts equal P starts with encodeKey(P, directions) (parts are
// prefix-free), whatever follows (more parts, a RecordId suffix). So `keyScanBounds` turns
// bounds on a prefix of the parts into byte bounds: a lower bound P is the start (inclusive)
// or keyPrefixUpperBound(enc(P)) (exclusive: skips every key that starts with P); an upper
// bound is keyPrefixUpperBound(enc(P)) (inclusive) or enc(P) itself. MinKey / MaxKey parts
// also work as sentinels in keys without suffix, but `keyScanBounds` needs none.

import {
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  Binary,
} from 'bson';
import type { Decimal128, Double, Int32, Long } from 'bson';
import { InvariantError } from '../errors.js';
import { limits } from '../limits.js';
import { setOwn } from './document.js';
import { BitReader, BitWriter, ByteReader, ByteWriter, corrupt } from './keystring/buffers.js';
import {
  isNumberTag,
  readNumber,
  skipNumber,
  writeDecimal,
  writeDouble,
  writeInt32,
  writeLong,
  writeNumberTypeInfo,
} from './keystring/numbers.js';
import { asDocument, bsonTypeName, canonicalTypeRank } from './types.js';
import type { BsonDocument, BsonValue } from './types.js';

export type KeyDirection = 1 | -1;

/** Type tags, ascending in MongoDB's type order. Numbers use 0x14–0xBB (NumTag). */
const Tag = {
  minKey: 0x08,
  undefined: 0x0c,
  null: 0x10,
  string: 0xc0,
  object: 0xc4,
  array: 0xc8,
  binData: 0xcc,
  objectId: 0xd0,
  false: 0xd4,
  true: 0xd5,
  date: 0xd8,
  timestamp: 0xdc,
  regex: 0xe0,
  code: 0xe8,
  codeWithScope: 0xec,
  maxKey: 0xf0,
} as const;

/** Ends arrays, field lists and strings; below every tag and rank byte. */
const end = 0x00;
const binLengthEscape = 0xff;
/** Nesting guard: BSON documents are at most bsonDepthMax deep, filters commandDepthMax. */
const nestingMax = limits.commandDepthMax + 2;

// ---- encoding ------------------------------------------------------------------------------

type ObjectIdWithSerialize = { serializeInto?: (buf: Uint8Array, index: number) => number };

function writeString(w: ByteWriter, s: string): void {
  const n = s.length;
  if (n > 48) return writeLongString(w, s);
  w.ensure(n * 3 + 1);
  const buf = w.buf;
  let p = w.pos;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c > 1) buf[p++] = c;
      else {
        buf[p++] = 1;
        buf[p++] = c + 1;
      }
    } else if (c < 0x800) {
      buf[p++] = 0xc0 | (c >>> 6);
      buf[p++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      buf[p++] = 0xe0 | (c >>> 12);
      buf[p++] = 0x80 | ((c >>> 6) & 0x3f);
      buf[p++] = 0x80 | (c & 0x3f);
    } else {
      const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        buf[p++] = 0xf0 | (cp >>> 18);
        buf[p++] = 0x80 | ((cp >>> 12) & 0x3f);
        buf[p++] = 0x80 | ((cp >>> 6) & 0x3f);
        buf[p++] = 0x80 | (cp & 0x3f);
        i++;
      } else {
        // Lone surrogate: U+FFFD, as Buffer and the BSON serializer write it.
        buf[p++] = 0xef;
        buf[p++] = 0xbf;
        buf[p++] = 0xbd;
      }
    }
  }
  buf[p++] = end;
  w.pos = p;
}

/** Long strings: let Buffer do the UTF-8, then escape 0x00 / 0x01 in place (rarely any). */
function writeLongString(w: ByteWriter, s: string): void {
  w.ensure(s.length * 3 + 1);
  const start = w.pos;
  const written = w.buf.write(s, start, 'utf8');
  let escapes = 0;
  for (let i = start; i < start + written; i++) if ((w.buf[i] as number) <= 1) escapes++;
  w.pos = start + written;
  if (escapes > 0) {
    w.ensure(escapes);
    const buf = w.buf;
    // Move backwards so that nothing is overwritten before it is read.
    let to = start + written + escapes;
    for (let from = start + written - 1; from >= start; from--) {
      const b = buf[from] as number;
      if (b <= 1) {
        buf[--to] = b + 1;
        buf[--to] = 1;
      } else buf[--to] = b;
    }
    w.pos = start + written + escapes;
  }
  w.byte(end);
}

function writeBinData(w: ByteWriter, v: Binary): void {
  const n = v.position;
  w.byte(Tag.binData);
  if (n < binLengthEscape) w.byte(n);
  else {
    w.byte(binLengthEscape);
    w.u32(n);
  }
  w.byte(v.sub_type);
  w.bytes(v.buffer.subarray(0, n));
}

function writeObjectId(w: ByteWriter, v: ObjectId): void {
  w.byte(Tag.objectId);
  // bson 7 keeps the 12 bytes packed in integers; serializeInto writes them without the
  // allocation the `id` getter makes. It is internal to bson, so fall back when absent.
  const serialize = (v as unknown as ObjectIdWithSerialize).serializeInto;
  if (typeof serialize === 'function') {
    w.ensure(12);
    serialize.call(v, w.buf, w.pos);
    w.pos += 12;
  } else w.bytes(v.id);
}

function writeDate(w: ByteWriter, v: Date): void {
  w.byte(Tag.date);
  const ms = v.getTime();
  if (ms !== ms) {
    w.u32(0);
    w.u32(0);
    return;
  }
  const hi = Math.floor(ms / 4294967296);
  w.u32((hi ^ 0x80000000) >>> 0);
  w.u32(ms - hi * 4294967296);
}

/** Walks values depth first, writing key bytes and (when asked) type info bits. */
class KeyEncoder {
  readonly w = new ByteWriter();
  readonly t = new BitWriter();
  private withTypeInfo = false;

  begin(withTypeInfo: boolean): void {
    this.w.reset();
    this.t.reset();
    this.withTypeInfo = withTypeInfo;
  }

  parts(parts: readonly BsonValue[], directions: readonly KeyDirection[] | undefined): void {
    for (let i = 0; i < parts.length; i++) {
      const start = this.w.pos;
      this.value(parts[i], 0);
      const dir = directions?.[i] ?? 1;
      if (dir === -1) this.w.invertFrom(start);
      else if (dir !== 1)
        throw new InvariantError(`index key direction must be 1 or -1, got ${String(dir)}`);
    }
  }

  value(v: BsonValue, depth: number): void {
    const w = this.w;
    switch (bsonTypeName(v)) {
      case 'minKey':
        return w.byte(Tag.minKey);
      case 'maxKey':
        return w.byte(Tag.maxKey);
      case 'null':
        return w.byte(Tag.null);
      case 'undefined':
        if (v !== undefined) throw new InvariantError(`not a BSON value: ${typeof v}`);
        return w.byte(Tag.undefined);
      case 'int':
        if (this.withTypeInfo) writeNumberTypeInfo(this.t, v as Int32);
        return writeInt32(w, v as Int32);
      case 'double': {
        const x = typeof v === 'number' ? v : (v as Double).value;
        if (this.withTypeInfo) writeNumberTypeInfo(this.t, x);
        return writeDouble(w, x);
      }
      case 'long':
        if (this.withTypeInfo) writeNumberTypeInfo(this.t, v as Long);
        return writeLong(w, v as Long);
      case 'decimal':
        if (this.withTypeInfo) writeNumberTypeInfo(this.t, v as Decimal128);
        return writeDecimal(w, v as Decimal128);
      case 'string':
        if (this.withTypeInfo) this.t.bits(0, 1);
        w.byte(Tag.string);
        return writeString(w, v as string);
      case 'symbol':
        if (this.withTypeInfo) this.t.bits(1, 1);
        w.byte(Tag.string);
        return writeString(w, (v as BSONSymbol).value);
      case 'object': {
        const doc = asDocument(v);
        if (doc === undefined)
          throw new InvariantError('not a BSON value: an object that is not a document');
        if (this.withTypeInfo) this.t.bits(v instanceof DBRef ? 1 : 0, 1);
        w.byte(Tag.object);
        return this.fields(doc, depth);
      }
      case 'array': {
        if (depth >= nestingMax) throw new InvariantError('index key nested too deeply');
        const a = v as BsonValue[];
        w.byte(Tag.array);
        for (let i = 0; i < a.length; i++) this.value(a[i], depth + 1);
        return w.byte(end);
      }
      case 'binData':
        return writeBinData(w, v as Binary);
      case 'objectId':
        return writeObjectId(w, v as ObjectId);
      case 'bool':
        return w.byte(v === true ? Tag.true : Tag.false);
      case 'date':
        return writeDate(w, v as Date);
      case 'timestamp': {
        const ts = v as Timestamp;
        w.byte(Tag.timestamp);
        w.u32(ts.t);
        return w.u32(ts.i);
      }
      case 'regex': {
        const re = v as BSONRegExp;
        w.byte(Tag.regex);
        writeString(w, re.pattern);
        return writeString(w, re.options);
      }
      case 'javascript':
        w.byte(Tag.code);
        return writeString(w, (v as Code).code);
      case 'javascriptWithScope': {
        const code = v as Code;
        w.byte(Tag.codeWithScope);
        writeString(w, code.code);
        return this.fields((code.scope ?? {}) as BsonDocument, depth);
      }
      case 'dbPointer':
        throw new InvariantError('dbPointer values cannot be index keys');
    }
  }

  /** (rank, name, value)* end: compareDocuments' order. */
  private fields(doc: BsonDocument, depth: number): void {
    if (depth >= nestingMax) throw new InvariantError('index key nested too deeply');
    const w = this.w;
    // Keys come from Object.keys, so `doc[k]` reads the own property even for `__proto__`.
    for (const k of Object.keys(doc)) {
      const v = doc[k] as BsonValue;
      w.byte(canonicalTypeRank(v) + 2);
      writeString(w, k);
      this.value(v, depth + 1);
    }
    w.byte(end);
  }
}

const encoder = new KeyEncoder();

/**
 * The index key of `parts` (one value per indexed field). `directions[i]` is the field's
 * index direction (default 1); -1 inverts that part's order.
 */
export function encodeKey(
  parts: readonly BsonValue[],
  directions?: readonly KeyDirection[],
): Uint8Array {
  encoder.begin(false);
  encoder.parts(parts, directions);
  return encoder.w.copy();
}

/** encodeKey(parts, directions) followed by `suffix` (a RecordId for non-unique indexes), in one copy. */
export function encodeKeyWithSuffix(
  parts: readonly BsonValue[],
  directions: readonly KeyDirection[] | undefined,
  suffix: Uint8Array,
): Uint8Array {
  encoder.begin(false);
  encoder.parts(parts, directions);
  return encoder.w.copy(suffix);
}

/** What decodeKey needs besides the key to give back the original types. Often empty. */
export function encodeTypeInfo(parts: readonly BsonValue[]): Uint8Array {
  encoder.begin(true);
  encoder.parts(parts, undefined);
  return encoder.t.copy();
}

/** Key and type info in one walk over the values (the write path of a covering index). */
export function encodeKeyAndTypeInfo(
  parts: readonly BsonValue[],
  directions?: readonly KeyDirection[],
  suffix?: Uint8Array,
): { key: Uint8Array; typeInfo: Uint8Array } {
  encoder.begin(true);
  encoder.parts(parts, directions);
  return { key: encoder.w.copy(suffix), typeInfo: encoder.t.copy() };
}

// ---- decoding ------------------------------------------------------------------------------

const stringScratch = new ByteWriter();

function readString(r: ByteReader): string {
  if (r.flip === 0) {
    // Ascending and without escapes (the usual case): decode the key's bytes in place.
    const buf = r.buf;
    let i = r.pos;
    while (i < buf.length && (buf[i] as number) > 1) i++;
    if (buf[i] === end) {
      const s = Buffer.from(buf.buffer, buf.byteOffset + r.pos, i - r.pos).toString('utf8');
      r.pos = i + 1;
      return s;
    }
  }
  const out = stringScratch;
  out.reset();
  for (;;) {
    const b = r.byte();
    if (b === end) break;
    if (b === 1) {
      const e = r.byte();
      if (e !== 1 && e !== 2) throw corrupt('bad string escape');
      out.byte(e - 1);
    } else out.byte(b);
  }
  return out.buf.toString('utf8', 0, out.pos);
}

function readFields(r: ByteReader, t: BitReader, depth: number): BsonDocument {
  if (depth >= nestingMax) throw corrupt('nested too deeply');
  const doc: BsonDocument = {};
  for (;;) {
    const rank = r.byte();
    if (rank === end) return doc;
    const name = readString(r);
    setOwn(doc, name, readValue(r, t, depth + 1));
  }
}

function toDbRef(doc: BsonDocument): DBRef {
  const { $ref: collection, $id: oid, $db: db, ...fields } = doc;
  if (typeof collection !== 'string' || (db !== undefined && typeof db !== 'string')) {
    throw corrupt('DBRef type info on a document without $ref');
  }
  // The constructor splits "db.coll" names; set the collection afterwards to keep it as is.
  const ref = new DBRef('', oid as ObjectId, db, fields);
  ref.collection = collection;
  return ref;
}

function readValue(r: ByteReader, t: BitReader, depth: number): BsonValue {
  const tag = r.byte();
  if (isNumberTag(tag)) return readNumber(r, tag, t);
  switch (tag) {
    case Tag.minKey:
      return new MinKey();
    case Tag.maxKey:
      return new MaxKey();
    case Tag.null:
      return null;
    case Tag.undefined:
      return undefined;
    case Tag.string: {
      const s = readString(r);
      return t.bits(1) === 1 ? new BSONSymbol(s) : s;
    }
    case Tag.object: {
      const isRef = t.bits(1) === 1;
      const doc = readFields(r, t, depth);
      return isRef ? toDbRef(doc) : doc;
    }
    case Tag.array: {
      if (depth >= nestingMax) throw corrupt('nested too deeply');
      const a: BsonValue[] = [];
      for (;;) {
        if (r.buf[r.pos] === (end ^ r.flip)) {
          r.pos++;
          return a;
        }
        a.push(readValue(r, t, depth + 1));
      }
    }
    case Tag.binData: {
      let n = r.byte();
      if (n === binLengthEscape) n = r.u32();
      const subtype = r.byte();
      return new Binary(r.bytes(n), subtype);
    }
    case Tag.objectId:
      return new ObjectId(r.bytes(12));
    case Tag.false:
      return false;
    case Tag.true:
      return true;
    case Tag.date: {
      const hi = r.u32();
      const lo = r.u32();
      if (hi === 0 && lo === 0) return new Date(NaN);
      return new Date(((hi ^ 0x80000000) | 0) * 4294967296 + lo);
    }
    case Tag.timestamp: {
      const tt = r.u32();
      const i = r.u32();
      return new Timestamp({ t: tt, i });
    }
    case Tag.regex: {
      const pattern = readString(r);
      return new BSONRegExp(pattern, readString(r));
    }
    case Tag.code:
      return new Code(readString(r));
    case Tag.codeWithScope: {
      const code = readString(r);
      return new Code(code, readFields(r, t, depth));
    }
    default:
      throw corrupt(`unknown tag 0x${tag.toString(16)}`);
  }
}

/**
 * The values of a key, with their original types when `typeInfo` is what encodeTypeInfo
 * gave for them (without it every number comes back as int32, so only int32 keys decode).
 * Reads `directions.length` parts; bytes after them (a suffix) are ignored.
 */
export function decodeKey(
  key: Uint8Array,
  directions: readonly KeyDirection[],
  typeInfo: Uint8Array = new Uint8Array(0),
): BsonValue[] {
  const r = new ByteReader(key);
  const t = new BitReader(typeInfo);
  const out: BsonValue[] = [];
  for (const dir of directions) {
    r.flip = dir === -1 ? 0xff : 0;
    out.push(readValue(r, t, 0));
  }
  return out;
}

// ---- skipping (where a key's parts end and its suffix begins) ------------------------------

function skipString(r: ByteReader): void {
  for (;;) {
    const b = r.byte();
    if (b === end) return;
    if (b === 1) r.byte();
  }
}

function skipValue(r: ByteReader, depth: number): void {
  if (depth >= nestingMax) throw corrupt('nested too deeply');
  const tag = r.byte();
  if (isNumberTag(tag)) return skipNumber(r, tag);
  switch (tag) {
    case Tag.minKey:
    case Tag.maxKey:
    case Tag.null:
    case Tag.undefined:
    case Tag.false:
    case Tag.true:
      return;
    case Tag.string:
    case Tag.code:
      return skipString(r);
    case Tag.regex:
      skipString(r);
      return skipString(r);
    case Tag.codeWithScope:
      skipString(r);
      return skipFields(r, depth);
    case Tag.object:
      return skipFields(r, depth);
    case Tag.array:
      for (;;) {
        if (r.buf[r.pos] === (end ^ r.flip)) {
          r.pos++;
          return;
        }
        skipValue(r, depth + 1);
      }
    case Tag.binData: {
      let n = r.byte();
      if (n === binLengthEscape) n = r.u32();
      r.pos += n + 1;
      return;
    }
    case Tag.objectId:
      r.pos += 12;
      return;
    case Tag.date:
    case Tag.timestamp:
      r.pos += 8;
      return;
    default:
      throw corrupt(`unknown tag 0x${tag.toString(16)}`);
  }
}

function skipFields(r: ByteReader, depth: number): void {
  for (;;) {
    if (r.byte() === end) return;
    skipString(r);
    skipValue(r, depth + 1);
  }
}

/** Byte length of the `directions.length` parts at the start of `key`: where a suffix starts. */
export function keyPartsLength(key: Uint8Array, directions: readonly KeyDirection[]): number {
  const r = new ByteReader(key);
  for (const dir of directions) {
    r.flip = dir === -1 ? 0xff : 0;
    skipValue(r, 0);
  }
  if (r.pos > key.length) throw corrupt('key ends inside a value');
  return r.pos;
}

// ---- range bounds --------------------------------------------------------------------------

/**
 * The smallest byte string greater than every string that starts with `prefix`, or
 * undefined when there is none (empty prefix or all 0xFF): the exclusive end of a prefix scan.
 */
export function keyPrefixUpperBound(prefix: Uint8Array): Uint8Array | undefined {
  let n = prefix.length;
  while (n > 0 && prefix[n - 1] === 0xff) n--;
  if (n === 0) return undefined;
  const out = prefix.slice(0, n);
  out[n - 1] = (out[n - 1] as number) + 1;
  return out;
}

/** A bound on the first `parts.length` fields of an index, in index order. */
export interface KeyBound {
  readonly parts: readonly BsonValue[];
  readonly inclusive: boolean;
}

/** Byte bounds for a storage scan: assignable to the storage engine's ScanOptions. */
export interface KeyScanBounds {
  readonly start?: Uint8Array;
  readonly startInclusive: boolean;
  readonly end?: Uint8Array;
  readonly endInclusive: boolean;
}

/**
 * Byte bounds for the keys whose leading parts lie between `low` and `high` in index order
 * (for a descending field, `low` holds the larger value). Absent bounds are open. Works
 * whether or not entries carry a suffix. Example: all keys whose first part equals X is
 * keyScanBounds({parts: [X], inclusive: true}, {parts: [X], inclusive: true}, directions).
 */
export function keyScanBounds(
  low: KeyBound | undefined,
  high: KeyBound | undefined,
  directions?: readonly KeyDirection[],
): KeyScanBounds {
  let start: Uint8Array | undefined;
  let end: Uint8Array | undefined;
  if (low !== undefined) {
    const enc = encodeKey(low.parts, directions);
    start = low.inclusive ? enc : keyPrefixUpperBound(enc);
    // An exclusive bound past every key: start beyond all keys (no key is all 0xFF).
    if (start === undefined) start = new Uint8Array([0xff]);
  }
  if (high !== undefined) {
    const enc = encodeKey(high.parts, directions);
    end = high.inclusive ? keyPrefixUpperBound(enc) : enc;
  }
  return {
    ...(start !== undefined && start.length > 0 ? { start } : {}),
    startInclusive: true,
    ...(end !== undefined ? { end } : {}),
    endInclusive: false,
  };
}
