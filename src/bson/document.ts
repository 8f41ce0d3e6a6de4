// Safe field access on documents. Documents come from untrusted clients and may carry keys
// such as `__proto__`, `constructor` or `hasOwnProperty` as plain data; a bare `doc[key]`
// read can reach Object.prototype and a bare write to `__proto__` replaces the prototype.
// Every layer reads and writes document fields through these helpers.

import { isPlainDocument } from './types.js';
import type { BsonDocument, BsonValue } from './types.js';

const hasOwnProperty = Object.prototype.hasOwnProperty;

export function hasOwn(doc: BsonDocument, key: string): boolean {
  return hasOwnProperty.call(doc, key);
}

/** The field's value, or undefined when the document has no such own field. */
export function getOwn(doc: BsonDocument, key: string): BsonValue | undefined {
  return hasOwnProperty.call(doc, key) ? doc[key] : undefined;
}

/** Set a field (appending it when new), safe for every key including `__proto__`. */
export function setOwn(doc: BsonDocument, key: string, value: BsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(doc, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    doc[key] = value;
  }
}

export function deleteOwn(doc: BsonDocument, key: string): boolean {
  if (!hasOwnProperty.call(doc, key)) return false;
  delete doc[key];
  return true;
}

/** A new, empty document. Plain `{}` so the `bson` serializer and drivers treat it normally. */
export function newDocument(): BsonDocument {
  return {};
}

/** Own enumerable entries in field order. */
export function entriesOf(doc: BsonDocument): Array<[string, BsonValue]> {
  return Object.entries(doc);
}

/** A document built from entries, safe for every key. */
export function documentFrom(entries: Iterable<readonly [string, BsonValue]>): BsonDocument {
  const doc = newDocument();
  for (const [k, v] of entries) setOwn(doc, k, v);
  return doc;
}

/**
 * A copy of `doc` with `value` at the dotted path `parts`: the subdocuments on the way are
 * copied, and anything else found there is replaced by a new subdocument. `doc` and what it
 * holds are left as they are. A new field goes after the others.
 */
export function withValueAt(
  doc: BsonDocument,
  parts: readonly string[],
  value: BsonValue,
  from = 0,
): BsonDocument {
  const out: BsonDocument = { ...doc };
  const name = parts[from] as string;
  const inner = getOwn(out, name);
  setOwn(
    out,
    name,
    from === parts.length - 1
      ? value
      : withValueAt(isPlainDocument(inner) ? inner : {}, parts, value, from + 1),
  );
  return out;
}

/**
 * Sets `value` at the dotted path `parts` of `doc` in place: subdocuments on the way are
 * written into, anything else found there is replaced by a new subdocument.
 */
export function setValueAt(doc: BsonDocument, parts: readonly string[], value: BsonValue): void {
  let cur = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const name = parts[i] as string;
    let next = getOwn(cur, name);
    if (!isPlainDocument(next)) {
      next = {};
      setOwn(cur, name, next);
    }
    cur = next;
  }
  setOwn(cur, parts[parts.length - 1] as string, value);
}
