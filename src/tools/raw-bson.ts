// Documents as the tools move them: BSON bytes, read from the server and written to files
// untouched. Two things need more than bytes. Inserting through the driver needs values, and
// a plain JavaScript object would move integer-like keys ("1") ahead of the others, so a
// document is rebuilt as Maps in its stored field order (the driver serializes Maps in
// order). And a few fields of oplog entries are read without decoding the rest.

import { valueSize } from '../bson/codec.js';
import { deserialize, rawDecodeOptions as decodeOptions } from './bson.js';
import type { Document } from './bson.js';
import { ToolError } from './tool-error.js';

/** Types whose value starts with a length. */
const needsLength = new Set([0x02, 0x03, 0x04, 0x05, 0x0c, 0x0d, 0x0e, 0x0f]);

/** A document rebuilt for the driver: Maps for documents, arrays for arrays, bson values. */
export type OrderedDocument = Map<string, unknown>;

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
    if (valueStart + 4 > end && needsLength.has(type))
      throw new ToolError('invalid BSON: element overruns its document');
    const length = valueSize(type, buf, valueStart);
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

function isDbRef(v: unknown): v is { oid: unknown; fields: Record<string, unknown> } {
  return typeof v === 'object' && v !== null && '_bsontype' in v && v._bsontype === 'DBRef';
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
  const out: OrderedDocument = new Map();
  if (isDbRef(decoded)) {
    // The bson package makes a DBRef of a document shaped {$ref, $id, ...}: its fields are
    // taken back from the class ($ref and $db from the bytes: the class splits "db.coll").
    for (const e of elements(buf, start)) {
      const value =
        e.name === '$ref' || e.name === '$db'
          ? buf.toString('utf8', e.start + 4, e.end - 1)
          : e.name === '$id'
            ? decoded.oid
            : decoded.fields[e.name];
      out.set(e.name, rebuild(buf, e, value));
    }
    return out;
  }
  const source = (decoded ?? {}) as Record<string, unknown>;
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
  let decoded: Document;
  try {
    decoded = deserialize(doc, decodeOptions);
  } catch (e) {
    throw new ToolError(`invalid BSON document: ${e instanceof Error ? e.message : String(e)}`);
  }
  return ordered(doc, 0, decoded, false) as OrderedDocument;
}
