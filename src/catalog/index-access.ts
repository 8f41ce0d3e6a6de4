// One index of a collection: key generation from documents, uniqueness checks, and entry
// upkeep in the index's storage table.
//
// Entry layout: a unique index maps `key → RecordId`, so a point lookup is one get and a
// duplicate is found by one get; a non-unique index maps `key ‖ RecordId → ''`, so equal
// keys from different documents are distinct entries ordered by RecordId.

import { encodeKey } from '../bson/keystring.js';
import { formatBson } from '../bson/format.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { documentFrom } from '../bson/document.js';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import type { ReadView, WriteTxn } from '../storage/engine.js';
import type { CollectionMeta, IndexMeta } from './collection.js';
import { generateIndexKeys, parseKeyPattern } from './index-keys.js';
import type { KeyPatternField } from './index-keys.js';
import { decodeRecordId, encodeRecordId } from './record-id.js';
import type { RecordId } from './record-id.js';

export interface IndexKey {
  /** The key's values, one per key-pattern field. */
  readonly values: readonly BsonValue[];
  /** The encoded key (without RecordId suffix). */
  readonly bytes: Uint8Array;
}

export interface KeyDiff {
  readonly added: readonly IndexKey[];
  readonly removed: readonly IndexKey[];
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

export class IndexAccess {
  readonly unique: boolean;
  readonly sparse: boolean;
  readonly fields: readonly KeyPatternField[];
  private readonly directions: readonly (1 | -1)[];

  constructor(
    readonly meta: IndexMeta,
    private readonly collection: Pick<CollectionMeta, 'db' | 'name'>,
  ) {
    this.unique = meta.name === '_id_' || meta.spec['unique'] === true;
    this.sparse = meta.spec['sparse'] === true;
    this.fields = parseKeyPattern(meta.key);
    this.directions = this.fields.map((f) => f.direction);
  }

  get table(): string {
    return this.meta.ident;
  }

  encode(values: readonly BsonValue[]): Uint8Array {
    return encodeKey(values, this.directions);
  }

  /** The keys a document produces in this index (none when sparse and all fields missing). */
  keysFor(doc: BsonDocument, _view: ReadView): IndexKey[] {
    const tuples = generateIndexKeys(this.fields, doc, { sparse: this.sparse });
    const out: IndexKey[] = [];
    for (const values of tuples) {
      const bytes = this.encode(values);
      if (!out.some((k) => sameBytes(k.bytes, bytes))) out.push({ values, bytes });
    }
    return out;
  }

  diff(before: BsonDocument, after: BsonDocument, view: ReadView): KeyDiff | undefined {
    const old = this.keysFor(before, view);
    const now = this.keysFor(after, view);
    const added = now.filter((k) => !old.some((o) => sameBytes(o.bytes, k.bytes)));
    const removed = old.filter((o) => !now.some((k) => sameBytes(o.bytes, k.bytes)));
    return added.length === 0 && removed.length === 0 ? undefined : { added, removed };
  }

  /** Throws DuplicateKey or KeyTooLong; writes nothing. */
  checkInsert(view: ReadView, keys: readonly IndexKey[], recordId: RecordId, _doc: BsonDocument): void {
    for (const key of keys) {
      if (key.bytes.length > limits.indexKeyBytesMax) {
        throw new CommandError(
          ErrorCode.KeyTooLong,
          `index key too large to store: ${key.bytes.length} bytes (max ${limits.indexKeyBytesMax}) in index ${this.meta.name}`,
        );
      }
      if (!this.unique) continue;
      const existing = view.get(this.table, key.bytes);
      if (existing !== undefined && decodeRecordId(existing) !== recordId) throw this.duplicateKey(key);
    }
  }

  duplicateKey(key: IndexKey): CommandError {
    const keyValue = documentFrom(this.fields.map((f, i) => [f.path, key.values[i] ?? null] as const));
    return new CommandError(
      ErrorCode.DuplicateKey,
      `E11000 duplicate key error collection: ${this.collection.db}.${this.collection.name} index: ${this.meta.name} dup key: ${formatBson(keyValue)}`,
      { info: { keyPattern: this.meta.key, keyValue } },
    );
  }

  addEntries(txn: WriteTxn, keys: readonly IndexKey[], recordId: RecordId): void {
    const rid = encodeRecordId(recordId);
    for (const key of keys) {
      if (this.unique) txn.put(this.table, key.bytes, rid);
      else txn.put(this.table, Buffer.concat([key.bytes, rid]), emptyValue);
    }
  }

  removeEntries(txn: WriteTxn, keys: readonly IndexKey[], recordId: RecordId): void {
    const rid = encodeRecordId(recordId);
    for (const key of keys) {
      if (this.unique) {
        const existing = txn.get(this.table, key.bytes);
        if (existing !== undefined && decodeRecordId(existing) === recordId) txn.delete(this.table, key.bytes);
      } else {
        txn.delete(this.table, Buffer.concat([key.bytes, rid]));
      }
    }
  }

  /** Point lookup in a unique index. */
  lookupUnique(view: ReadView, values: readonly BsonValue[]): RecordId | undefined {
    const v = view.get(this.table, this.encode(values));
    return v === undefined ? undefined : decodeRecordId(v);
  }
}

const emptyValue = new Uint8Array(0);
