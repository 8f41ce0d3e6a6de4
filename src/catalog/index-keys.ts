// Index key generation: the key tuples a document contributes to an index, following
// mongod's rules — a missing field indexes as null, an array field produces one key per
// element (multikey; an empty array indexes as undefined), and at most one field of a
// compound key may be an array in a given document.

import { getOwn } from '../bson/document.js';
import { asDocument, isArray } from '../bson/types.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import { Decimal128, Double, Int32, Long } from 'bson';

export interface KeyPatternField {
  readonly path: string;
  readonly direction: 1 | -1;
}

export function parseKeyPattern(key: BsonDocument): KeyPatternField[] {
  return Object.entries(key).map(([path, v]) => ({ path, direction: directionOf(v) }));
}

function directionOf(v: BsonValue): 1 | -1 {
  if (v instanceof Int32 || v instanceof Double) return v.value < 0 ? -1 : 1;
  if (v instanceof Long) return v.isNegative() ? -1 : 1;
  if (v instanceof Decimal128) return v.toString().startsWith('-') ? -1 : 1;
  return 1;
}

/** Values found at a dotted path, expanding arrays along the way; `[]` when missing. */
function valuesAtPath(value: BsonValue, parts: readonly string[], at: number, out: BsonValue[], arrays: { seen: boolean }): void {
  if (at === parts.length) {
    if (isArray(value)) {
      arrays.seen = true;
      if (value.length === 0) out.push(undefined);
      else out.push(...value);
    } else {
      out.push(value);
    }
    return;
  }
  if (isArray(value)) {
    arrays.seen = true;
    const part = parts[at] as string;
    // A numeric component may address an element positionally.
    if (/^\d+$/.test(part)) {
      const el = value[Number(part)];
      if (el !== undefined) valuesAtPath(el, parts, at + 1, out, arrays);
    }
    for (const el of value) {
      const d = asDocument(el);
      if (d !== undefined) valuesAtPath(d, parts, at, out, arrays);
    }
    return;
  }
  const doc = asDocument(value);
  if (doc === undefined) return;
  const next = getOwn(doc, parts[at] as string);
  if (next === undefined) return;
  valuesAtPath(next, parts, at + 1, out, arrays);
}

export interface GenerateKeysOptions {
  readonly sparse: boolean;
}

export function generateIndexKeys(fields: readonly KeyPatternField[], doc: BsonDocument, options: GenerateKeysOptions): BsonValue[][] {
  const perField: BsonValue[][] = [];
  let arrayFields = 0;
  let allMissing = true;
  for (const f of fields) {
    const out: BsonValue[] = [];
    const arrays = { seen: false };
    valuesAtPath(doc, f.path.split('.'), 0, out, arrays);
    if (arrays.seen) arrayFields++;
    if (out.length === 0) out.push(null);
    else allMissing = false;
    perField.push(out);
  }
  if (options.sparse && allMissing) return [];
  if (arrayFields > 1) {
    throw new CommandError(
      ErrorCode.CannotIndexParallelArrays,
      `cannot index parallel arrays [${fields.map((f) => f.path).join('] [')}]`,
    );
  }
  // Cartesian product; with at most one array field it is linear in that array's length.
  let tuples: BsonValue[][] = [[]];
  for (const values of perField) {
    const next: BsonValue[][] = [];
    for (const t of tuples) for (const v of values) next.push([...t, v]);
    tuples = next;
  }
  return tuples;
}
