// Documents leaving the server are checked like documents coming in: a result nested past
// mongod's 200 levels, larger than the internal size limit, or with a field name that BSON
// cannot carry (a NUL byte, which $setField can put in a name) fails the operation with
// mongod's error instead of reaching the encoder, where it would close the connection or
// send a reply the client cannot parse.

import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import type { BsonDocument, BsonValue } from './types.js';
import { formatElement } from './format.js';

/** Largest document sent or stored by the server itself (mongod's BSONObjMaxInternalSize). */
export const internalDocumentBytesMax =
  limits.bsonObjectSizeMax + limits.bsonObjectInternalHeadroomBytes;

function isPlainDocument(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function tooDeep(depthMax: number): CommandError {
  return new CommandError(
    ErrorCode.Overflow,
    `cannot convert document to BSON because it exceeds the limit of ${depthMax} levels of nesting`,
  );
}

/** A field name BSON cannot encode (a C string: no NUL), as the error to report. */
export function nulFieldNameError(name: string): CommandError {
  return new CommandError(
    ErrorCode.BadValue,
    `Document field names cannot contain an embedded null byte: '${name.replace(/\0/g, '\\0')}'`,
  );
}

/**
 * Throws Overflow (15) when `doc`, counted as level 1, nests documents or arrays deeper than
 * `depthMax` (mongod's Document::toBson), and BadValue (2) for a field name holding a NUL.
 * The walk stops at the limit, so a million-level document costs no more than a 200-level one.
 */
export function checkOutgoingDocument(
  doc: BsonDocument,
  depthMax: number = limits.commandDepthMax,
): void {
  walk(doc, 1, depthMax);
}

function walk(v: BsonValue | BsonDocument, depth: number, depthMax: number): void {
  if (depth > depthMax) throw tooDeep(depthMax);
  if (Array.isArray(v)) {
    for (const item of v as BsonValue[])
      if (typeof item === 'object' && item !== null) walk(item, depth + 1, depthMax);
    return;
  }
  if (typeof v !== 'object' || v === null || !isPlainDocument(v)) return;
  const doc = v as BsonDocument;
  for (const key in doc) {
    if (key.includes('\0')) throw nulFieldNameError(key);
    const item = doc[key];
    if (typeof item === 'object' && item !== null) walk(item, depth + 1, depthMax);
  }
}

/** BSONObjectTooLarge (10334) with mongod's message, for a document of `size` bytes. */
export function documentTooLargeError(doc: BsonDocument, size: number): CommandError {
  const first = Object.keys(doc)[0];
  const element =
    first === undefined ? 'EOO' : formatElement(first, doc[first] as BsonValue).slice(0, 200);
  return new CommandError(
    ErrorCode.BSONObjectTooLarge,
    `BSONObj size: ${size} (0x${size.toString(16).toUpperCase()}) is invalid. Size must be between 0 and ${internalDocumentBytesMax}(16MB) First element: ${element}`,
  );
}
