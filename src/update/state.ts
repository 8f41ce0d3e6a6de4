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
import type { FilterMatcher, TruncatedArray } from './types.js';
import { formatElement } from './format.js';
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

/** The dotted paths an update changed, for change streams and the oplog. */
export class ChangeLog {
  private readonly updated = new Map<string, BsonValue>();
  private readonly removed: string[] = [];

  /**
   * Record a new value at a path. A path below one already recorded is covered by it (the
   * recorded value is the live subtree); a path above recorded ones replaces them.
   */
  set(path: readonly string[], value: BsonValue): void {
    for (let i = 1; i < path.length; i++) {
      if (this.updated.has(path.slice(0, i).join('.'))) return;
    }
    const dotted = path.join('.');
    const below = `${dotted}.`;
    for (const k of [...this.updated.keys()]) if (k.startsWith(below)) this.updated.delete(k);
    this.updated.set(dotted, value);
  }

  remove(path: readonly string[]): void {
    this.removed.push(path.join('.'));
  }

  updatedFields(): BsonDocument {
    const doc: BsonDocument = {};
    for (const [k, v] of this.updated) setOwn(doc, k, v);
    return doc;
  }

  removedFields(): string[] {
    return [...this.removed];
  }

  truncatedArrays(): TruncatedArray[] {
    return [];
  }
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
  private readonly owned = new WeakSet<object>();

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
      copy = {};
      for (const k of Object.keys(source)) setOwn(copy, k, source[k] as BsonValue);
    }
    this.owned.add(copy);
    return copy;
  }

  /** `_id: 1` for messages, or undefined when the document has no _id. */
  idElement(): string | undefined {
    return hasOwn(this.root, '_id') ? formatElement('_id', this.root['_id'] as BsonValue) : undefined;
  }
}

/** The field name of the value at a location, as mongod prints it in messages. */
export function fieldNameOf(loc: Loc): string {
  return String(loc.key);
}
