// Checks a document must pass before it is stored, with mongod's codes: size, nesting
// depth, and the rules on `_id` (present and first, not an array / regex / undefined, no
// `$`-prefixed field names inside it).

import { BSONRegExp, ObjectId } from 'bson';
import { bsonSize } from '../bson/codec.js';
import { getOwn, hasOwn, setOwn } from '../bson/document.js';
import { asDocument, isArray, isPlainDocument } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import { nulFieldNameError } from '../bson/outgoing.js';

/**
 * Nesting depth of a value: a scalar is 0, `{a: 1}` is 1. Iterative: no stack risk; two stacks
 * of values and depths, no pair per value (dispatch walks every command, 10k documents too).
 */
export function nestingDepthExceeds(root: BsonValue, max: number): boolean {
  const values: BsonValue[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop() as BsonValue;
    const d = (depths.pop() as number) + 1;
    if (isArray(v)) {
      if (d > max) return true;
      for (const e of v)
        if (typeof e === 'object' && e !== null) {
          values.push(e);
          depths.push(d);
        }
    } else if (isPlainDocument(v)) {
      if (d > max) return true;
      for (const k in v) {
        const e = v[k] as BsonValue;
        if (typeof e === 'object' && e !== null) {
          values.push(e);
          depths.push(d);
        }
      }
    }
  }
  return false;
}

export function checkIdValue(id: BsonValue): void {
  if (isArray(id))
    throw new CommandError(ErrorCode.InvalidIdField, "The '_id' value cannot be of type array");
  if (id instanceof BSONRegExp)
    throw new CommandError(ErrorCode.InvalidIdField, "The '_id' value cannot be of type regex");
  if (id === undefined)
    throw new CommandError(ErrorCode.InvalidIdField, "The '_id' value cannot be of type undefined");
  const doc = asDocument(id);
  if (doc !== undefined) checkNoDollarFields(doc, '_id');
}

function checkNoDollarFields(doc: BsonDocument, path: string): void {
  for (const [k, v] of Object.entries(doc)) {
    if (k.startsWith('$')) {
      throw new CommandError(
        ErrorCode.DollarPrefixedFieldName,
        `_id fields may not contain '$'-prefixed fields: ${k} is not valid for storage.`,
      );
    }
    const sub = asDocument(v);
    if (sub !== undefined) checkNoDollarFields(sub, `${path}.${k}`);
  }
}

/**
 * A field name BSON cannot store: a NUL byte ends a C string. Documents from clients cannot
 * carry one, but a pipeline can make one ($setField) and send it to $merge, $out or an update.
 */
export function checkFieldNamesEncodable(root: BsonDocument): void {
  const stack: BsonValue[] = [root];
  while (stack.length > 0) {
    const v = stack.pop() as BsonValue;
    if (isArray(v)) {
      for (const e of v) if (typeof e === 'object' && e !== null) stack.push(e);
    } else if (isPlainDocument(v)) {
      for (const k in v) {
        if (k.includes('\0')) throw nulFieldNameError(k);
        const e = v[k] as BsonValue;
        if (typeof e === 'object' && e !== null) stack.push(e);
      }
    }
  }
}

/**
 * checkFieldNamesEncodable and nestingDepthExceeds(root, max) in one walk, allocating nothing
 * per value (the two walks, and a [value, depth] pair per value, were ~4% of an insert's CPU):
 * throws for a field name holding a NUL at any depth, in the same order, whatever the depth;
 * returns whether the nesting exceeds `max`.
 */
export function namesEncodableAndDepthExceeds(root: BsonDocument, max: number): boolean {
  const values: BsonValue[] = [root];
  const depths: number[] = [0];
  let exceeds = false;
  while (values.length > 0) {
    const v = values.pop() as BsonValue;
    const d = (depths.pop() as number) + 1;
    if (isArray(v)) {
      if (d > max) exceeds = true;
      for (const e of v)
        if (typeof e === 'object' && e !== null) {
          values.push(e);
          depths.push(d);
        }
    } else if (isPlainDocument(v)) {
      if (d > max) exceeds = true;
      for (const k in v) {
        if (k.includes('\0')) throw nulFieldNameError(k);
        const e = v[k] as BsonValue;
        if (typeof e === 'object' && e !== null) {
          values.push(e);
          depths.push(d);
        }
      }
    }
  }
  return exceeds;
}

/** Size, depth and field-name checks for any document about to be stored. */
export function checkStorable(doc: BsonDocument): void {
  if (namesEncodableAndDepthExceeds(doc, limits.bsonDepthMax)) {
    throw new CommandError(
      ErrorCode.Overflow,
      `Document exceeds maximum nesting depth of ${limits.bsonDepthMax}`,
    );
  }
  const size = bsonSize(doc);
  if (size > limits.bsonObjectSizeMax) {
    throw new CommandError(
      ErrorCode.BadValue,
      `object to insert too large. size in bytes: ${size}, max size: ${limits.bsonObjectSizeMax}`,
    );
  }
}

/**
 * The document as it will be stored by an insert: `_id` first (generated as an ObjectId when
 * absent), then the other fields in their order. Throws with mongod's code if not storable.
 */
export function prepareForInsert(doc: BsonDocument): BsonDocument {
  return prepareSized(doc).doc;
}

/** A document prepared for insert and its encoded size. */
export interface PreparedInsert {
  readonly doc: BsonDocument;
  readonly size: number;
  /** The `_id` was generated: `doc` is the given fields after a new `_id`. */
  readonly idAdded: boolean;
}

/** prepareForInsert, with what the write unit needs to reuse the document's own bytes. */
export function prepareSized(doc: BsonDocument): PreparedInsert {
  // mongod's insert wording (fixDocumentForInsert); updates say "Document exceeds maximum nesting depth".
  if (namesEncodableAndDepthExceeds(doc, limits.bsonDepthMax)) {
    throw new CommandError(
      ErrorCode.Overflow,
      `cannot insert document because it exceeds ${limits.bsonDepthMax} levels of nesting`,
    );
  }
  let out: BsonDocument;
  let idAdded = false;
  if (hasOwn(doc, '_id')) {
    const id = getOwn(doc, '_id');
    checkIdValue(id);
    if (Object.keys(doc)[0] === '_id') out = doc;
    else {
      out = { _id: id };
      for (const [k, v] of Object.entries(doc)) if (k !== '_id') setOwn(out, k, v);
    }
  } else {
    out = { _id: new ObjectId() };
    idAdded = true;
    for (const [k, v] of Object.entries(doc)) setOwn(out, k, v);
  }
  const size = bsonSize(out);
  if (size > limits.bsonObjectSizeMax) {
    throw new CommandError(
      ErrorCode.BadValue,
      `object to insert too large. size in bytes: ${size}, max size: ${limits.bsonObjectSizeMax}`,
    );
  }
  return { doc: out, size, idAdded };
}
