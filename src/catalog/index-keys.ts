// Index key generation with mongod's rules (src/mongo/db/index/btree_key_generator.cpp):
//
// - a path is followed through subdocuments; the first array met along it (or at its end) is
//   expanded: one key per element. An array at the end of a path gives its elements; an array
//   in the middle gives, for each subdocument element, the rest of the path inside it (a
//   non-document element reaches nothing there, so null);
// - an empty array indexes as undefined where the path ends at it, and as null for a path
//   that continues below it;
// - an array nested directly in an expanded array is one value (it is not expanded again);
// - a numeric component after an array ("a.0.b") selects that position; such a position
//   does not make the index multikey, and a field of that name inside the elements is
//   ambiguous (16746);
// - at most one array may be expanded per level: two index fields reaching different arrays
//   is "cannot index parallel arrays" (171);
// - a missing field indexes as null; a sparse index skips a document only when every field
//   is missing;
// - the {_id: 1} index takes `_id` as it is (never an array).
//
// Besides the keys, generation reports the multikey path components of each field (mongod's
// MultikeyPaths): component c of field i is multikey when the c-th part of its path met an
// array that was expanded (an empty one included).

import { getField, MISSING } from '../bson/path.js';
import type { PathValue } from '../bson/path.js';
import { arrayAsDocument } from '../bson/path.js';
import { formatBson } from '../bson/format.js';
import { asDocument, isArray } from '../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';
import { Decimal128, Double, Int32, Long } from 'bson';

export interface KeyPatternField {
  readonly path: string;
  readonly parts: readonly string[];
  readonly direction: 1 | -1;
  /** The index plugin a string value names ("2dsphere", "2d", "text"), if any. */
  readonly plugin?: string;
}

export function parseKeyPattern(key: BsonDocument): KeyPatternField[] {
  return Object.entries(key).map(([path, v]) => ({
    path,
    parts: path.split('.'),
    direction: directionOf(v),
    ...(typeof v === 'string' ? { plugin: v } : {}),
  }));
}

function directionOf(v: BsonValue): 1 | -1 {
  if (v instanceof Int32 || v instanceof Double) return v.value < 0 ? -1 : 1;
  if (v instanceof Long) return v.isNegative() ? -1 : 1;
  if (v instanceof Decimal128) return v.toString().startsWith('-') ? -1 : 1;
  if (typeof v === 'number') return v < 0 ? -1 : 1;
  return 1;
}

export interface GenerateKeysOptions {
  readonly sparse: boolean;
}

export interface GeneratedKeys {
  /** One tuple per key (duplicates possible: the caller dedupes by encoding). */
  readonly keys: BsonValue[][];
  /** Per field, the multikey components found in this document (ascending). */
  readonly multikeyPaths: number[][];
}

/** What a positional component ("a.1.b") selects in the array being expanded. */
interface PositionalInfo {
  /** The element at the position, MISSING when the component is not a position. */
  readonly element: PathValue;
  /** The array it was taken from (for the ambiguity message). */
  readonly array: BsonArray | undefined;
  readonly position: string;
  /** What the rest of the path reaches from the array, and where the path then stands. */
  readonly dotted: PathValue;
  readonly at: number;
}

const noPosition: PositionalInfo = {
  element: MISSING,
  array: undefined,
  position: '',
  dotted: MISSING,
  at: 0,
};

/** mongod's extractElementAtPathOrArrayAlongPath: stops at the first array, or at the end. */
function extractAlongPath(
  obj: BsonDocument,
  parts: readonly string[],
  at: number,
): { value: PathValue; at: number } {
  let doc = obj;
  let i = at;
  for (;;) {
    const sub = getField(doc, parts[i] as string);
    i++;
    if (sub === MISSING) return { value: MISSING, at: i };
    if (isArray(sub) || i === parts.length) return { value: sub, at: i };
    const d = asDocument(sub);
    if (d === undefined) return { value: MISSING, at: i };
    doc = d;
  }
}

/** The element a canonical position ("0", "12") names in an array, as BSONObj::getField on it. */
function positionIn(arr: BsonArray, part: string): PathValue {
  if (part.length === 0 || part.length > 10) return MISSING;
  const n = Number(part);
  if (!Number.isInteger(n) || n < 0 || String(n) !== part || n >= arr.length) return MISSING;
  return arr[n] as BsonValue;
}

class Generator {
  readonly keys: BsonValue[][] = [];
  readonly multikey: Array<Set<number>>;
  private readonly lengths: number[];

  constructor(
    private readonly fields: readonly KeyPatternField[],
    private readonly sparse: boolean,
  ) {
    this.multikey = fields.map(() => new Set<number>());
    this.lengths = fields.map((f) => f.parts.length);
  }

  private parts(i: number): readonly string[] {
    return (this.fields[i] as KeyPatternField).parts;
  }

  /** mongod's _extractNextElement: the next value of field i inside `obj`. */
  private extractNext(
    obj: BsonDocument,
    pos: PositionalInfo,
    at: number[],
    i: number,
  ): { value: PathValue; arrayNestedArray: boolean } {
    const parts = this.parts(i);
    const first = parts[at[i] as number] as string;
    const haveObjField = getField(obj, first) !== MISSING;
    const positional = pos.element !== MISSING;
    if (haveObjField && positional) {
      throw new CommandError(
        ErrorCode.Location16746,
        `Ambiguous field name found in array (do not use numeric field names in embedded elements in an array), field: '${pos.position}' for array: ${formatBson(arrayAsDocument(pos.array ?? []))}`,
      );
    }
    if (haveObjField) {
      const r = extractAlongPath(obj, parts, at[i] as number);
      at[i] = r.at;
      return { value: r.value, arrayNestedArray: false };
    }
    if (positional) {
      at[i] = pos.at;
      return { value: pos.dotted, arrayNestedArray: isArray(pos.element) };
    }
    return { value: MISSING, arrayNestedArray: false };
  }

  /** mongod's _getKeysWithArray. `at[i] === length` means field i is resolved (in `fixed`). */
  run(
    at: number[],
    fixed: BsonValue[],
    obj: BsonDocument,
    notFound: number,
    positions: readonly PositionalInfo[],
  ): void {
    let arr: BsonArray | undefined;
    let arrField = '';
    const arrIdxs: number[] = [];
    const components: Array<number | undefined> = this.fields.map(() => undefined);
    let mayExpandUnembedded = true;
    for (let i = 0; i < this.fields.length; i++) {
      if (at[i] === this.lengths[i]) continue;
      const { value, arrayNestedArray } = this.extractNext(obj, positions[i] ?? noPosition, at, i);
      if (value === MISSING) {
        fixed[i] = null;
        at[i] = this.lengths[i] as number;
        notFound++;
      } else if (isArray(value)) {
        arrIdxs.push(i);
        const name = this.parts(i)[(at[i] as number) - 1] ?? '';
        if (arr === undefined) {
          arr = value;
          arrField = name;
        } else if (value !== arr) {
          throw new CommandError(
            ErrorCode.CannotIndexParallelArrays,
            `cannot index parallel arrays [${name}] [${arrField}]`,
          );
        }
        if (arrayNestedArray) mayExpandUnembedded = false;
      } else {
        fixed[i] = value;
        at[i] = this.lengths[i] as number;
      }
    }

    if (arr === undefined) {
      if (this.sparse && notFound === this.fields.length) return;
      this.keys.push([...fixed]);
      return;
    }

    if (arr.length === 0) {
      if (mayExpandUnembedded) {
        // Every path through the empty array is multikey there (it may end at it or go on).
        for (const i of arrIdxs) components[i] = (at[i] as number) - 1;
      }
      this.arrayElement(
        at,
        fixed,
        undefined,
        notFound,
        arr,
        arrIdxs,
        true,
        this.fields.map(() => noPosition),
      );
    } else {
      const sub: PositionalInfo[] = this.fields.map(() => noPosition);
      for (let i = 0; i < this.fields.length; i++) {
        const isArrayField = arrIdxs.includes(i);
        const len = this.lengths[i] as number;
        if (at[i] === len) {
          if (isArrayField && mayExpandUnembedded) components[i] = len - 1;
          continue;
        }
        const part = this.parts(i)[at[i] as number] as string;
        const element = positionIn(arr, part);
        if (element === MISSING) {
          components[i] = (at[i] as number) - 1;
          continue;
        }
        // A position selects one element: it does not make the index multikey.
        const r = extractAlongPath(arrayAsDocument(arr), this.parts(i), at[i] as number);
        sub[i] = { element, array: arr, position: part, dotted: r.value, at: r.at };
      }
      for (const el of arr)
        this.arrayElement(at, fixed, el, notFound, arr, arrIdxs, mayExpandUnembedded, sub);
    }

    components.forEach((c, i) => {
      if (c !== undefined) this.multikey[i]?.add(c);
    });
  }

  /** mongod's _getKeysArrEltFixed: continue inside one element of the expanded array. */
  private arrayElement(
    at: readonly number[],
    fixed: readonly BsonValue[],
    element: BsonValue,
    notFound: number,
    arr: BsonArray,
    arrIdxs: readonly number[],
    mayExpandUnembedded: boolean,
    positions: readonly PositionalInfo[],
  ): void {
    const atCopy = [...at];
    const fixedCopy = [...fixed];
    for (const i of arrIdxs) {
      if (atCopy[i] === this.lengths[i]) fixedCopy[i] = mayExpandUnembedded ? element : arr;
    }
    const doc = isArray(element) ? undefined : asDocument(element);
    this.run(atCopy, fixedCopy, doc ?? {}, notFound, positions);
  }
}

/** The key tuples (one value per field) a document contributes, and its multikey paths. */
export function generateIndexKeys(
  fields: readonly KeyPatternField[],
  doc: BsonDocument,
  options: GenerateKeysOptions,
): GeneratedKeys {
  if (fields.length === 1 && fields[0]?.path === '_id') {
    // The _id index: the value as it is (never an array), null when absent.
    const id = getField(doc, '_id');
    return { keys: [[id === MISSING ? null : id]], multikeyPaths: [[]] };
  }
  const g = new Generator(fields, options.sparse);
  g.run(
    fields.map(() => 0),
    fields.map(() => null),
    doc,
    0,
    fields.map(() => noPosition),
  );
  if (g.keys.length === 0 && !options.sparse) g.keys.push(fields.map(() => null));
  return { keys: g.keys, multikeyPaths: g.multikey.map((s) => [...s].sort((a, b) => a - b)) };
}

/**
 * The value at a path followed through subdocuments only, MISSING when it is absent or ends
 * at a scalar on the way (mongod's extractElementAtPathOrArrayAlongPath). An array anywhere
 * along it, or at its end, is refused with `arrayError(path up to the array)`: an index kind
 * that is never multikey (hashed, a compound wildcard index's regular fields).
 */
export function valueAlongPath(
  doc: BsonDocument,
  parts: readonly string[],
  arrayError: (pathToArray: string) => CommandError,
): PathValue {
  let current: BsonDocument = doc;
  for (let i = 0; i < parts.length; i++) {
    const v = getField(current, parts[i] as string);
    if (v === MISSING) return MISSING;
    if (isArray(v)) throw arrayError(parts.slice(0, i + 1).join('.'));
    if (i === parts.length - 1) return v;
    const sub = asDocument(v);
    if (sub === undefined) return MISSING;
    current = sub;
  }
  return MISSING;
}
