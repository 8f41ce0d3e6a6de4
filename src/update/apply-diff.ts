// Applies a `$v: 2` update diff (src/update/diff.ts) to a document: mongod's doc_diff applier,
// for update oplog entries given to applyOps. In the document's own field order, a removed field
// (`d`) goes, an updated one (`u`) takes its new value in place, a changed subdocument or array
// (`s<field>`) gets its sub-diff; created fields (`i`, and `u` of a field not there) are
// appended in the diff's order. An array diff resizes to `l` first, then sets `u<index>` and
// applies `s<index>`, padding with nulls past the end.

import { CommandError, ErrorCode } from '../errors.js';
import { getOwn, setOwn } from '../bson/document.js';
import { isArray, isPlainDocument, numericValue } from '../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../bson/types.js';

function badDiff(message: string): never {
  throw new CommandError(ErrorCode.FailedToParse, `Malformed $v: 2 diff: ${message}`);
}

function section(diff: BsonDocument, name: string): BsonDocument {
  const v = getOwn(diff, name);
  if (v === undefined) return {};
  if (!isPlainDocument(v)) badDiff(`'${name}' must be an object`);
  return v;
}

function applyToValue(value: BsonValue | undefined, sub: BsonDocument): BsonValue {
  if (getOwn(sub, 'a') === true) {
    if (!isArray(value)) badDiff('an array diff applies to an array');
    return applyArrayDiff(value, sub);
  }
  if (!isPlainDocument(value)) badDiff('a document diff applies to a document');
  return applyDiff(value, sub);
}

export function applyDiff(doc: BsonDocument, diff: BsonDocument): BsonDocument {
  const deleted = section(diff, 'd');
  const updated = section(diff, 'u');
  const inserted = section(diff, 'i');
  const out: BsonDocument = {};
  for (const name of Object.keys(doc)) {
    if (Object.hasOwn(deleted, name)) continue;
    if (Object.hasOwn(inserted, name)) continue;
    const value = getOwn(doc, name) as BsonValue;
    if (Object.hasOwn(updated, name)) {
      setOwn(out, name, getOwn(updated, name) as BsonValue);
      continue;
    }
    const sub = getOwn(diff, `s${name}`);
    if (sub !== undefined) {
      if (!isPlainDocument(sub)) badDiff(`'s${name}' must be an object`);
      setOwn(out, name, applyToValue(value, sub));
      continue;
    }
    setOwn(out, name, value);
  }
  for (const name of Object.keys(updated))
    if (getOwn(doc, name) === undefined) setOwn(out, name, getOwn(updated, name) as BsonValue);
  for (const name of Object.keys(inserted)) setOwn(out, name, getOwn(inserted, name) as BsonValue);
  return out;
}

function applyArrayDiff(arr: BsonArray, diff: BsonDocument): BsonValue[] {
  const out: BsonValue[] = [...arr];
  const length = getOwn(diff, 'l');
  if (length !== undefined) {
    const n = numericValue(length);
    if (n === undefined || !Number.isInteger(n) || n < 0) badDiff("'l' must be a length");
    out.length = Math.min(out.length, n);
    while (out.length < n) out.push(null);
  }
  for (const [key, v] of Object.entries(diff)) {
    if (key === 'a' || key === 'l') continue;
    const kind = key[0];
    const index = Number(key.slice(1));
    if ((kind !== 'u' && kind !== 's') || !Number.isInteger(index) || index < 0)
      badDiff(`unknown array diff field '${key}'`);
    while (out.length <= index) out.push(null);
    if (kind === 'u') out[index] = v as BsonValue;
    else {
      if (!isPlainDocument(v)) badDiff(`'${key}' must be an object`);
      out[index] = applyToValue(out[index], v);
    }
  }
  return out;
}
