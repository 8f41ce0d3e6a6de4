// Documents as the tools move them: BSON bytes, read from the server and written to files
// untouched. Two things need more than bytes. Inserting through the driver needs values, and
// a plain JavaScript object would move integer-like keys ("1") ahead of the others, so a
// document is rebuilt as Maps in its stored field order (the driver serializes Maps in
// order). And a few fields of oplog entries are read without decoding the rest.

import { deserialize } from './bson.js';
import type { Document } from './bson.js';
import { ToolError } from './tool-error.js';

const decodeOptions = {
  promoteValues: false,
  promoteLongs: false,
  promoteBuffers: false,
  bsonRegExp: true,
} as const;

/** A document rebuilt for the driver: Maps for documents, arrays for arrays, bson values. */
export type OrderedDocument = Map<string, unknown>;

/** Byte length of an element's value of BSON type `type` starting at `at`. */
function valueLength(buf: Buffer, type: number, at: number, end: number): number {
  switch (type) {
    case 0x01: // double
    case 0x09: // date
    case 0x11: // timestamp
    case 0x12: // int64
      return 8;
    case 0x02: // string
    case 0x0d: // code
    case 0x0e: // symbol
      return 4 + buf.readInt32LE(at);
    case 0x03: // document
    case 0x04: // array
    case 0x0f: // code with scope
      return buf.readInt32LE(at);
    case 0x05: // binary
      return 5 + buf.readInt32LE(at);
    case 0x06: // undefined
    case 0x0a: // null
    case 0xff: // minKey
    case 0x7f: // maxKey
      return 0;
    case 0x07: // objectId
      return 12;
    case 0x08: // bool
      return 1;
    case 0x0b: {
      // regex: two C strings
      const a = buf.indexOf(0, at);
      const b = a < 0 ? -1 : buf.indexOf(0, a + 1);
      if (b < 0 || b >= end) throw new ToolError('invalid BSON: unterminated regular expression');
      return b + 1 - at;
    }
    case 0x0c: // DBPointer: string + ObjectId
      return 4 + buf.readInt32LE(at) + 12;
    case 0x10: // int32
      return 4;
    case 0x13: // decimal128
      return 16;
    default:
      throw new ToolError(`invalid BSON: unknown element type 0x${type.toString(16)}`);
  }
}

export interface RawElement {
  readonly type: number;
  readonly name: string;
  /** Offsets of the value in the buffer. */
  readonly start: number;
  readonly end: number;
}

/** The elements of the document occupying buf[start, start + its length), in order. */
export function* elements(buf: Buffer, start = 0): Generator<RawElement> {
  if (start + 5 > buf.length) throw new ToolError('invalid BSON: document too short');
  const size = buf.readInt32LE(start);
  const end = start + size - 1; // the trailing null
  if (size < 5 || start + size > buf.length || buf[end] !== 0)
    throw new ToolError('invalid BSON: bad document length');
  let at = start + 4;
  while (at < end) {
    const type = buf[at] as number;
    const nameEnd = buf.indexOf(0, at + 1);
    if (nameEnd < 0 || nameEnd >= end) throw new ToolError('invalid BSON: unterminated field name');
    const name = buf.toString('utf8', at + 1, nameEnd);
    const valueStart = nameEnd + 1;
    const length = valueLength(buf, type, valueStart, end);
    const valueEnd = valueStart + length;
    if (length < 0 || valueEnd > end)
      throw new ToolError('invalid BSON: element overruns its document');
    yield { type, name, start: valueStart, end: valueEnd };
    at = valueEnd;
  }
}

/** The top-level field `name` of a BSON document, decoded, or undefined when absent. */
export function rawField(doc: Buffer, name: string): unknown {
  for (const e of elements(doc)) {
    if (e.name !== name) continue;
    // Decode just this element: a document holding it alone.
    const nameBytes = Buffer.from(name, 'utf8');
    const size = 4 + 1 + nameBytes.length + 1 + (e.end - e.start) + 1;
    const one = Buffer.alloc(size);
    one.writeInt32LE(size, 0);
    one[4] = e.type;
    nameBytes.copy(one, 5);
    doc.copy(one, 6 + nameBytes.length, e.start, e.end);
    const decoded = deserialize(one, decodeOptions);
    return Object.prototype.hasOwnProperty.call(decoded, name)
      ? (decoded as Record<string, unknown>)[name]
      : undefined;
  }
  return undefined;
}

/** Whether a top-level field other than _id holds Timestamp(0, 0), which a server would fill in on insert. */
export function hasTopLevelZeroTimestamp(doc: Buffer): boolean {
  for (const e of elements(doc)) {
    if (e.type === 0x11 && e.name !== '_id' && doc.readBigUInt64LE(e.start) === 0n) return true;
  }
  return false;
}

function ordered(buf: Buffer, start: number, decoded: unknown, isArray: boolean): unknown {
  if (isArray) {
    const values = Array.isArray(decoded) ? decoded : [];
    const out: unknown[] = [];
    let i = 0;
    for (const e of elements(buf, start)) {
      out.push(rebuild(buf, e, values[i]));
      i++;
    }
    return out;
  }
  const source = (decoded ?? {}) as Record<string, unknown>;
  const out: OrderedDocument = new Map();
  for (const e of elements(buf, start)) {
    const value = Object.prototype.hasOwnProperty.call(source, e.name) ? source[e.name] : undefined;
    out.set(e.name, rebuild(buf, e, value));
  }
  return out;
}

function rebuild(buf: Buffer, e: RawElement, value: unknown): unknown {
  if (e.type === 0x03) return ordered(buf, e.start, value, false);
  if (e.type === 0x04) return ordered(buf, e.start, value, true);
  return value;
}

/** A BSON document as Maps in its stored field order, its values as the bson package decodes them. */
export function orderedDocument(doc: Buffer): OrderedDocument {
  const decoded: Document = deserialize(doc, decodeOptions);
  return ordered(doc, 0, decoded, false) as OrderedDocument;
}
