// One index of a collection: key generation from documents, uniqueness checks, entry upkeep
// in the index's storage table, and the per-index state the planner needs (multikey paths,
// long keys).
//
// Entry layout: a unique index maps `key → RecordId ‖ typeInfo`, so a point lookup and a
// duplicate check are one get; a non-unique index maps `key ‖ RecordId → typeInfo`, so equal
// keys of different documents are distinct entries ordered by RecordId. `typeInfo`
// (keystring's encodeTypeInfo, usually empty) lets a covered query decode the key's values
// with their exact BSON types.
//
// Long keys. An encoded key longer than limits.indexKeyBytesMax is stored truncated: its
// first `truncatedPrefixBytes` bytes, then 16 bytes of SHA-256 over the whole key, which makes
// it exactly indexKeyBytesMax + 1 bytes long — longer than any key stored as it is, so the
// two kinds never collide and a scan tells them apart by length. Equal keys truncate equally
// (so unique indexes still catch duplicates, with a 2^-128 chance of a false one); the
// truncated key keeps its place in the order up to its prefix only, so once an index holds a
// truncated key (recorded in its state) scans widen their byte ranges to the prefix length,
// pass truncated entries on to the FETCH stage (which re-checks the whole filter against the
// document), and the planner neither sorts nor covers with that index. Nothing is refused.
//
// An index being built (meta.buildUUID set) is kept up to date by every write while the build
// scans the collection, but a unique one does not refuse a duplicate then: mongod's hybrid
// builds let such writes succeed and fail the build at its commit if the duplicate is still
// there. A write whose key another record holds stores the record's id in the build's table of
// skipped records (same transaction) instead of the entry; the build's commit resolves each
// (resolveSkipped): entry added, or the build fails with DuplicateKey.
//
// Index state: the multikey paths (mongod's MultikeyPaths: per field, the path components
// where an array was expanded) and whether a truncated key was ever stored. It only grows,
// lives under the reserved key 0x00 of the index table (no encoded key starts with 0x00),
// and is updated in the same transaction as the entries that make it grow, so any snapshot
// sees a state that holds for the entries it sees.

import { createHash } from 'node:crypto';
import { Int32 } from 'bson';
import { decodeDocument, encodeDocument } from '../bson/codec.js';
import { encodeKeyAndTypeInfo, keyPrefixUpperBound } from '../bson/keystring.js';
import type { KeyDirection } from '../bson/keystring.js';
import { formatBson } from '../bson/format.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { documentFrom } from '../bson/document.js';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import type { ReadView, WriteTxn } from '../storage/engine.js';
import type { CollectionMeta, IndexMeta } from './meta.js';
import { generateIndexKeys, parseKeyPattern } from './index-keys.js';
import type { GeneratedKeys, KeyPatternField } from './index-keys.js';
import { indexKindOf } from './index-kind.js';
import { compilePartialFilter } from './partial-filter.js';
import type { PartialFilter } from './partial-filter.js';
import type { IndexKind } from './index-kind.js';
import { textIndexKeys, textSpecOf } from '../text/spec.js';
import type { TextSpec } from '../text/spec.js';
import { s2IndexKeys, twoDIndexKeys } from './geo-keys.js';
import { hashedIndexKeys } from './hashed-keys.js';
import {
  compoundWildcardKeys,
  isWildcardField,
  wildcardIndexKeys,
  wildcardProjectionOf,
} from './wildcard-keys.js';
import type { WildcardKeys, WildcardProjection } from './wildcard-keys.js';
import type { Hash2dParams } from '../geo/cells.js';
import { decodeRecordId, encodeRecordId } from './record-id.js';
import type { RecordId } from './record-id.js';

export interface IndexKey {
  /** The key's values, one per key-pattern field. */
  readonly values: readonly BsonValue[];
  /** The stored key (without RecordId suffix): the encoded key, or its truncated form. */
  readonly bytes: Uint8Array;
  /** encodeTypeInfo of the values (stored as the entry's value). */
  readonly typeInfo: Uint8Array;
  /** True when `bytes` is the truncated form of a key longer than indexKeyBytesMax. */
  readonly truncated: boolean;
}

export interface KeyDiff {
  readonly added: readonly IndexKey[];
  readonly removed: readonly IndexKey[];
}

/** What the planner must know about an index's contents as of a snapshot. */
export interface IndexState {
  /** Per key-pattern field, the multikey path components (empty: not multikey). */
  readonly multikeyPaths: readonly (readonly number[])[];
  /** A wildcard index's paths where some document held an array (sorted). */
  readonly wildcardMultikeyPaths?: readonly string[];
  /** Whether some entry was ever stored with a truncated key. */
  readonly hasTruncatedKeys: boolean;
}

/** One entry as a scan sees it. */
export interface IndexEntry {
  /** The stored key without its RecordId suffix. */
  readonly key: Uint8Array;
  /** The whole stored key (with the suffix in a non-unique index): a resume position. */
  readonly storedKey: Uint8Array;
  readonly recordId: RecordId;
  readonly typeInfo: Uint8Array;
  readonly truncated: boolean;
}

/** Reserved key of the index state; every encoded key starts with a tag byte >= 0x08. */
const stateKey = new Uint8Array([0x00]);
/** Scans start here so that they never meet the state entry. */
export const firstEntryKey = new Uint8Array([0x01]);
const hashBytes = 16;
/** Bytes of the encoded key a truncated key keeps. */
export const truncatedPrefixBytes = limits.indexKeyBytesMax + 1 - hashBytes;
const truncatedKeyBytes = limits.indexKeyBytesMax + 1;
const recordIdBytes = 8;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

/** The multikey paths of the document a key list came from (set by keysFor and diff). */
const multikeyOf = new WeakMap<readonly IndexKey[], readonly (readonly number[])[]>();
/** Likewise, a wildcard index's multikey paths (mongod's multikey metadata keys). */
const wildcardPathsOf = new WeakMap<readonly IndexKey[], readonly string[]>();

function truncate(encoded: Uint8Array): Uint8Array {
  const out = new Uint8Array(truncatedKeyBytes);
  out.set(encoded.subarray(0, truncatedPrefixBytes));
  out.set(
    createHash('sha256').update(encoded).digest().subarray(0, hashBytes),
    truncatedPrefixBytes,
  );
  return out;
}

function emptyState(n: number): IndexState {
  return { multikeyPaths: Array.from({ length: n }, () => []), hasTruncatedKeys: false };
}

/** The table of the records a unique index being built set aside (see the file comment). */
export function skippedRecordsTable(index: Pick<IndexMeta, 'ident'>): string {
  return `s:${index.ident}`;
}

export class IndexAccess {
  readonly unique: boolean;
  /** Being built: duplicates are set aside, not refused (see the file comment). */
  readonly building: boolean;
  /**
   * collMod's first step to a unique index: new duplicate keys are refused, the duplicates
   * already there stay (the index keeps its non-unique layout).
   */
  readonly prepareUnique: boolean;
  readonly sparse: boolean;
  readonly hidden: boolean;
  readonly isIdIndex: boolean;
  readonly fields: readonly KeyPatternField[];
  readonly directions: readonly KeyDirection[];
  /** The compiled partialFilterExpression, if any. */
  readonly partialFilter: PartialFilter | undefined;
  /** btree, or the special kind its key pattern names ("text", "2dsphere", "2d"). */
  readonly kind: IndexKind;
  /** A text index's specification (weights, languages, extra fields). */
  readonly text: TextSpec | undefined;
  /** A wildcard index's projection (its keys are [path, value] pairs). */
  readonly wildcard: WildcardProjection | undefined;
  /** The position of a wildcard index's wildcard field in its key pattern (-1: not one). */
  readonly wildcardPos: number;

  constructor(
    readonly meta: IndexMeta,
    private readonly collection: Pick<CollectionMeta, 'db' | 'name'>,
  ) {
    this.isIdIndex = meta.name === '_id_';
    this.building = meta.buildUUID !== undefined;
    this.unique = this.isIdIndex || meta.spec['unique'] === true;
    const prepare = meta.spec['prepareUnique'];
    // A number counts as its truth value (createIndexes accepts 1 / 0 for flags).
    this.prepareUnique =
      !this.unique &&
      prepare !== undefined &&
      prepare !== null &&
      prepare !== false &&
      Number(prepare.valueOf()) !== 0;
    this.sparse = meta.spec['sparse'] === true;
    this.hidden = meta.spec['hidden'] === true;
    this.fields = parseKeyPattern(meta.key);
    this.kind = indexKindOf(meta.key);
    this.wildcardPos =
      this.kind === 'wildcard' ? this.fields.findIndex((f) => isWildcardField(f.path)) : -1;
    const wildcardField = this.fields[this.wildcardPos];
    // A wildcard key holds (path, value) where the wildcard field is: the path ascending, the
    // value in the field's direction; a compound one has its regular fields around them.
    this.directions = this.fields.flatMap((f, i) =>
      i === this.wildcardPos ? [1 as const, f.direction] : [f.direction],
    );
    const projection = meta.spec['wildcardProjection'];
    this.wildcard =
      wildcardField === undefined
        ? undefined
        : wildcardProjectionOf(
            wildcardField.path,
            projection !== null && typeof projection === 'object'
              ? (projection as BsonDocument)
              : undefined,
          );
    const pfe = meta.spec['partialFilterExpression'];
    this.partialFilter =
      pfe !== undefined && pfe !== null && typeof pfe === 'object'
        ? compilePartialFilter(pfe as BsonDocument)
        : undefined;
    this.text = this.kind === 'text' ? textSpecOf(meta.spec) : undefined;
  }

  /** The key tuples of a document, by the index's kind. */
  private generate(doc: BsonDocument): GeneratedKeys {
    if (this.text !== undefined) {
      const keys = textIndexKeys(this.text, doc);
      // One document, several terms: the index is multikey (mongod tracks no path for text).
      const multikey = keys.length > 1;
      return {
        keys,
        multikeyPaths: this.fields.map((f) => (multikey && f.path === '_fts' ? [0] : [])),
      };
    }
    if (this.kind === '2dsphere') return s2IndexKeys(this.fields, doc);
    if (this.kind === '2d') return twoDIndexKeys(this.fields, doc, this.hash2d);
    if (this.kind === 'hashed') return hashedIndexKeys(this.fields, doc, this.sparse);
    if (this.wildcard !== undefined)
      return this.fields.length === 1
        ? wildcardIndexKeys(this.wildcard, doc)
        : compoundWildcardKeys(this.wildcard, this, doc);
    return generateIndexKeys(this.fields, doc, { sparse: this.sparse });
  }

  /** A 2d index's hashing parameters (bits, min, max; mongod's defaults 26, -180, 180). */
  get hash2d(): Hash2dParams {
    const n = (name: string, dflt: number): number => {
      const v = this.meta.spec[name];
      return v === undefined || v === null ? dflt : Number(v.valueOf());
    };
    return { bits: Math.trunc(n('bits', 26)), min: n('min', -180), max: n('max', 180) };
  }

  get table(): string {
    return this.meta.ident;
  }

  /** The stored form of one key tuple (truncated when too long). */
  encode(values: readonly BsonValue[]): Uint8Array {
    return this.encodeKey(values).bytes;
  }

  private encodeKey(values: readonly BsonValue[]): IndexKey {
    const { key, typeInfo } = encodeKeyAndTypeInfo(values, this.directions);
    if (key.length <= limits.indexKeyBytesMax)
      return { values, bytes: key, typeInfo, truncated: false };
    return { values, bytes: truncate(key), typeInfo, truncated: true };
  }

  /** The keys a document produces in this index: none when a partial index excludes it or a sparse one skips it. */
  keysFor(doc: BsonDocument, _view: ReadView): IndexKey[] {
    if (this.partialFilter !== undefined && !this.partialFilter.matches(doc)) return [];
    const generated = this.generate(doc);
    const out: IndexKey[] = [];
    for (const values of generated.keys) {
      const key = this.encodeKey(values);
      if (!out.some((k) => sameBytes(k.bytes, key.bytes))) out.push(key);
    }
    if (generated.multikeyPaths.some((p) => p.length > 0))
      multikeyOf.set(out, generated.multikeyPaths);
    const wildcardPaths = (generated as Partial<WildcardKeys>).multikeyPathStrings;
    if (wildcardPaths !== undefined && wildcardPaths.length > 0)
      wildcardPathsOf.set(out, wildcardPaths);
    return out;
  }

  /**
   * Keys to remove and add when a document changes. Undefined when nothing changes, which
   * includes the state: a document that newly holds an array where the keys stay the same
   * still gets a (key-less) diff so that addEntries records the multikey path.
   */
  diff(before: BsonDocument, after: BsonDocument, view: ReadView): KeyDiff | undefined {
    const old = this.keysFor(before, view);
    const now = this.keysFor(after, view);
    const added = now.filter((k) => !old.some((o) => sameBytes(o.bytes, k.bytes)));
    const removed = old.filter((o) => !now.some((k) => sameBytes(o.bytes, k.bytes)));
    const multikey = multikeyOf.get(now);
    if (multikey !== undefined) multikeyOf.set(added, multikey);
    const wildcardPaths = wildcardPathsOf.get(now);
    if (wildcardPaths !== undefined) wildcardPathsOf.set(added, wildcardPaths);
    if (
      added.length === 0 &&
      removed.length === 0 &&
      (multikey === undefined || !this.grows(view, multikey, false, undefined, wildcardPaths))
    )
      return undefined;
    return { added, removed };
  }

  /** Throws DuplicateKey; writes nothing. */
  checkInsert(
    view: ReadView,
    keys: readonly IndexKey[],
    recordId: RecordId,
    _doc: BsonDocument,
  ): void {
    if (this.building) return;
    if (this.prepareUnique) {
      for (const key of keys)
        if (this.heldByOther(view, key, recordId)) throw this.duplicateKey(key);
      return;
    }
    if (!this.unique) return;
    for (const key of keys) {
      const existing = view.get(this.table, key.bytes);
      if (existing !== undefined && decodeRecordId(existing) !== recordId)
        throw this.duplicateKey(key);
    }
  }

  /** Whether a record other than `recordId` has an entry of `key` (non-unique layout). */
  private heldByOther(view: ReadView, key: IndexKey, recordId: RecordId): boolean {
    const end = keyPrefixUpperBound(key.bytes);
    const entries = view.scan(this.table, {
      start: key.bytes,
      startInclusive: true,
      ...(end === undefined ? {} : { end, endInclusive: false }),
    });
    for (const { key: stored } of entries) {
      if (stored.length !== key.bytes.length + recordIdBytes) continue;
      if (decodeRecordId(stored.subarray(key.bytes.length)) !== recordId) return true;
    }
    return false;
  }

  /**
   * The records that share a key, group by group in key order (a non-unique index): what
   * stops collMod from converting the index to unique. Stops once `max` records are listed.
   */
  duplicateGroups(view: ReadView, max: number, interrupt: () => void): RecordId[][] {
    const steps = this.duplicateScan(view, max);
    for (;;) {
      const r = steps.next();
      if (r.done === true) return r.value;
      interrupt();
    }
  }

  /**
   * duplicateGroups as steps: the generator pauses every 1024 entries (so a caller can give
   * the event loop back and check the operation between them, on the same view) and returns
   * the groups.
   */
  *duplicateScan(view: ReadView, max: number): Generator<void, RecordId[][], void> {
    const groups: RecordId[][] = [];
    let listed = 0;
    let previous: Uint8Array | undefined;
    let group: RecordId[] = [];
    const close = (): void => {
      if (group.length > 1) {
        groups.push(group);
        listed += group.length;
      }
    };
    let seen = 0;
    for (const { key: stored } of view.scan(this.table, { start: firstEntryKey })) {
      if (++seen % 1024 === 0) yield;
      const key = stored.subarray(0, stored.length - recordIdBytes);
      const id = decodeRecordId(stored.subarray(key.length));
      if (previous !== undefined && sameBytes(previous, key)) {
        group.push(id);
        continue;
      }
      close();
      if (listed >= max) return groups;
      previous = key;
      group = [id];
    }
    close();
    return groups;
  }

  /**
   * Rewrites the entries in the layout of a unique index (key → record id and type bits) or
   * of a non-unique one (key + record id → type bits), for collMod's conversions. The caller
   * has checked that no key has two records; the state entry stays.
   */
  relayout(txn: WriteTxn, toUnique: boolean): void {
    const entries: Array<[Uint8Array, Uint8Array]> = [];
    for (const { key: stored, value } of txn.scan(this.table, { start: firstEntryKey })) {
      if (toUnique) {
        const cut = stored.length - recordIdBytes;
        entries.push([stored.slice(0, cut), concat(stored.subarray(cut), value)]);
      } else {
        const rid = value.subarray(0, recordIdBytes);
        entries.push([concat(stored, rid), value.slice(recordIdBytes)]);
      }
    }
    const state = txn.get(this.table, stateKey);
    txn.clearTable(this.table);
    if (state !== undefined) txn.put(this.table, stateKey, state);
    for (const [k, v] of entries) txn.put(this.table, k, v);
  }

  duplicateKey(key: IndexKey): CommandError {
    const keyValue = documentFrom(
      this.fields.map((f, i) => [f.path, key.values[i] ?? null] as const),
    );
    return new CommandError(
      ErrorCode.DuplicateKey,
      `E11000 duplicate key error collection: ${this.collection.db}.${this.collection.name} index: ${this.meta.name} dup key: ${formatBson(keyValue)}`,
      { info: { keyPattern: this.meta.key, keyValue } },
    );
  }

  addEntries(txn: WriteTxn, keys: readonly IndexKey[], recordId: RecordId): void {
    this.storeEntries(txn, keys, recordId, this.building);
  }

  private storeEntries(
    txn: WriteTxn,
    keys: readonly IndexKey[],
    recordId: RecordId,
    setAsideDuplicates: boolean,
  ): void {
    const rid = encodeRecordId(recordId);
    let truncated = false;
    for (const key of keys) {
      truncated ||= key.truncated;
      if (this.unique) {
        if (setAsideDuplicates) {
          const holder = txn.get(this.table, key.bytes);
          if (holder !== undefined && decodeRecordId(holder) !== recordId) {
            txn.put(skippedRecordsTable(this.meta), rid, new Uint8Array(0));
            continue;
          }
        }
        txn.put(this.table, key.bytes, concat(rid, key.typeInfo));
      } else txn.put(this.table, concat(key.bytes, rid), key.typeInfo);
    }
    const multikey = multikeyOf.get(keys);
    if (multikey !== undefined || truncated)
      this.grows(txn, multikey, truncated, txn, wildcardPathsOf.get(keys));
  }

  removeEntries(txn: WriteTxn, keys: readonly IndexKey[], recordId: RecordId): void {
    const rid = encodeRecordId(recordId);
    for (const key of keys) {
      if (this.unique) {
        const existing = txn.get(this.table, key.bytes);
        if (existing !== undefined && decodeRecordId(existing) === recordId)
          txn.delete(this.table, key.bytes);
      } else {
        txn.delete(this.table, concat(key.bytes, rid));
      }
    }
  }

  /** Whether the entry of `key` for `recordId` is stored (validate). */
  hasEntry(view: ReadView, key: IndexKey, recordId: RecordId): boolean {
    if (this.unique) {
      const v = view.get(this.table, key.bytes);
      return v !== undefined && decodeRecordId(v) === recordId;
    }
    return view.get(this.table, concat(key.bytes, encodeRecordId(recordId))) !== undefined;
  }

  /**
   * At a build's commit: the records set aside get their entries, or DuplicateKey when another
   * record still holds one of their keys. `record` reads a record as of `txn` (undefined: gone).
   * Returns how many records were set aside.
   */
  resolveSkipped(txn: WriteTxn, record: (id: RecordId) => BsonDocument | undefined): number {
    const table = skippedRecordsTable(this.meta);
    const ids = [...txn.scan(table)].map((e) => decodeRecordId(e.key));
    for (const id of ids) {
      const doc = record(id);
      if (doc === undefined) continue;
      const keys = this.keysFor(doc, txn);
      for (const key of keys) {
        const holder = txn.get(this.table, key.bytes);
        if (holder !== undefined && decodeRecordId(holder) !== id) throw this.duplicateKey(key);
      }
      this.storeEntries(txn, keys, id, false);
    }
    txn.clearTable(table);
    return ids.length;
  }

  /** Point lookup in a unique index. */
  lookupUnique(view: ReadView, values: readonly BsonValue[]): RecordId | undefined {
    const v = view.get(this.table, this.encode(values));
    return v === undefined ? undefined : decodeRecordId(v);
  }

  // ---- state --------------------------------------------------------------------------------

  /** The index state as of `view`. */
  readState(view: ReadView): IndexState {
    const bytes = view.get(this.table, stateKey);
    if (bytes === undefined) return emptyState(this.fields.length);
    const doc = decodeDocument(bytes);
    const paths = Array.isArray(doc['multikeyPaths']) ? doc['multikeyPaths'] : [];
    const wildcard = doc['wildcardMultikeyPaths'];
    return {
      multikeyPaths: this.fields.map((_, i) => {
        const p = paths[i];
        return Array.isArray(p) ? p.map((c) => Number((c as Int32).valueOf())) : [];
      }),
      hasTruncatedKeys: doc['hasTruncatedKeys'] === true,
      ...(Array.isArray(wildcard)
        ? { wildcardMultikeyPaths: wildcard.filter((w): w is string => typeof w === 'string') }
        : {}),
    };
  }

  /**
   * Whether the state would grow with these multikey paths / a truncated key; with `txn`,
   * stores the grown state.
   */
  private grows(
    view: ReadView,
    multikey: readonly (readonly number[])[] | undefined,
    truncated: boolean,
    txn?: WriteTxn,
    wildcardPaths?: readonly string[],
  ): boolean {
    const state = this.readState(view);
    let changed = truncated && !state.hasTruncatedKeys;
    const knownPaths = state.wildcardMultikeyPaths ?? [];
    const newPaths = (wildcardPaths ?? []).filter((w) => !knownPaths.includes(w));
    if (newPaths.length > 0) changed = true;
    const paths = state.multikeyPaths.map((p, i) => {
      const add = multikey?.[i] ?? [];
      const missing = add.filter((c) => !p.includes(c));
      if (missing.length === 0) return [...p];
      changed = true;
      return [...p, ...missing].sort((a, b) => a - b);
    });
    if (changed && txn !== undefined) {
      const doc: BsonDocument = {
        multikeyPaths: paths.map((p) => p.map((c) => new Int32(c))),
        hasTruncatedKeys: state.hasTruncatedKeys || truncated,
      };
      if (knownPaths.length + newPaths.length > 0)
        doc['wildcardMultikeyPaths'] = [...knownPaths, ...newPaths].sort();
      txn.put(this.table, stateKey, encodeDocument(doc));
    }
    return changed;
  }

  // ---- scans --------------------------------------------------------------------------------

  /**
   * Entries with stored keys in [start, end) (byte order), forward or backward; `after`
   * resumes strictly past a stored key (before it, backward).
   */
  *scan(
    view: ReadView,
    range: { start: Uint8Array; end: Uint8Array | undefined },
    reverse: boolean,
    after?: Uint8Array,
  ): Generator<IndexEntry> {
    let start = Buffer.compare(range.start, firstEntryKey) < 0 ? firstEntryKey : range.start;
    let startInclusive = true;
    let end = range.end;
    let endInclusive = false;
    if (after !== undefined) {
      if (!reverse && Buffer.compare(after, start) >= 0) {
        start = after;
        startInclusive = false;
      } else if (reverse && (end === undefined || Buffer.compare(after, end) < 0)) {
        end = after;
        endInclusive = false;
      }
    }
    if (
      end !== undefined &&
      Buffer.compare(start, end) >= 0 &&
      !(endInclusive && sameBytes(start, end))
    )
      return;
    const iter = view.scan(this.table, {
      start,
      startInclusive,
      ...(end === undefined ? {} : { end, endInclusive }),
      reverse,
    });
    for (const { key, value } of iter) {
      if (this.unique) {
        yield {
          key,
          storedKey: key,
          recordId: decodeRecordId(value),
          typeInfo: value.subarray(recordIdBytes),
          truncated: key.length === truncatedKeyBytes,
        };
      } else {
        const keyLength = key.length - recordIdBytes;
        yield {
          key: key.subarray(0, keyLength),
          storedKey: key,
          recordId: decodeRecordId(key.subarray(keyLength)),
          typeInfo: value,
          truncated: keyLength === truncatedKeyBytes,
        };
      }
    }
  }
}

/**
 * Widens a byte range [start, end) so that it also holds the truncated form of every key in
 * it: both bounds cut to the prefix a truncated key keeps (see the file comment).
 */
export function widenForTruncatedKeys(range: { start: Uint8Array; end: Uint8Array | undefined }): {
  start: Uint8Array;
  end: Uint8Array | undefined;
} {
  const start =
    range.start.length > truncatedPrefixBytes
      ? range.start.subarray(0, truncatedPrefixBytes)
      : range.start;
  const end =
    range.end !== undefined && range.end.length > truncatedPrefixBytes
      ? keyPrefixUpperBound(Uint8Array.from(range.end.subarray(0, truncatedPrefixBytes)))
      : range.end;
  return { start, end };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
