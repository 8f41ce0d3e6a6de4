// Decoding and encoding documents with the options that keep BSON types distinct.
//
// DBRef-shaped documents stay plain documents. The `bson` package decodes any subdocument
// with a string `$ref` and an `$id` into its DBRef class, which keeps neither the field order
// ({$id, $ref} and {a, $ref, $id} come back as {$ref, $id, …}) nor a `$ref` with one dot
// (split into $db and collection). To MongoDB such a document is an ordinary document, so a
// decoded DBRef is rebuilt from the bytes, in their order.

import { isUtf8 } from 'node:buffer';
import { Code, DBRef, calculateObjectSize, deserialize, serialize } from 'bson';
import { invariant } from '../errors.js';
import { setOwn } from './document.js';
import type { BsonDocument, BsonValue } from './types.js';
import { isPlainDocument } from './types.js';

/** int32/int64/double/decimal stay as Int32/Long/Double/Decimal128; regexes as BSONRegExp. */
export const decodeOptions = {
  promoteValues: false,
  promoteLongs: false,
  promoteBuffers: false,
  bsonRegExp: true,
  useBigInt64: false,
  validation: { utf8: true },
} as const;

/**
 * decodeOptions for bytes already known to be valid UTF-8 as a whole. Every string in a BSON
 * document (a value, a name, a regex, code) lies between two ASCII bytes: after its length's
 * high byte or a NUL or a type byte, before its NUL. A slice between ASCII bytes of valid
 * UTF-8 is valid UTF-8, so no string needs checking again. (MinKey's type byte, 0xFF, is not
 * UTF-8: a document holding one is checked string by string.)
 */
const decodeValidUtf8Options = { ...decodeOptions, validation: { utf8: false } } as const;

export function decodeDocument(bytes: Uint8Array): BsonDocument {
  // One SIMD pass over the bytes (~1 ms for 16 MB) instead of the package's check of every
  // decoded string, a JavaScript loop over its characters (~50 ms for a 16 MB string). Bytes
  // that are not UTF-8 throughout (binary data: every driver command carries its session id
  // as a UUID) have their strings checked one by one, natively (stringsAreUtf8); only bytes
  // holding a bad string, or malformed ones, take the package's checked path, which reports.
  const valid = isUtf8(bytes) || stringsAreUtf8(bytes);
  const doc = deserialize(bytes, valid ? decodeValidUtf8Options : decodeOptions) as BsonDocument;
  return mayHoldDbRef(bytes) ? (restoreDocument(doc, bytes, 0) as BsonDocument) : doc;
}

/** Strings this short are checked for ASCII in place; longer ones by the native isUtf8. */
const shortStringBytes = 24;

/**
 * Whether every value the package would check when decoding `bytes` with UTF-8 validation
 * (strings, code, symbols, DBPointer namespaces; not names nor regexes, which it decodes
 * unchecked) is valid UTF-8. A walk of the element tree that checks each string's bytes with
 * one native call (a short one in place), so a document holding binary data costs a pass
 * over its structure, not a loop over every character. Untrusted bytes: every length is
 * bounds-checked, and anything malformed answers false (the checked path then reports it).
 */
function stringsAreUtf8(bytes: Uint8Array): boolean {
  const total = bytes.length;
  if (total < 5) return false;
  // Ends (exclusive, at the terminating NUL) of the documents being walked, innermost last.
  const ends: number[] = [];
  let end = int32At(bytes, 0) - 1;
  if (end < 4 || end >= total) return false;
  let at = 4;
  for (;;) {
    if (at === end) {
      if (bytes[at] !== 0) return false;
      const outer = ends.pop();
      if (outer === undefined) return true;
      at++;
      end = outer;
      continue;
    }
    if (at > end) return false;
    const type = bytes[at] as number;
    let nameEnd = at + 1;
    while (nameEnd < end && bytes[nameEnd] !== 0) nameEnd++;
    if (nameEnd >= end) return false;
    const valueAt = nameEnd + 1;
    switch (type) {
      case 0x02: // string
      case 0x0d: // JavaScript code
      case 0x0e: // symbol
      case 0x0c: {
        // DBPointer: namespace string, then an ObjectId
        const next = checkedString(bytes, valueAt, end);
        if (next < 0) return false;
        at = type === 0x0c ? next + 12 : next;
        break;
      }
      case OBJECT:
      case ARRAY: {
        if (valueAt + 5 > end) return false;
        const size = int32At(bytes, valueAt);
        if (size < 5 || valueAt + size > end) return false;
        ends.push(end);
        end = valueAt + size - 1;
        at = valueAt + 4;
        break;
      }
      case CODE_WITH_SCOPE: {
        if (valueAt + 4 > end) return false;
        const size = int32At(bytes, valueAt);
        if (size < 14 || valueAt + size > end) return false;
        const scopeAt = checkedString(bytes, valueAt + 4, valueAt + size);
        if (scopeAt < 0 || scopeAt + 5 > valueAt + size) return false;
        const scopeSize = int32At(bytes, scopeAt);
        if (scopeAt + scopeSize !== valueAt + size) return false;
        ends.push(end);
        end = scopeAt + scopeSize - 1;
        at = scopeAt + 4;
        break;
      }
      case 0x0b: {
        // regex: two C strings, decoded unchecked
        let p = valueAt;
        while (p < end && bytes[p] !== 0) p++;
        p++;
        while (p < end && bytes[p] !== 0) p++;
        if (p >= end) return false;
        at = p + 1;
        break;
      }
      case 0x05: {
        if (valueAt + 4 > end) return false;
        const size = int32At(bytes, valueAt);
        if (size < 0) return false;
        at = valueAt + 5 + size;
        break;
      }
      case 0x01:
      case 0x09:
      case 0x11:
      case 0x12:
        at = valueAt + 8;
        break;
      case 0x07:
        at = valueAt + 12;
        break;
      case 0x08:
        at = valueAt + 1;
        break;
      case 0x10:
        at = valueAt + 4;
        break;
      case 0x13:
        at = valueAt + 16;
        break;
      case UNDEFINED:
      case 0x0a: // null
      case 0x7f: // MaxKey
      case 0xff: // MinKey
        at = valueAt;
        break;
      default:
        return false;
    }
  }
}

/**
 * The end of the BSON string (int32 length, bytes, NUL) at `at` inside [at, limit) if it is
 * well formed and valid UTF-8, else -1.
 */
function checkedString(bytes: Uint8Array, at: number, limit: number): number {
  if (at + 4 > limit) return -1;
  const size = int32At(bytes, at);
  const from = at + 4;
  const to = from + size - 1; // the NUL
  if (size < 1 || to >= limit || bytes[to] !== 0) return -1;
  if (size - 1 <= shortStringBytes) {
    let ascii = true;
    for (let i = from; i < to; i++) {
      if ((bytes[i] as number) >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return to + 1;
  }
  return isUtf8(new Uint8Array(bytes.buffer, bytes.byteOffset + from, size - 1)) ? to + 1 : -1;
}

// ---- Documents that keep the bytes they were decoded from ----------------------------------------

/**
 * The bytes a document was decoded from, for the paths that store or send a document
 * unchanged (an inserted document from an OP_MSG document sequence): keyed by the decoded
 * object, so nothing else changes shape. Whoever reads them checks they still encode the
 * document (encodingIfUnchanged): a decoded document is not frozen.
 */
const sourceBytes = new WeakMap<BsonDocument, Uint8Array>();

/** decodeDocument, remembering `bytes` as the document's encoding (see sourceBytes). */
export function decodeDocumentKeepingBytes(bytes: Uint8Array): BsonDocument {
  const doc = decodeDocument(bytes);
  sourceBytes.set(doc, bytes);
  return doc;
}

/**
 * After `doc` was decoded from `bytes` (decodeDocument), remembers the bytes of each document
 * in its top-level array `field` as that document's encoding (see sourceBytes): an insert
 * command's `documents` sent in the body, as drivers send them, are then stored as they came,
 * like those of a document sequence, instead of being encoded again.
 */
export function keepBytesOfArrayField(doc: BsonDocument, bytes: Uint8Array, field: string): void {
  const values = doc[field];
  if (!Array.isArray(values)) return;
  const at = valueOffsetOf(bytes, field, ARRAY);
  if (at === undefined) return;
  const end = at + int32At(bytes, at) - 1;
  let p = at + 4;
  let index = 0;
  while (p < end) {
    const type = bytes[p] as number;
    const valueAt = cstringEnd(bytes, p + 1) + 1;
    const size = valueSize(type, bytes, valueAt);
    const value: unknown = values[index];
    if (type === OBJECT && isPlainDocument(value))
      sourceBytes.set(value, bytes.subarray(valueAt, valueAt + size));
    p = valueAt + size;
    index++;
  }
}

/**
 * The bytes `doc` was decoded from when they are what encodeDocument(doc) would produce:
 * `size` is bsonSize(doc), which the caller has computed (a document changed since it was
 * decoded, or decoded from bytes holding duplicate names, encodes to another size), and the
 * bytes hold no element of the deprecated undefined type (0x06, encoded again as null).
 * A change that keeps the size (one int for another) is not seen: only documents nobody
 * changes after decoding them are looked up here (an insert's documents before the insert).
 * `source`: the bytes the caller knows `doc` was decoded from (sequenceSourceBytes), looked
 * up in the decoded documents' table (sourceBytes) when not given.
 */
export function encodingIfUnchanged(
  doc: BsonDocument,
  size: number,
  source?: Uint8Array,
): Uint8Array | undefined {
  const bytes = source ?? sourceBytes.get(doc);
  if (bytes === undefined || bytes.length !== size || holdsUndefined(bytes, 0)) return undefined;
  return bytes;
}

/**
 * The documents of an OP_MSG document sequence and the bytes each was decoded from: one entry
 * per sequence, keyed by the array the body holds, instead of one per document in
 * sourceBytes (10k weak entries per insert were ~2% of its CPU, and more in the GC).
 */
const sequences = new WeakMap<
  readonly unknown[],
  { readonly docs: readonly unknown[]; readonly bytes: readonly Uint8Array[] }
>();

/** Remembers that docs[i] was decoded from bytes[i] (the arrays must have one length). */
export function keepSequenceBytes(
  docs: readonly BsonDocument[],
  bytes: readonly Uint8Array[],
): void {
  invariant(docs.length === bytes.length, 'keepSequenceBytes: lengths differ');
  sequences.set(docs, { docs: [...docs], bytes });
}

/**
 * The bytes `doc`, found at `index` of the sequence array `docs`, was decoded from; undefined
 * when `docs` is no sequence or `doc` is no longer the document decoded there. The caller
 * checks they still encode it (encodingIfUnchanged).
 */
export function sequenceSourceBytes(
  docs: readonly unknown[],
  index: number,
  doc: unknown,
): Uint8Array | undefined {
  const seq = sequences.get(docs);
  return seq !== undefined && seq.docs[index] === doc ? seq.bytes[index] : undefined;
}

/** Documents a reply sends as the bytes they were decoded from (sendAsDecodedFrom). */
const sentAsStored = new WeakSet<BsonDocument>();

/**
 * Marks `doc` (of encoded size `size`) to be sent in a cursor batch as the bytes it was
 * decoded from, when they still encode it (encodingIfUnchanged); encodeReply copies them
 * instead of encoding the document again. Returns whether it did.
 */
export function sendAsDecodedFrom(doc: BsonDocument, size: number): boolean {
  if (encodingIfUnchanged(doc, size) === undefined) return false;
  sentAsStored.add(doc);
  return true;
}

/**
 * A cursor batch entry that is a stored record's bytes, put in the batch without being
 * decoded (nobody looked inside the record). encodeReply copies the bytes; any other encoder
 * (the bson package calls toBSON) gets the decoded document, so the reply means the same.
 */
export class StoredBytes {
  constructor(readonly bytes: Uint8Array) {}

  toBSON(): BsonDocument {
    return decodeDocument(this.bytes);
  }
}

/**
 * Whether a stored record's bytes can go into a reply as they are: they hold no element of
 * the deprecated undefined type (0x06), which the decode/encode path sends as null. Stored
 * documents are no deeper than bsonDepthMax (< commandDepthMax, checked in limits.ts) and
 * their field names cannot hold a NUL, so the outgoing checks hold for them.
 */
export function sendableAsStored(bytes: Uint8Array): boolean {
  return !holdsUndefined(bytes, 0);
}

// ---- Decoding some top-level fields only ---------------------------------------------------

/** Top-level field names to decode (decodeFields), as their UTF-8 bytes: made once, reused. */
export class FieldNames {
  private readonly encoded: readonly Buffer[];

  constructor(names: Iterable<string>) {
    this.encoded = [...new Set(names)].map((n) => Buffer.from(n, 'utf8'));
  }

  /** Whether the name at bytes[from, to) is one of them. */
  has(bytes: Uint8Array, from: number, to: number): boolean {
    const length = to - from;
    for (const name of this.encoded) {
      if (name.length !== length) continue;
      let i = 0;
      while (i < length && name[i] === bytes[from + i]) i++;
      if (i === length) return true;
    }
    return false;
  }
}

/**
 * The top-level fields of the stored document `bytes` named in `names`, decoded as
 * decodeDocument(bytes) decodes them, in a document of their own: their elements are copied,
 * in order, into one small document that decodeDocument decodes (a repeated name keeps its
 * last value, a DBRef-shaped value stays a plain document, code-with-scope scopes too). The
 * bytes must be valid (a stored record); only the copied fields' strings are checked again.
 */
export function decodeFields(bytes: Uint8Array, names: FieldNames): BsonDocument {
  const end = int32At(bytes, 0) - 1;
  let at = 4;
  let size = 5;
  let ranges: number[] | undefined;
  while (at < end) {
    const type = bytes[at] as number;
    const nameEnd = cstringEnd(bytes, at + 1);
    const next = nameEnd + 1 + valueSize(type, bytes, nameEnd + 1);
    if (names.has(bytes, at + 1, nameEnd)) {
      (ranges ??= []).push(at, next);
      size += next - at;
    }
    at = next;
  }
  if (ranges === undefined) return {};
  const out = Buffer.allocUnsafe(size);
  out.writeInt32LE(size, 0);
  let to = 4;
  for (let i = 0; i < ranges.length; i += 2) {
    const [from, until] = [ranges[i] as number, ranges[i + 1] as number];
    out.set(bytes.subarray(from, until), to);
    to += until - from;
  }
  out[to] = 0;
  return decodeDocument(out);
}

/**
 * encodeDocument(body) for a command reply, after `headroom` bytes left for the caller (the
 * OP_MSG header), in one buffer. A cursor reply ({cursor: {firstBatch | nextBatch: [...]}})
 * whose batch holds documents marked by sendAsDecodedFrom is assembled around their bytes:
 * the rest is encoded with an empty batch, and the batch written into the gap, each document
 * copied once.
 */
export function encodeReply(body: BsonDocument, headroom = 0): Buffer {
  const batch = storedBatchOf(body);
  if (batch === undefined) {
    const bytes = encodeDocument(body);
    const out = Buffer.allocUnsafe(headroom + bytes.length);
    out.set(bytes, headroom);
    return out;
  }
  const { cursor, field, docs } = batch;
  const outer = encodeDocument({ ...body, cursor: {} });
  const inner = encodeDocument({ ...cursor, [field]: [] });
  const cursorAt = valueOffset(outer, 'cursor');
  const fieldAt = valueOffset(inner, field);
  const encoded = docs.map((d) => {
    if (d instanceof StoredBytes) return d.bytes;
    const own = isPlainDocument(d) && sentAsStored.has(d) ? sourceBytes.get(d) : undefined;
    return own ?? encodeDocument(d as BsonDocument);
  });
  const arraySize = arrayBytes(encoded);
  const cursorSize = inner.length - 5 + arraySize;
  const bodySize = outer.length - 5 + cursorSize;
  const out = Buffer.allocUnsafe(headroom + bodySize);
  let at = headroom;
  out.set(outer.subarray(0, cursorAt), at);
  out.writeInt32LE(bodySize, at);
  at += cursorAt;
  out.set(inner.subarray(0, fieldAt), at);
  out.writeInt32LE(cursorSize, at);
  at += fieldAt;
  at = writeArray(out, at, encoded, arraySize);
  out.set(inner.subarray(fieldAt + 5), at);
  at += inner.length - fieldAt - 5;
  out.set(outer.subarray(cursorAt + 5), at);
  return out;
}

/** The cursor batch of a reply if it holds a document to send as its stored bytes. */
function storedBatchOf(
  body: BsonDocument,
): { cursor: BsonDocument; field: string; docs: readonly unknown[] } | undefined {
  const cursor = body['cursor'];
  if (!isPlainDocument(cursor)) return undefined;
  const field = Array.isArray(cursor['firstBatch'])
    ? 'firstBatch'
    : Array.isArray(cursor['nextBatch'])
      ? 'nextBatch'
      : undefined;
  if (field === undefined) return undefined;
  const docs = cursor[field] as unknown[];
  return docs.some((d) => d instanceof StoredBytes || (isPlainDocument(d) && sentAsStored.has(d)))
    ? { cursor, field, docs }
    : undefined;
}

function decimalDigits(i: number): number {
  return i < 10 ? 1 : i < 100 ? 2 : i < 1000 ? 3 : String(i).length;
}

/** The encoding of an array of documents, each given encoded. */
export function encodeArrayOf(docs: readonly Uint8Array[]): Buffer {
  const size = arrayBytes(docs);
  const out = Buffer.allocUnsafe(size);
  writeArray(out, 0, docs, size);
  return out;
}

/** Bytes of the BSON array of these encoded documents. */
function arrayBytes(docs: readonly Uint8Array[]): number {
  let size = 5;
  docs.forEach((d, i) => (size += 2 + decimalDigits(i) + d.length));
  return size;
}

/** Writes the BSON array of `docs` (of `size` bytes: arrayBytes) at `at`; returns its end. */
function writeArray(out: Buffer, at: number, docs: readonly Uint8Array[], size: number): number {
  out.writeInt32LE(size, at);
  at += 4;
  docs.forEach((d, i) => {
    out[at] = OBJECT;
    at += 1 + out.write(String(i), at + 1, 'latin1');
    out[at++] = 0;
    out.set(d, at);
    at += d.length;
  });
  out[at++] = 0;
  return at;
}

/**
 * Where the value of the last top-level field `name` of a valid encoded document starts, if
 * it has one of type `type`.
 */
function valueOffsetOf(doc: Uint8Array, name: string, type: number): number | undefined {
  const end = int32At(doc, 0) - 1;
  let found: number | undefined;
  let at = 4;
  while (at < end) {
    const t = doc[at] as number;
    const [n, valueAt] = elementName(doc, at);
    if (n === name) found = t === type ? valueAt : undefined;
    at = valueAt + valueSize(t, doc, valueAt);
  }
  return found;
}

/** Where the value of the top-level field `name` of an encoded document starts. */
function valueOffset(doc: Uint8Array, name: string): number {
  const end = int32At(doc, 0) - 1;
  let at = 4;
  while (at < end) {
    const type = doc[at] as number;
    const nameEnd = cstringEnd(doc, at + 1);
    const valueAt = nameEnd + 1;
    if (
      Buffer.from(doc.buffer, doc.byteOffset + at + 1, nameEnd - at - 1).toString('utf8') === name
    )
      return valueAt;
    at = valueAt + valueSize(type, doc, valueAt);
  }
  invariant(false, `encodeReply: no field ${name}`);
}

/** Whether the document at `start` (validated bytes) has an undefined element at any depth. */
function holdsUndefined(bytes: Uint8Array, start: number): boolean {
  const end = start + int32At(bytes, start) - 1;
  let at = start + 4;
  while (at < end) {
    const type = bytes[at] as number;
    if (type === UNDEFINED) return true;
    const valueAt = cstringEnd(bytes, at + 1) + 1;
    if (type === OBJECT || type === ARRAY) {
      if (holdsUndefined(bytes, valueAt)) return true;
    } else if (type === CODE_WITH_SCOPE) {
      if (holdsUndefined(bytes, valueAt + 8 + int32At(bytes, valueAt + 4))) return true;
    }
    at = valueAt + valueSize(type, bytes, valueAt);
  }
  return false;
}

export function encodeDocument(doc: BsonDocument): Uint8Array {
  return serialize(doc, { checkKeys: false, ignoreUndefined: false, serializeFunctions: false });
}

/** A field whose value is a document already encoded: its bytes are copied, not encoded again. */
export interface EncodedField {
  readonly name: string;
  readonly document: Uint8Array;
}

/** A field whose value is the document of these encoded elements (e.g. an `_id` element). */
export interface EncodedElements {
  readonly name: string;
  readonly elements: Uint8Array;
}

/**
 * Fields written by hand after the joined parts (the oplog's {ts, t, v, wall, ...}): `size`
 * bytes of BSON elements, which `write` puts at `at`.
 */
export interface ElementWriter {
  readonly size: number;
  write(out: Buffer, at: number): void;
}

/**
 * One encoded document holding the fields of each part in turn: the same bytes as
 * encodeDocument of the parts' fields merged in that order (their names must all differ),
 * without building the merged object, and without encoding again a document that is already
 * encoded (an EncodedField, e.g. a record written in the same transaction). `tail`, when given,
 * writes the last elements itself.
 */
export function joinDocuments(
  parts: ReadonlyArray<Uint8Array | EncodedField | EncodedElements>,
  tail?: ElementWriter,
): Buffer {
  let size = 5 + (tail?.size ?? 0);
  for (const p of parts)
    size +=
      p instanceof Uint8Array
        ? p.length - 5
        : 2 +
          Buffer.byteLength(p.name, 'utf8') +
          ('document' in p ? p.document.length : p.elements.length + 5);
  const out = Buffer.allocUnsafe(size);
  out.writeInt32LE(size, 0);
  let at = 4;
  for (const p of parts) {
    if (p instanceof Uint8Array) {
      out.set(p.subarray(4, p.length - 1), at);
      at += p.length - 5;
    } else {
      out[at++] = OBJECT;
      at += out.write(p.name, at, 'utf8');
      out[at++] = 0;
      if ('document' in p) {
        out.set(p.document, at);
        at += p.document.length;
      } else {
        out.writeInt32LE(p.elements.length + 5, at);
        out.set(p.elements, at + 4);
        at += p.elements.length + 4;
        out[at++] = 0;
      }
    }
  }
  if (tail !== undefined) {
    tail.write(out, at);
    at += tail.size;
  }
  out[at] = 0;
  return out;
}

/**
 * The `_id` element of an encoded document whose first field is `_id` (a stored record), as a
 * view of its bytes; undefined when the first field is not `_id`.
 */
export function idElementOf(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length < 10 || bytes[5] !== 0x5f || bytes[6] !== 0x69 || bytes[7] !== 0x64)
    return undefined;
  if (bytes[8] !== 0) return undefined;
  return bytes.subarray(4, 9 + valueSize(bytes[4] as number, bytes, 9));
}

/**
 * A copy of an encoded document (valid bytes, one top-level `_id`) with its `_id` element
 * moved in front of the others, which keep their order; undefined when it has no top-level
 * `_id`. An insert's document whose driver appended the generated `_id` last is stored this
 * way, as mongod stores it, without being encoded again.
 */
export function withIdFirst(bytes: Uint8Array): Buffer | undefined {
  const end = int32At(bytes, 0) - 1;
  let at = 4;
  while (at < end) {
    const type = bytes[at] as number;
    const nameEnd = cstringEnd(bytes, at + 1);
    const next = nameEnd + 1 + valueSize(type, bytes, nameEnd + 1);
    if (
      nameEnd === at + 4 &&
      bytes[at + 1] === 0x5f &&
      bytes[at + 2] === 0x69 &&
      bytes[at + 3] === 0x64
    ) {
      const out = Buffer.allocUnsafe(bytes.length);
      out.set(bytes.subarray(0, 4), 0);
      out.set(bytes.subarray(at, next), 4);
      out.set(bytes.subarray(4, at), 4 + next - at);
      out.set(bytes.subarray(next), next);
      return out;
    }
    at = next;
  }
  return undefined;
}

export function bsonSize(doc: BsonDocument): number {
  return calculateObjectSize(doc, { ignoreUndefined: false, serializeFunctions: false });
}

// ---- DBRef-shaped documents ---------------------------------------------------------------------

/** A string element named "$ref": the package makes a DBRef only of a document holding one. */
const STRING_REF_ELEMENT = Buffer.from([0x02, 0x24, 0x72, 0x65, 0x66, 0x00]);

function mayHoldDbRef(bytes: Uint8Array): boolean {
  return (
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(STRING_REF_ELEMENT) >= 0
  );
}

const OBJECT = 0x03;
const ARRAY = 0x04;
const UNDEFINED = 0x06;
const CODE_WITH_SCOPE = 0x0f;

function int32At(bytes: Uint8Array, at: number): number {
  return (
    (bytes[at] as number) |
    ((bytes[at + 1] as number) << 8) |
    ((bytes[at + 2] as number) << 16) |
    ((bytes[at + 3] as number) << 24)
  );
}

function cstringEnd(bytes: Uint8Array, at: number): number {
  let end = at;
  while (bytes[end] !== 0) end++;
  return end;
}

/** Bytes of an element's value (the package has validated the document already). */
export function valueSize(type: number, bytes: Uint8Array, at: number): number {
  switch (type) {
    case 0x01: // double
    case 0x09: // date
    case 0x11: // timestamp
    case 0x12: // int64
      return 8;
    case 0x02: // string
    case 0x0d: // JavaScript code
    case 0x0e: // symbol
      return 4 + int32At(bytes, at);
    case OBJECT:
    case ARRAY:
    case 0x0f: // code with scope
      return int32At(bytes, at);
    case 0x05: // binary
      return 5 + int32At(bytes, at);
    case 0x07: // ObjectId
      return 12;
    case 0x08: // bool
      return 1;
    case 0x0b: {
      // regex: pattern and options, two C strings
      const patternEnd = cstringEnd(bytes, at);
      return cstringEnd(bytes, patternEnd + 1) + 1 - at;
    }
    case 0x0c: // DBPointer: string + ObjectId
      return 4 + int32At(bytes, at) + 12;
    case 0x10: // int32
      return 4;
    case 0x13: // decimal128
      return 16;
    default: // undefined, null, MinKey, MaxKey
      return 0;
  }
}

/** The name of the element at `at` (its type byte) and where its value starts. */
function elementName(bytes: Uint8Array, at: number): [string, number] {
  const nameEnd = cstringEnd(bytes, at + 1);
  const name = Buffer.from(bytes.buffer, bytes.byteOffset + at + 1, nameEnd - at - 1).toString(
    'utf8',
  );
  return [name, nameEnd + 1];
}

/**
 * The first top-level field name that occurs twice in an encoded document, or undefined.
 * Decoding keeps the last of duplicates silently; commands refuse them (IDL's 40413). The
 * document must be valid (decoded once already).
 */
export function firstDuplicateName(bytes: Uint8Array): string | undefined {
  const end = int32At(bytes, 0) - 1;
  const seen = new Set<string>();
  let at = 4;
  while (at < end) {
    const type = bytes[at] as number;
    const [name, valueAt] = elementName(bytes, at);
    if (seen.has(name)) return name;
    seen.add(name);
    at = valueAt + valueSize(type, bytes, valueAt);
  }
  return undefined;
}

function stringAt(bytes: Uint8Array, at: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + at + 4, int32At(bytes, at) - 1).toString(
    'utf8',
  );
}

/**
 * The decoded value of the embedded document (or array) at `start`, with every DBRef in it
 * (and itself) made a plain document again. Plain documents and arrays are fixed in place.
 * Of a name that occurs more than once, decoding keeps the value of the last occurrence at
 * the place of the first: only the last one's bytes describe the value.
 */
function restoreDocument(decoded: unknown, bytes: Uint8Array, start: number): BsonValue {
  const end = start + int32At(bytes, start) - 1;
  const ref = decoded instanceof DBRef ? decoded : undefined;
  const out = ref === undefined ? (decoded as BsonDocument | BsonValue[]) : ({} as BsonDocument);
  const last = Array.isArray(out) ? undefined : lastOccurrences(bytes, start);
  let at = start + 4;
  let index = 0;
  while (at < end) {
    const type = bytes[at] as number;
    const [name, valueAt] = elementName(bytes, at);
    const isLast = last === undefined || last.get(name) === at;
    if (ref !== undefined) {
      if (!isLast) {
        // Holds the name's place; the last occurrence sets the value.
        setOwn(out as BsonDocument, name, null);
      } else {
        // $ref and $db are read from the bytes: the class splits a "db.collection" $ref.
        const value =
          name === '$ref' || name === '$db'
            ? stringAt(bytes, valueAt)
            : name === '$id'
              ? ref.oid
              : (ref.fields[name] as BsonValue);
        setOwn(
          out as BsonDocument,
          name,
          type === OBJECT || type === ARRAY ? restoreDocument(value, bytes, valueAt) : value,
        );
        if (type === CODE_WITH_SCOPE) restoreScope(value, bytes, valueAt);
      }
    } else if (!isLast) {
      // Not the value decoding kept.
    } else if (type === OBJECT || type === ARRAY) {
      if (Array.isArray(out)) out[index] = restoreDocument(out[index], bytes, valueAt);
      else setOwn(out, name, restoreDocument(out[name], bytes, valueAt));
    } else if (type === CODE_WITH_SCOPE) {
      restoreScope(Array.isArray(out) ? out[index] : out[name], bytes, valueAt);
    }
    at = valueAt + valueSize(type, bytes, valueAt);
    index++;
  }
  return out as BsonValue;
}

/**
 * Where the last element of each name starts in the document at `start`, or undefined when
 * no name occurs twice (then every element is its name's last).
 */
function lastOccurrences(bytes: Uint8Array, start: number): Map<string, number> | undefined {
  const end = start + int32At(bytes, start) - 1;
  const last = new Map<string, number>();
  let duplicated = false;
  let at = start + 4;
  while (at < end) {
    const type = bytes[at] as number;
    const [name, valueAt] = elementName(bytes, at);
    if (last.has(name)) duplicated = true;
    last.set(name, at);
    at = valueAt + valueSize(type, bytes, valueAt);
  }
  return duplicated ? last : undefined;
}

/**
 * The scope of the decoded code-with-scope value at `at` made DBRef-free like any document:
 * the package decodes a scope's subdocuments as it does a document's, DBRefs included.
 */
function restoreScope(code: unknown, bytes: Uint8Array, at: number): void {
  if (!(code instanceof Code) || code.scope == null) return;
  code.scope = restoreDocument(code.scope, bytes, at + 8 + int32At(bytes, at + 4)) as BsonDocument;
}
