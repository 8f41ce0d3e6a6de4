// --oplogReplay: applies oplog.bson's entries in order, as mongorestore does (oplog.go):
// no-ops and internal entries are skipped, transactions are buffered until their commit,
// collection UUIDs are dropped (unless --preserveUUID), --oplogLimit stops the replay.
//
// Each entry is applied with the applyOps command where the server has it (mongod). A server
// without applyOps gets the entry as the ordinary commands it stands for: an insert as a
// replacement upserted by _id, an update's $v:2 diff applied to the current document, a delete
// by _id, a command entry as that command. These are idempotent, as oplog application must be:
// mongodump's oplog starts before its first read, so some entries are already in the data.

import type { Timestamp } from './bson.js';
import type { Document } from './bson.js';
import { MongoServerError } from 'mongodb';
import type { MongoClient } from 'mongodb';
import { configCollectionsKept } from './namespaces.js';
import { orderedDocument } from './raw-bson.js';
import type { OrderedDocument } from './raw-bson.js';
import { asTimestamp, compareTimestamps } from './server-catalog.js';
import { ToolError } from './tool-error.js';
import type { ToolLog } from './tool-log.js';

const ignoredOps = new Set(['n', 'cd', 'ci', 'cu', 'km']);
const ignoredCommands = new Set([
  'startIndexBuild',
  'abortIndexBuild',
  'setMultikeyMetadata',
  'dropIdent',
]);
const knownCommands = new Set([
  'renameCollection',
  'dropDatabase',
  'applyOps',
  'dbCheck',
  'create',
  'convertToCapped',
  'emptycapped',
  'drop',
  'createIndexes',
  'deleteIndex',
  'deleteIndexes',
  'dropIndex',
  'dropIndexes',
  'collMod',
  'startIndexBuild',
  'abortIndexBuild',
  'commitIndexBuild',
]);

export interface ReplaySettings {
  readonly preserveUUID: boolean;
  readonly bypassDocumentValidation: boolean;
  readonly oplogLimit: Timestamp | undefined;
}

function isMap(v: unknown): v is OrderedDocument {
  return v instanceof Map;
}

function get(m: OrderedDocument, key: string): unknown {
  return m.get(key);
}

function firstKey(m: OrderedDocument): string | undefined {
  for (const k of m.keys()) return k;
  return undefined;
}

/**
 * A command for the driver: a plain object, whose keys keep their order (command names and
 * options are never integer-like). A Map at the top would let the driver's own fields (lsid,
 * $db) go first.
 */
function commandOf(o: OrderedDocument): Document {
  return Object.fromEntries(o) as Document;
}

function splitNamespace(ns: string): [string, string] {
  const dot = ns.indexOf('.');
  return dot < 0 ? [ns, ''] : [ns.slice(0, dot), ns.slice(dot + 1)];
}

function txnKey(entry: OrderedDocument): string | undefined {
  const lsid = get(entry, 'lsid');
  const txnNumber = get(entry, 'txnNumber');
  if (!isMap(lsid) || txnNumber === undefined) return undefined;
  const id = get(lsid, 'id');
  const idText =
    typeof id === 'object' && id !== null && 'toHexString' in id
      ? String((id as { toHexString(): string }).toHexString())
      : String(id);
  return `${idText}:${String(txnNumber)}`;
}

/** Applies a $v:2 update diff (mongod's doc_diff) to a document, in place. */
export function applyDiff(doc: OrderedDocument, diff: OrderedDocument): void {
  for (const [k, v] of diff) {
    if (k === 'd' && isMap(v)) for (const f of v.keys()) doc.delete(f);
    else if (k === 'u' && isMap(v)) for (const [f, x] of v) doc.set(f, x);
    else if (k === 'i' && isMap(v))
      for (const [f, x] of v) {
        doc.delete(f);
        doc.set(f, x);
      }
    else if (k.startsWith('s') && isMap(v)) {
      const field = k.slice(1);
      const current = doc.get(field);
      if (get(v, 'a') === true) {
        if (Array.isArray(current)) applyArrayDiff(current, v);
      } else if (isMap(current)) applyDiff(current, v);
    }
  }
}

function applyArrayDiff(arr: unknown[], diff: OrderedDocument): void {
  const length = get(diff, 'l');
  if (length !== undefined) {
    const n = Number(
      typeof length === 'object' && length !== null && 'valueOf' in length
        ? length.valueOf()
        : length,
    );
    if (Number.isInteger(n) && n >= 0) {
      if (n < arr.length) arr.length = n;
      else while (arr.length < n) arr.push(null);
    }
  }
  for (const [k, v] of diff) {
    if (k === 'a' || k === 'l') continue;
    const index = Number(k.slice(1));
    if (!Number.isInteger(index) || index < 0) continue;
    if (k.startsWith('u')) {
      while (arr.length < index) arr.push(null);
      arr[index] = v;
    } else if (k.startsWith('s') && isMap(v)) {
      const current = arr[index];
      if (get(v, 'a') === true) {
        if (Array.isArray(current)) applyArrayDiff(current, v);
      } else if (isMap(current)) applyDiff(current, v);
    }
  }
}

export class OplogReplayer {
  private useApplyOps: boolean | undefined;
  private readonly transactions = new Map<string, OrderedDocument[]>();
  private applied = 0;
  private stopped = false;

  constructor(
    private readonly client: MongoClient,
    private readonly settings: ReplaySettings,
    private readonly log: ToolLog,
  ) {}

  get count(): number {
    return this.applied;
  }

  private async applyOpsSupported(): Promise<boolean> {
    if (this.useApplyOps === undefined) {
      try {
        await this.client.db('admin').command({ applyOps: [] });
        this.useApplyOps = true;
      } catch (e) {
        if (!(e instanceof MongoServerError)) throw e;
        this.useApplyOps = e.code !== 59; // CommandNotFound: fall back to ordinary commands
        if (!this.useApplyOps)
          this.log.always(
            'the server has no applyOps command: replaying the oplog through ordinary commands',
          );
      }
    }
    return this.useApplyOps;
  }

  /** One entry of oplog.bson; false once --oplogLimit is reached (the rest is skipped). */
  async replay(raw: Buffer): Promise<boolean> {
    if (this.stopped) return false;
    const entry = orderedDocument(raw);
    const ts = asTimestamp(get(entry, 'ts'));
    if (
      ts !== undefined &&
      this.settings.oplogLimit !== undefined &&
      compareTimestamps(ts, this.settings.oplogLimit) >= 0
    ) {
      this.log.info(
        `timestamp ${ts.t}:${ts.i} is not below the --oplogLimit; ending oplog restoration`,
      );
      this.stopped = true;
      return false;
    }
    await this.handle(entry);
    return true;
  }

  private shouldIgnoreNamespace(ns: string): boolean {
    if (ns.startsWith('__mdb_internal')) return true;
    if (ns.startsWith('config.')) return !configCollectionsKept.has(ns.slice('config.'.length));
    return false;
  }

  private async handle(entry: OrderedDocument): Promise<void> {
    const op = String(get(entry, 'op'));
    const ns = String(get(entry, 'ns') ?? '');
    if (this.shouldIgnoreNamespace(ns) || ignoredOps.has(op)) return;
    const o = get(entry, 'o');
    if (op === 'c' && isMap(o)) {
      const name = firstKey(o);
      if (name !== undefined && ignoredCommands.has(name)) return;
      const key = txnKey(entry);
      if (
        key !== undefined &&
        (name === 'applyOps' || name === 'commitTransaction' || name === 'abortTransaction')
      )
        return this.transaction(key, name, o);
    }
    await this.nonTransaction(entry);
  }

  /** Transaction entries: partial ones are kept until the entry that commits them. */
  private async transaction(key: string, name: string, o: OrderedDocument): Promise<void> {
    const buffered = this.transactions.get(key) ?? [];
    if (name === 'abortTransaction') {
      this.transactions.delete(key);
      return;
    }
    if (name === 'applyOps') {
      const ops = get(o, 'applyOps');
      if (Array.isArray(ops)) for (const x of ops) if (isMap(x)) buffered.push(x);
      if (get(o, 'partialTxn') === true || get(o, 'prepare') === true) {
        this.transactions.set(key, buffered);
        return;
      }
    }
    this.transactions.delete(key);
    for (const x of buffered) await this.nonTransaction(x);
  }

  private async nonTransaction(entry: OrderedDocument): Promise<void> {
    this.applied++;
    if (!this.settings.preserveUUID) entry.delete('ui');
    const op = String(get(entry, 'op'));
    const o = get(entry, 'o');
    if (op === 'c') {
      if (!isMap(o) || o.size === 0)
        throw new ToolError('error applying oplog: empty object value for a command entry');
      const name = firstKey(o) as string;
      if (!knownCommands.has(name))
        throw new ToolError(`error applying oplog: unknown oplog command name ${name}`);
      if (name === 'create') o.delete('recordIdsReplicated');
      if (name === 'applyOps') {
        const ops = get(o, 'applyOps');
        if (Array.isArray(ops)) for (const x of ops) if (isMap(x)) await this.handle(x);
        return;
      }
      if (name === 'collMod') {
        o.delete('noPadding');
        o.delete('usePowerOf2Sizes');
      }
    }
    if (await this.applyOpsSupported()) {
      try {
        await this.client.db('admin').command({
          applyOps: [entry],
          bypassDocumentValidation: this.settings.bypassDocumentValidation,
        });
        return;
      } catch (e) {
        // A server whose applyOps takes CRUD entries only (SecantusDB) answers NotImplemented
        // for the rest: those go through ordinary commands.
        if (!(e instanceof MongoServerError && e.code === 238))
          throw new ToolError(
            `error applying oplog: applyOps: ${e instanceof Error ? e.message : String(e)}`,
          );
      }
    }
    try {
      await this.applyByCommands(entry);
    } catch (e) {
      if (e instanceof MongoServerError)
        throw new ToolError(
          `error applying oplog entry ${op} on ${String(get(entry, 'ns'))}: ${e.message}`,
        );
      throw e;
    }
  }

  private async applyByCommands(entry: OrderedDocument): Promise<void> {
    const op = String(get(entry, 'op'));
    const [dbName, coll] = splitNamespace(String(get(entry, 'ns') ?? ''));
    const db = this.client.db(dbName);
    const o = get(entry, 'o');
    const o2 = get(entry, 'o2');
    const bypass = this.settings.bypassDocumentValidation ? { bypassDocumentValidation: true } : {};
    if (!isMap(o))
      throw new ToolError(`error applying oplog: entry ${op} on ${dbName}.${coll} has no object`);
    switch (op) {
      case 'i':
        await db.command({
          update: coll,
          updates: [{ q: { _id: get(o, '_id') }, u: o, upsert: true }],
          ...bypass,
        });
        return;
      case 'd':
        await db.command({ delete: coll, deletes: [{ q: { _id: get(o, '_id') }, limit: 1 }] });
        return;
      case 'u':
        return this.update(
          db,
          coll,
          o,
          isMap(o2) ? o2 : new Map(),
          get(entry, 'b') === true,
          bypass,
        );
      case 'c':
        return this.command(dbName, o);
      default:
        throw new ToolError(`error applying oplog: unknown op "${op}"`);
    }
  }

  private async update(
    db: ReturnType<MongoClient['db']>,
    coll: string,
    o: OrderedDocument,
    o2: OrderedDocument,
    upsert: boolean,
    bypass: Document,
  ): Promise<void> {
    const id = get(o2, '_id');
    const diff = get(o, 'diff');
    if (get(o, '$v') !== undefined && Number(get(o, '$v')?.valueOf()) === 2 && isMap(diff)) {
      const found = await db
        .collection(coll)
        .find({ _id: id } as Document, { raw: true, limit: 1 })
        .toArray();
      const raw = found[0];
      if (!(raw instanceof Uint8Array)) return; // deleted later in the oplog
      const current = orderedDocument(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
      applyDiff(current, diff);
      await db.command({
        update: coll,
        updates: [{ q: { _id: id }, u: [{ $replaceWith: { $literal: current } }] }],
        ...bypass,
      });
      return;
    }
    const operators = firstKey(o)?.startsWith('$') === true;
    if (operators) o.delete('$v');
    await db.command({ update: coll, updates: [{ q: o2, u: o, upsert }], ...bypass });
  }

  private async command(dbName: string, o: OrderedDocument): Promise<void> {
    const name = firstKey(o) as string;
    const db = this.client.db(dbName);
    const ignore = async (work: Promise<unknown>, codes: readonly number[]): Promise<void> => {
      try {
        await work;
      } catch (e) {
        if (e instanceof MongoServerError && typeof e.code === 'number' && codes.includes(e.code))
          return;
        throw e;
      }
    };
    switch (name) {
      case 'createIndexes': {
        const spec = new Map(o);
        const coll = String(spec.get('createIndexes'));
        spec.delete('createIndexes');
        return ignore(db.command({ createIndexes: coll, indexes: [spec] }), [85, 86]);
      }
      case 'commitIndexBuild':
        return ignore(
          db.command({
            createIndexes: String(get(o, 'commitIndexBuild')),
            indexes: get(o, 'indexes'),
          }),
          [85, 86],
        );
      case 'create':
        return ignore(db.command(commandOf(o)), [48]);
      case 'drop':
        return ignore(db.command(commandOf(o)), [26]);
      case 'dropIndexes':
      case 'dropIndex':
      case 'deleteIndex':
      case 'deleteIndexes': {
        const cmd = new Map(o);
        const coll = cmd.get(name);
        cmd.delete(name);
        return ignore(db.command(commandOf(new Map([['dropIndexes', coll], ...cmd]))), [26, 27]);
      }
      case 'renameCollection':
        return ignore(this.client.db('admin').command(commandOf(o)), [26]);
      case 'dropDatabase':
      case 'collMod':
      case 'convertToCapped':
      case 'emptycapped':
        return ignore(db.command(commandOf(o)), [26]);
      case 'dbCheck':
        return;
      default:
        throw new ToolError(`error applying oplog: unknown oplog command name ${name}`);
    }
  }
}
