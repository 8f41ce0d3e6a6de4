// secantus-dump: mongodump's work over the wire protocol, to any MongoDB-compatible server.
//
// Which collections: as mongodump chooses them (every database but local and the internal
// ones; no system.* collections but admin's and system.js; in config only the sharding
// metadata mongodump keeps), narrowed by --db, --collection, --excludeCollection(s) and
// --nsInclude/--nsExclude. Each collection's metadata (options, indexes, UUID, type) goes to
// <db>/<coll>.metadata.json or the archive's prelude; its documents, as the server's BSON
// bytes, to <db>/<coll>.bson or the archive's interleaved segments. Views have metadata only.
//
// Consistency: without --oplog every collection is read at one cluster time, with
// readConcern {level: "snapshot", atClusterTime} (the time of a first snapshot read), so the
// dump is one point in time however the data changes meanwhile. A server that cannot read at
// a snapshot (a standalone mongod) is read as mongodump reads, and the log says so. With
// --oplog the collections are read as mongodump reads them and oplog.bson holds every oplog
// entry from before the first read (or the start of the oldest open transaction) to after the
// last; mongorestore --oplogReplay (or secantus-restore's) replays it to reach the point in
// time at which the dump ended.

import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { EJSON } from './bson.js';
import type { Document, Timestamp } from './bson.js';
import { MongoClient, MongoServerError } from 'mongodb';
import type { ClientSession } from 'mongodb';
import { limits } from '../limits.js';
import { archiveFormatVersion } from './archive/format.js';
import type { ArchiveCollection } from './archive/format.js';
import { ArchiveWriter } from './archive/writer.js';
import type { Connection } from './cli-options.js';
import { toolVersion } from './cli-options.js';
import { collectionFileStem } from './file-names.js';
import { metadataToJson } from './metadata.js';
import type { CollectionMetadata } from './metadata.js';
import {
  configCollectionsKept,
  plural,
  specialCollection,
  timeseriesBucketsPrefix,
} from './namespaces.js';
import type { SpecialCollection } from './namespaces.js';
import { NamespaceMatcher } from './ns-patterns.js';
import { runPool } from './pool.js';
import { rawField } from './raw-bson.js';
import {
  asTimestamp,
  compareTimestamps,
  databaseNames,
  listCollectionInfos,
  listIndexSpecs,
  serverVersion,
} from './server-catalog.js';
import type { CollectionInfo } from './server-catalog.js';
import { fileSink, streamSink } from './sinks.js';
import type { OutputSink } from './sinks.js';
import { ToolError, withContext } from './tool-error.js';
import type { ToolLog, ToolStreams } from './tool-log.js';

export interface DumpOptions {
  readonly connection: Connection;
  readonly db: string | undefined;
  readonly collection: string | undefined;
  readonly query: Document | undefined;
  /** Output directory ("dump" by default), or "-" for one collection's BSON on standard output. */
  readonly out: string | undefined;
  /** Archive path, "-" for standard output, or undefined for a directory dump. */
  readonly archive: string | undefined;
  readonly gzip: boolean;
  readonly oplog: boolean;
  readonly numParallelCollections: number;
  readonly nsInclude: readonly string[];
  readonly nsExclude: readonly string[];
  readonly excludeCollections: readonly string[];
  readonly excludeCollectionPrefixes: readonly string[];
}

interface DumpIntent extends CollectionInfo {
  readonly db: string;
  /**
   * Where the documents are read from: the collection itself, or for a time-series collection
   * its buckets collection `system.buckets.<name>` (mongodump's DataCollection: the bucket
   * documents are dumped as they are stored, under the time-series collection's intent).
   */
  readonly dataCollection: string;
  readonly special: SpecialCollection | undefined;
  metadata?: CollectionMetadata;
}

/** mongodump's option checks, with its messages. */
export function validateDumpOptions(o: DumpOptions): void {
  const bad = (m: string): never => {
    throw new ToolError(`bad option: ${m}`);
  };
  if (o.out === '-' && o.collection === undefined)
    bad('can only dump a single collection to stdout');
  if (o.db === undefined && o.collection !== undefined)
    bad('cannot dump a collection without a specified database');
  if (o.query !== undefined && o.collection === undefined)
    bad('cannot dump using a query without a specified collection');
  if (o.collection?.startsWith(timeseriesBucketsPrefix) === true)
    bad(
      'cannot specify a system.buckets collection in --collection. ' +
        'Specifying the timeseries collection will dump the system.buckets collection',
    );
  if (o.oplog && o.db !== undefined) bad('--oplog mode only supported on full dumps');
  if (o.excludeCollections.length > 0 && o.collection !== undefined)
    bad('--collection is not allowed when --excludeCollection is specified');
  if (o.excludeCollectionPrefixes.length > 0 && o.collection !== undefined)
    bad('--collection is not allowed when --excludeCollectionsWithPrefix is specified');
  if (o.excludeCollections.length > 0 && o.db === undefined)
    bad('--db is required when --excludeCollection is specified');
  if (o.excludeCollectionPrefixes.length > 0 && o.db === undefined)
    bad('--db is required when --excludeCollectionsWithPrefix is specified');
  if (o.out !== undefined && o.archive !== undefined)
    bad('--out not allowed when --archive is specified');
  if (o.out === '-' && o.gzip)
    bad("compression can't be used when dumping a single collection to standard output");
  if (o.oplog && o.out === '-') bad('--oplog cannot be used when dumping to standard output');
}

/** Parses --query / --queryFile text as Extended JSON, as mongodump does. */
export function parseQuery(text: string): Document {
  let q: unknown;
  try {
    q = EJSON.parse(text, { relaxed: false });
  } catch (e) {
    throw new ToolError(
      `error parsing query as Extended JSON: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (typeof q !== 'object' || q === null || Array.isArray(q) || '_bsontype' in q)
    throw new ToolError('error parsing query as Extended JSON: the query is not a JSON object');
  return q as Document;
}

/** Where a collection's documents go, and how its end is marked. */
interface CollectionOutput {
  readonly location: string;
  /** Documents buffered before a write. */
  readonly batchBytes: number;
  write(docs: Buffer[]): Promise<void>;
  end(): Promise<void>;
}

interface DumpTarget {
  begin(
    intents: readonly DumpIntent[],
    withOplog: boolean,
    server: string,
    parallel: number,
  ): Promise<void>;
  /** undefined: nothing to write for this collection (a view in a directory dump). */
  collection(intent: DumpIntent): Promise<CollectionOutput | undefined>;
  oplog(): Promise<CollectionOutput>;
  finish(server: string): Promise<void>;
}

class DirectoryTarget implements DumpTarget {
  constructor(
    private readonly root: string,
    private readonly gzip: boolean,
    private readonly db: string | undefined,
  ) {}

  private path(db: string, collection: string, suffix: string): string {
    return join(this.root, db, collectionFileStem(collection) + suffix + (this.gzip ? '.gz' : ''));
  }

  async begin(intents: readonly DumpIntent[]): Promise<void> {
    for (const i of intents) {
      if (i.metadata === undefined) continue;
      await mkdir(join(this.root, i.db), { recursive: true });
      const json = Buffer.from(metadataToJson(i.metadata));
      await writeFile(this.path(i.db, i.name, '.metadata.json'), this.gzip ? gzipSync(json) : json);
    }
  }

  private fileOutput(path: string): CollectionOutput {
    let sink: OutputSink | undefined;
    return {
      location: path,
      batchBytes: 1024 * 1024,
      write: async (docs) => {
        sink ??= fileSink(path, this.gzip);
        await sink.write(docs.length === 1 ? (docs[0] as Buffer) : Buffer.concat(docs));
      },
      end: async () => {
        sink ??= fileSink(path, this.gzip);
        await sink.end();
      },
    };
  }

  async collection(intent: DumpIntent): Promise<CollectionOutput | undefined> {
    if (intent.type === 'view') return undefined;
    await mkdir(join(this.root, intent.db), { recursive: true });
    return this.fileOutput(this.path(intent.db, intent.dataCollection, '.bson'));
  }

  async oplog(): Promise<CollectionOutput> {
    await mkdir(this.root, { recursive: true });
    // mongodump names it oplog.bson even when its content is gzipped.
    return this.fileOutput(join(this.root, 'oplog.bson'));
  }

  async finish(server: string): Promise<void> {
    const dir = this.db === undefined ? this.root : join(this.root, this.db);
    const exists = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!exists) return; // nothing was dumped, as mongodump
    const json = Buffer.from(JSON.stringify({ ServerVersion: server, ToolVersion: toolVersion }));
    await writeFile(
      join(dir, `prelude.json${this.gzip ? '.gz' : ''}`),
      this.gzip ? gzipSync(json) : json,
    );
  }
}

class ArchiveTarget implements DumpTarget {
  private readonly writer: ArchiveWriter;

  constructor(
    private readonly sink: OutputSink,
    private readonly name: string,
  ) {
    this.writer = new ArchiveWriter(sink);
  }

  async begin(
    intents: readonly DumpIntent[],
    withOplog: boolean,
    server: string,
    parallel: number,
  ): Promise<void> {
    // As mongodump's prelude: ordinary collections, then the oplog, then users, roles, version.
    const entry = (i: DumpIntent): ArchiveCollection => ({
      db: i.db,
      collection: i.name,
      metadata: i.metadata === undefined ? '' : metadataToJson(i.metadata),
      size: 0,
      type: i.type,
    });
    const entries = intents.filter((i) => i.special === undefined).map(entry);
    if (withOplog) entries.push({ db: '', collection: 'oplog', metadata: '', size: 0, type: '' });
    for (const s of ['users', 'roles', 'version'] as const)
      for (const i of intents) if (i.special === s) entries.push(entry(i));
    await this.writer.writePrelude(
      {
        concurrentCollections: parallel,
        version: archiveFormatVersion,
        serverVersion: server,
        toolVersion: `secantus-dump ${toolVersion}`,
      },
      entries,
    );
  }

  private output(db: string, collection: string): CollectionOutput {
    return {
      location: this.name,
      batchBytes: limits.dumpArchiveSegmentBytesMax,
      write: (docs) => this.writer.writeSegment(db, collection, docs),
      end: async () => {
        await this.writer.writeSegment(db, collection, []);
        await this.writer.writeEof(db, collection);
      },
    };
  }

  async collection(intent: DumpIntent): Promise<CollectionOutput> {
    // A time-series collection's prelude entry names it; its segments name its buckets.
    return this.output(intent.db, intent.dataCollection);
  }

  async oplog(): Promise<CollectionOutput> {
    return this.output('', 'oplog');
  }

  async finish(): Promise<void> {
    await this.writer.drain();
    await this.sink.end();
  }
}

class StdoutTarget implements DumpTarget {
  constructor(private readonly sink: OutputSink) {}
  async begin(): Promise<void> {}
  async collection(): Promise<CollectionOutput> {
    return {
      location: 'stdout',
      batchBytes: 1024 * 1024,
      write: (docs) => this.sink.write(Buffer.concat(docs)),
      end: () => this.sink.end(),
    };
  }
  async oplog(): Promise<CollectionOutput> {
    throw new ToolError('--oplog cannot be used when dumping to standard output');
  }
  async finish(): Promise<void> {}
}

async function archiveDestination(path: string, gzip: boolean): Promise<string> {
  const isDir = await stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isDir ? join(path, gzip ? 'archive.gz' : 'archive') : path;
}

function describeTimestamp(ts: Timestamp): string {
  return `Timestamp(${ts.t}, ${ts.i})`;
}

export class Dump {
  private readonly client: MongoClient;
  private snapshot: Timestamp | undefined;
  private totalDocuments = 0;

  constructor(
    private readonly o: DumpOptions,
    private readonly log: ToolLog,
    private readonly io: ToolStreams,
  ) {
    this.client = new MongoClient(o.connection.uri, o.connection.clientOptions);
  }

  async run(): Promise<void> {
    validateDumpOptions(this.o);
    try {
      await this.client.connect().catch((e: unknown) => {
        throw withContext(e, "can't create session: could not connect to server");
      });
      await this.dump();
    } finally {
      this.log.stopBars();
      await this.client.close();
    }
  }

  private async dump(): Promise<void> {
    const o = this.o;
    if (o.db !== undefined && o.collection !== undefined) {
      const found = await listCollectionInfos(this.client.db(o.db), o.collection);
      if (found.length === 0) {
        this.log.always(`namespace with DB ${o.db} and collection ${o.collection} does not exist`);
        return;
      }
    }
    const server = await serverVersion(this.client);
    let oplogStart: Timestamp | undefined;
    if (o.oplog) {
      await this.checkOplogExists();
      this.log.info('getting most recent oplog timestamp');
      oplogStart = await this.oplogCopyStart();
    }
    const intents = await this.intents();
    for (const i of intents) i.metadata = await this.metadataOf(i);

    if (!o.oplog) await this.establishSnapshot(intents);

    const target = await this.target();
    await target.begin(intents, o.oplog, server, o.numParallelCollections);

    // Users, roles and the auth version first (in an archive, mongorestore needs them before
    // the first ordinary collection), then the collections, several at a time.
    for (const i of intents) if (i.special !== undefined) await this.dumpIntent(i, target);
    const ordinary = intents.filter((i) => i.special === undefined);
    const jobs = Math.min(o.numParallelCollections, Math.max(ordinary.length, 1));
    this.log.info(`dumping up to ${jobs} collections in parallel`);
    await runPool(ordinary, jobs, (i) => this.dumpIntent(i, target));

    if (oplogStart !== undefined) await this.dumpOplog(oplogStart, target);
    await target.finish(server);
  }

  private async target(): Promise<DumpTarget> {
    const o = this.o;
    if (o.archive !== undefined) {
      if (o.archive === '-')
        return new ArchiveTarget(
          streamSink(this.io.stdout, o.gzip, 'standard output'),
          'archive on stdout',
        );
      const path = await archiveDestination(o.archive, o.gzip);
      return new ArchiveTarget(fileSink(path, o.gzip), `archive '${path}'`);
    }
    if (o.out === '-')
      return new StdoutTarget(streamSink(this.io.stdout, false, 'standard output'));
    return new DirectoryTarget(o.out ?? 'dump', o.gzip, o.db);
  }

  /** mongodump's choice of collections (prepare.go), plus --nsInclude / --nsExclude. */
  private async intents(): Promise<DumpIntent[]> {
    const o = this.o;
    const out: DumpIntent[] = [];
    const include = new NamespaceMatcher(o.nsInclude);
    const exclude = new NamespaceMatcher(o.nsExclude);
    const keep = (db: string, name: string): boolean =>
      (include.empty || include.has(`${db}.${name}`)) && !exclude.has(`${db}.${name}`);
    const add = (db: string, c: CollectionInfo): void => {
      const dataCollection = c.type === 'timeseries' ? timeseriesBucketsPrefix + c.name : c.name;
      out.push({ ...c, db, dataCollection, special: specialCollection(db, c.name) });
    };
    if (o.db !== undefined && o.collection !== undefined) {
      for (const c of await listCollectionInfos(this.client.db(o.db), o.collection)) add(o.db, c);
      return out;
    }
    const dbs =
      o.db !== undefined
        ? [o.db]
        : (await databaseNames(this.client)).filter((d) => {
            if (d.startsWith('__mdb_internal')) {
              this.log.always(`excluding MongoDB internal database ${d}`);
              return false;
            }
            return d !== 'local';
          });
    for (const db of dbs) {
      for (const c of await listCollectionInfos(this.client.db(db))) {
        if (this.skipSystem(db, c.name)) continue;
        if (o.excludeCollections.includes(c.name)) continue;
        if (o.excludeCollectionPrefixes.some((p) => c.name.startsWith(p))) continue;
        if (!keep(db, c.name)) continue;
        add(db, c);
      }
    }
    return out;
  }

  private skipSystem(db: string, name: string): boolean {
    if (db === 'admin') {
      if (name === 'system.keys') return true;
    } else if (db === 'config') {
      if (this.o.db !== 'config' && !configCollectionsKept.has(name)) return true;
    } else if (name !== 'system.js' && name.startsWith('system.')) return true;
    return name.includes('$') && !name.includes('.oplog.$');
  }

  private async metadataOf(i: DumpIntent): Promise<CollectionMetadata> {
    const indexes = i.type === 'view' ? [] : await listIndexSpecs(this.client.db(i.db), i.name);
    return { options: i.options, indexes, uuid: i.uuid, collectionName: i.name, type: i.type };
  }

  /** One snapshot for every collection: the cluster time of a first snapshot read. */
  private async establishSnapshot(intents: readonly DumpIntent[]): Promise<void> {
    const first = intents.find((i) => i.type !== 'view');
    if (first === undefined) return;
    try {
      const r = await this.client.db(first.db).command({
        find: first.dataCollection,
        filter: {},
        limit: 1,
        singleBatch: true,
        readConcern: { level: 'snapshot' },
      });
      const cursor = r['cursor'] as Document | undefined;
      this.snapshot = asTimestamp(cursor?.['atClusterTime'] ?? r['atClusterTime']);
    } catch (e) {
      if (!(e instanceof MongoServerError)) throw e;
      this.log.always(
        `the server cannot read at a snapshot (${e.message}); collections are read one after another, ` +
          'so the dump is not one point in time (use --oplog on a replica set for that)',
      );
      return;
    }
    if (this.snapshot === undefined) {
      this.log.always(
        'the server did not report a snapshot time; the dump is not one point in time',
      );
      return;
    }
    this.log.always(`reading every collection at cluster time ${describeTimestamp(this.snapshot)}`);
  }

  private async estimatedCount(i: DumpIntent): Promise<number> {
    if (this.o.query !== undefined) return 0;
    try {
      const r = await this.client.db(i.db).command({ count: i.dataCollection });
      return Number(r['n'] ?? 0);
    } catch {
      return 0;
    }
  }

  private async dumpIntent(i: DumpIntent, target: DumpTarget): Promise<void> {
    const ns = `${i.db}.${i.dataCollection}`;
    const output = await target.collection(i);
    if (output === undefined) return;
    if (i.type === 'view') {
      // An archive still gets the view's (empty) namespace: mongorestore waits for it.
      await output.end();
      return;
    }
    this.log.always(`writing ${ns} to ${output.location}`);
    const filter =
      this.o.query !== undefined && i.type === 'timeseries'
        ? bucketsQuery(this.o.query, i)
        : this.o.query;
    const command: Document = {
      find: i.dataCollection,
      filter: filter ?? {},
      batchSize: limits.dumpCursorBatchDocs,
    };
    if (this.o.query === undefined) command['hint'] = { $natural: 1 };
    if (this.snapshot !== undefined)
      command['readConcern'] = { level: 'snapshot', atClusterTime: this.snapshot };
    const total = await this.estimatedCount(i);
    const n = await this.copy(this.client.db(i.db), command, output, ns, total);
    this.log.always(`done dumping ${ns} (${plural(n, 'document', 'documents')})`);
  }

  /** Streams a find's raw documents to an output; returns how many. */
  private async copy(
    db: ReturnType<MongoClient['db']>,
    command: Document,
    output: CollectionOutput,
    name: string,
    total: number,
    check?: (doc: Buffer) => void,
  ): Promise<number> {
    const session: ClientSession = this.client.startSession({ causalConsistency: false });
    const bar = this.log.bar(name, total);
    let n = 0;
    try {
      const cursor = db.runCursorCommand(command, { raw: true, session });
      cursor.setBatchSize(limits.dumpCursorBatchDocs);
      let batch: Buffer[] = [];
      let bytes = 0;
      try {
        for await (const raw of cursor) {
          if (!(raw instanceof Uint8Array))
            throw new ToolError('the server sent a decoded document');
          const doc = Buffer.isBuffer(raw)
            ? raw
            : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
          check?.(doc);
          batch.push(doc);
          bytes += doc.length;
          n++;
          if (bytes >= output.batchBytes) {
            await output.write(batch);
            batch = [];
            bytes = 0;
            bar.update(n);
          }
        }
      } catch (e) {
        await cursor.close().catch(() => undefined);
        if (e instanceof MongoServerError && e.code === 239)
          throw new ToolError(
            `error reading collection ${name}: ${e.message} (the dump took longer than the server keeps ` +
              'snapshot history; dump fewer collections at a time or use --oplog)',
          );
        throw withContext(e, `error reading collection ${name}`);
      }
      if (batch.length > 0) await output.write(batch);
      await output.end();
      bar.update(n);
    } finally {
      bar.stop();
      await session.endSession();
    }
    this.totalDocuments += n;
    return n;
  }

  private async checkOplogExists(): Promise<void> {
    const hello = await this.client.db('admin').command({ hello: 1 });
    if (!Array.isArray(hello['hosts']))
      throw new ToolError(
        'error finding oplog: --oplog needs a replica set member (this server has no oplog)',
      );
  }

  private async newestOplogTime(): Promise<Timestamp> {
    const e = await this.client
      .db('local')
      .collection('oplog.rs')
      .findOne({}, { sort: { $natural: -1 }, projection: { ts: 1 } });
    const ts = asTimestamp(e?.['ts']);
    if (ts === undefined)
      throw new ToolError('error getting recent oplog entry: the oplog is empty');
    return ts;
  }

  private async oldestOplogTime(): Promise<Timestamp> {
    const e = await this.client
      .db('local')
      .collection('oplog.rs')
      .findOne({}, { sort: { $natural: 1 }, projection: { ts: 1 } });
    const ts = asTimestamp(e?.['ts']);
    if (ts === undefined) throw new ToolError('unable to read entry from oplog');
    return ts;
  }

  /** mongodump's start: the oldest open transaction's first entry, else the newest entry. */
  private async oplogCopyStart(): Promise<Timestamp> {
    try {
      const open = await this.client
        .db('config')
        .collection('transactions', { readConcern: { level: 'local' } })
        .findOne({ state: { $in: ['prepared', 'inProgress'] } }, { sort: { startOpTime: 1 } });
      const start = asTimestamp((open?.['startOpTime'] as Document | undefined)?.['ts']);
      if (start !== undefined) return start;
    } catch (e) {
      if (!(e instanceof MongoServerError)) throw e;
    }
    return this.newestOplogTime();
  }

  private async dumpOplog(start: Timestamp, target: DumpTarget): Promise<void> {
    const end = await this.newestOplogTime();
    const overflow = async (): Promise<void> => {
      if (compareTimestamps(await this.oldestOplogTime(), start) > 0)
        throw new ToolError(
          'oplog overflow: mongodump was unable to capture all new oplog entries during execution',
        );
    };
    await overflow();
    const output = await target.oplog();
    this.log.always(`writing captured oplog to ${output.location}`);
    const command = {
      find: 'oplog.rs',
      filter: { ts: { $gte: start, $lte: end } },
      batchSize: limits.dumpCursorBatchDocs,
    };
    const n = await this.copy(
      this.client.db('local'),
      command,
      output,
      'oplog',
      0,
      oplogEntryCheck,
    );
    this.log.always(`\tdumped ${plural(n, 'oplog entry', 'oplog entries')}`);
    await overflow();
  }
}

/**
 * --query on a time-series collection, as mongodump takes it: only predicates on the meta
 * field (top-level keys `<metaField>` or `<metaField>.<path>`), renamed to the buckets' `meta`
 * so they select whole buckets; anything else is refused.
 */
function bucketsQuery(query: Document, i: DumpIntent): Document {
  const ns = `${i.db}.${i.name}`;
  const ts = i.options['timeseries'];
  const metaField =
    typeof ts === 'object' && ts !== null ? (ts as Document)['metaField'] : undefined;
  if (typeof metaField !== 'string')
    throw new ToolError(`could not determine the metaField for ${ns}`);
  const out: Document = {};
  for (const [key, value] of Object.entries(query)) {
    const dot = key.indexOf('.');
    const head = dot < 0 ? key : key.slice(0, dot);
    if (head !== metaField)
      throw new ToolError(
        `cannot process query ${EJSON.stringify(query)} for timeseries collection ${ns}. ` +
          'mongodump only processes queries on metadata fields for timeseries collections.',
      );
    out[dot < 0 ? 'meta' : `meta${key.slice(dot)}`] = value;
  }
  return out;
}

/** mongodump's refusals: oplog entries a replay could not reproduce. */
function oplogEntryCheck(doc: Buffer): void {
  const ns = rawField(doc, 'ns');
  if (ns === 'admin.system.version')
    throw new ToolError('cannot dump with oplog if admin.system.version is modified');
  const o = rawField(doc, 'o');
  if (typeof o === 'object' && o !== null) {
    if ('renameCollection' in o) throw new ToolError('cannot dump with oplog while renames occur');
    if ('importCollection' in o)
      throw new ToolError('cannot dump with oplog while importCollection occurs');
  }
}

export async function runDump(o: DumpOptions, log: ToolLog, io: ToolStreams): Promise<void> {
  await new Dump(o, log, io).run();
}
