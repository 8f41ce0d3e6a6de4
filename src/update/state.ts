// The working state of one update application: the copy-on-write document, locations in it,
// and the log of changed paths.
//
// The input document is never mutated. The root is copied shallowly when the update starts,
// and every container (subdocument or array) the update walks into is copied shallowly the
// first time, so the new document shares every untouched subtree with the input. Only
// containers recorded in `owned` may be changed in place.

import { DBRef, Timestamp } from 'bson';
import { getOwn, hasOwn, setOwn, deleteOwn } from '../bson/document.js';
import { asDocument, isArray, isPlainDocument } from '../bson/types.js';
import type { BsonArray, BsonDocument, BsonValue } from '../bson/types.js';
import type { FilterMatcher } from './types.js';
import { DiffBuilder } from './diff.js';
import type { DiffPathPart } from './diff.js';
import { formatElement } from '../bson/format.js';
import { parseArrayIndex } from './path.js';

export type Container = BsonDocument | BsonArray;

/** Where a value lives: a key of a subdocument, an index of an array, or the root (container null). */
export interface Loc {
  readonly container: Container | null;
  readonly key: string | number;
}

export const rootLoc: Loc = { container: null, key: '' };

/** A subdocument in BSON terms: plain objects, and DBRefs (decoded by the bson package into a class). */
export function isObjectLike(v: unknown): v is BsonDocument | DBRef {
  return isPlainDocument(v) || v instanceof DBRef;
}

/**
 * The changes an update made, for the oplog's `$v: 2` diff (and so change streams). Entries are
 * only recorded while the update runs; the diff is built when a caller asks.
 */
export class ChangeLog {
  private readonly entries: Array<{
    readonly path: readonly string[];
    readonly kind: 'update' | 'insert' | 'delete';
    readonly value?: BsonValue;
  }> = [];

  /** The value at `path` changed (the recorded value is the live subtree). */
  set(path: readonly string[], value: BsonValue): void {
    this.entries.push({ path, kind: 'update', value });
  }

  /** `path` (an existing prefix plus its first new component) was created holding `value`. */
  create(path: readonly string[], value: BsonValue): void {
    this.entries.push({ path, kind: 'insert', value });
  }

  remove(path: readonly string[]): void {
    this.entries.push({ path, kind: 'delete' });
  }

  /** The diff from the input to `doc`, the updated document: array positions are read from it. */
  diff(doc: BsonDocument): BsonDocument {
    const builder = new DiffBuilder();
    for (const { path, kind, value } of this.entries) {
      const typed = typedPath(doc, path);
      if (kind === 'delete') builder.delete(typed);
      else if (kind === 'insert') builder.insert(typed, value as BsonValue);
      else builder.update(typed, value as BsonValue);
    }
    return builder.serialize();
  }
}

/**
 * A logged path with its array positions as numbers. An update never changes the shape along a
 * path it logs (conflicting paths are refused), so the updated document tells which
 * components went through arrays.
 */
function typedPath(doc: BsonDocument, path: readonly string[]): DiffPathPart[] {
  const out: DiffPathPart[] = [];
  let cur: BsonValue | undefined = doc;
  for (const part of path) {
    if (isArray(cur)) {
      const idx = Number(part);
      out.push(idx);
      cur = cur[idx];
    } else {
      out.push(part);
      const d = asDocument(cur);
      cur = d === undefined ? undefined : getOwn(d, part);
    }
  }
  return out;
}

export interface StateOptions {
  readonly isInsert: boolean;
  /** Storage checks of modified elements ($-prefixed top-level names, depth). Off while building an upsert. */
  readonly validateForStorage: boolean;
  readonly matchedField: string | undefined;
  readonly now: Date;
  readonly nextTimestamp: (() => Timestamp) | undefined;
  readonly arrayFilters: ReadonlyMap<string, FilterMatcher>;
}

export class ApplyState {
  readonly root: BsonDocument;
  readonly log = new ChangeLog();
  modified = false;
  /** Containers copied or created by this application (a Set: it lives only as long as the update). */
  private readonly owned = new Set<object>();

  constructor(
    input: BsonDocument,
    readonly options: StateOptions,
  ) {
    this.root = this.copyContainer(input) as BsonDocument;
  }

  get isInsert(): boolean {
    return this.options.isInsert;
  }

  get validateForStorage(): boolean {
    return this.options.validateForStorage;
  }

  /** A timestamp for $currentDate; without a clock, one derived from `now`. */
  nextTimestamp(): Timestamp {
    const next = this.options.nextTimestamp;
    if (next) return next();
    return new Timestamp({ t: Math.floor(this.options.now.getTime() / 1000), i: 1 });
  }

  valueAt(loc: Loc): BsonValue | undefined {
    const c = loc.container;
    if (c === null) return this.root;
    if (Array.isArray(c)) return c[loc.key as number];
    return getOwn(c, loc.key as string);
  }

  setAt(loc: Loc, value: BsonValue): void {
    const c = loc.container;
    if (c === null) throw new Error('the root is never replaced through a location');
    if (Array.isArray(c)) c[loc.key as number] = value;
    else setOwn(c, loc.key as string, value);
  }

  removeAt(loc: Loc): void {
    const c = loc.container;
    if (c !== null && !Array.isArray(c)) deleteOwn(c, loc.key as string);
  }

  /**
   * The location of child `part` of the value at `loc` if it exists: a field of a
   * subdocument, or an index within an array.
   */
  childOf(loc: Loc, part: string): Loc | undefined {
    const v = this.valueAt(loc);
    if (isArray(v)) {
      const idx = parseArrayIndex(part);
      if (idx === undefined || idx >= v.length) return undefined;
      return { container: this.own(loc) as BsonArray, key: idx };
    }
    if (isObjectLike(v)) {
      const doc = this.own(loc) as BsonDocument;
      return hasOwn(doc, part) ? { container: doc, key: part } : undefined;
    }
    return undefined;
  }

  /**
   * Make the container at `loc` safe to change in place: copy it (once per application) and
   * put the copy where it was. DBRefs become plain documents with the same fields in order.
   * Scalars are returned unchanged.
   */
  own(loc: Loc): BsonValue | undefined {
    const v = this.valueAt(loc);
    if (typeof v !== 'object' || v === null || this.owned.has(v)) return v;
    if (!isArray(v) && !isObjectLike(v)) return v;
    const copy = this.copyContainer(v);
    this.setAt(loc, copy);
    return copy;
  }

  /** Record a container this application created: it may be changed in place. */
  adopt(v: BsonValue): void {
    if (typeof v === 'object' && v !== null) this.owned.add(v);
  }

  private copyContainer(v: BsonArray | BsonDocument | DBRef): Container {
    let copy: Container;
    if (isArray(v)) {
      copy = v.slice();
    } else {
      const source = v instanceof DBRef ? (asDocument(v) ?? {}) : v;
      const doc: BsonDocument = {};
      // A plain assignment loop is several times faster than object spread here; setOwn
      // keeps a `__proto__` key as data.
      for (const k of Object.keys(source)) {
        if (k === '__proto__') setOwn(doc, k, source[k] as BsonValue);
        else doc[k] = source[k] as BsonValue;
      }
      copy = doc;
    }
    this.owned.add(copy);
    return copy;
  }

  /** `_id: 1` for messages, or undefined when the document has no _id. */
  idElement(): string | undefined {
    return hasOwn(this.root, '_id')
      ? formatElement('_id', this.root['_id'] as BsonValue)
      : undefined;
  }
}

/** The field name of the value at a location, as mongod prints it in messages. */
export function fieldNameOf(loc: Loc): string {
  return String(loc.key);
}
