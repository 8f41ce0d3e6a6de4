// secantus-restore: mongorestore's work over the wire protocol, to any MongoDB-compatible server,
// from a dump directory, one .bson file, standard input, or an archive (file or standard input,
// gzip-compressed or not) as mongodump or secantus-dump writes them.
//
// In mongorestore's order: everything is planned first (which namespaces, where to, their
// metadata parsed), so bad metadata or options fail before anything is written; then each
// collection is created with its options (validator, collation, view definition, ...) and its
// documents inserted (continuing through duplicate keys and validation failures unless
// --stopOnError); then users and roles (through _mergeAuthzCollections, as mongorestore), the
// oplog (--oplogReplay), and last the indexes. An archive is read once, front to back, its
// namespaces restored as their documents come; its CRCs are checked at each namespace's end.
//
// A failure in the middle (a truncated or corrupt input, a CRC mismatch, a server error)
// stops the restore with a non-zero exit, as mongorestore does; documents already inserted
// stay, and the failure message names the collections left incomplete.

import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { deserialize, UUID } from './bson.js';
import type { Document, Timestamp } from './bson.js';
import { MongoClient, MongoServerError } from 'mongodb';
import { dataCollectionOf } from './archive/format.js';
import { readArchiveBody, readPrelude } from './archive/reader.js';
import type { ArchivePrelude } from './archive/reader.js';
import { ByteReader } from './byte-reader.js';
import type { Connection } from './cli-options.js';
import { isTruncatedStem, queryUnescape } from './file-names.js';
import { Inserter } from './inserter.js';
import type { InsertSettings } from './inserter.js';
import { metadataFromJson } from './metadata.js';
import type { CollectionMetadata } from './metadata.js';
import { plural, specialCollection, timeseriesBucketsPrefix } from './namespaces.js';
import type { SpecialCollection } from './namespaces.js';
import { escapePattern, NamespaceMatcher, NamespaceRenamer } from './ns-patterns.js';
import { OplogReplayer } from './oplog-replay.js';
import { runPool, Semaphore } from './pool.js';
import { serverVersion } from './server-catalog.js';
import { fileSource, streamSource } from './sinks.js';
import { ToolError, withContext } from './tool-error.js';
import type { ToolLog, ToolStreams } from './tool-log.js';

export interface RestoreOptions {
  readonly connection: Connection;
  readonly db: string | undefined;
  readonly collection: string | undefined;
  /** A dump directory, a database directory (with --db), a .bson file, or "-" for standard input. */
  readonly target: string | undefined;
  /** An archive file, "-" for standard input, or undefined. */
  readonly archive: string | undefined;
  readonly gzip: boolean;
  readonly drop: boolean;
  readonly dryRun: boolean;
  readonly noIndexRestore: boolean;
  readonly noOptionsRestore: boolean;
  readonly keepIndexVersion: boolean;
  readonly oplogReplay: boolean;
  readonly oplogLimit: Timestamp | undefined;
  readonly numParallelCollections: number;
  readonly nsInclude: readonly string[];
  readonly nsExclude: readonly string[];
  readonly nsFrom: readonly string[];
  readonly nsTo: readonly string[];
  readonly excludeCollections: readonly string[];
  readonly excludeCollectionPrefixes: readonly string[];
  readonly preserveUUID: boolean;
  readonly stopOnError: boolean;
  readonly bypassDocumentValidation: boolean;
  readonly maintainInsertionOrder: boolean;
  readonly writeConcern: Document | undefined;
}

type DataSource =
  | { readonly kind: 'file'; readonly path: string; readonly size: number }
  | { readonly kind: 'stdin' }
  | { readonly kind: 'archive' };

interface Intent {
  readonly source: string;
  readonly db: string;
  readonly collection: string;
  data?: DataSource;
  metadataPath?: string;
  metadata?: CollectionMetadata;
  /** Left out by --nsInclude/--nsExclude: its archive documents are read past. */
  muted?: boolean;
  /**
   * A time-series collection: created from its metadata's options, its documents (whole
   * buckets) inserted into `system.buckets.<collection>`, as mongorestore does.
   */
  timeseries?: boolean;
}

/** Where an intent's documents go: the collection, or a time-series collection's buckets. */
function dataCollection(i: Intent): string {
  return i.timeseries === true ? timeseriesBucketsPrefix + i.collection : i.collection;
}

export interface RestoreResult {
  successes: number;
  failures: number;
}

function splitNamespace(ns: string): [string, string] {
  const dot = ns.indexOf('.');
  return dot < 0 ? [ns, ''] : [ns.slice(0, dot), ns.slice(dot + 1)];
}

/** mongorestore's checks of a database name (util.ValidateDBName). */
function validateDbName(name: string): void {
  if (name === '' || name.length >= 64 || /[/\\. "$*<>:|?\0]/.test(name))
    throw new ToolError(`invalid database name ${JSON.stringify(name)}`);
}

/** mongorestore's option checks, with its messages. */
export function validateRestoreOptions(o: RestoreOptions): void {
  const bad = (m: string): never => {
    throw new ToolError(m);
  };
  if (o.db === undefined && o.collection !== undefined)
    bad('cannot restore a collection without a specified database');
  if (o.db !== undefined) validateDbName(o.db);
  if (o.oplogReplay) {
    if (o.nsInclude.length > 0 || o.db !== undefined)
      bad('cannot use --oplogReplay with includes specified');
    if (
      o.nsExclude.length > 0 ||
      o.excludeCollections.length > 0 ||
      o.excludeCollectionPrefixes.length > 0
    )
      bad('cannot use --oplogReplay with excludes specified');
    if (o.nsFrom.length > 0) bad('cannot use --oplogReplay with namespace renames specified');
  }
  if (o.oplogLimit !== undefined && !o.oplogReplay)
    bad('cannot use --oplogLimit without --oplogReplay enabled');
  if (
    (o.excludeCollections.length > 0 || o.excludeCollectionPrefixes.length > 0) &&
    o.collection !== undefined
  )
    bad('--collection is not allowed when --excludeCollection is specified');
  if (o.nsFrom.length !== o.nsTo.length)
    bad('--nsFrom and --nsTo arguments must be specified an equal number of times');
  if (o.preserveUUID && !o.drop) bad('cannot specify --preserveUUID without --drop');
  if (o.target === '-') {
    if (o.archive !== undefined) bad('cannot restore from "-" when --archive is specified');
    if (o.collection === undefined) bad('cannot restore from stdin without a specified collection');
  }
  if (o.archive !== undefined && o.target !== undefined && o.target !== '-')
    bad('cannot specify both --archive and a directory or file to restore');
}

interface FileInfo {
  readonly collection: string;
  readonly kind: 'bson' | 'metadata';
}

export class Restore {
  private readonly client: MongoClient;
  private readonly include: NamespaceMatcher;
  private readonly exclude: NamespaceMatcher;
  private readonly renamer: NamespaceRenamer;
  private readonly intents = new Map<string, Intent>();
  /** An archive's data namespaces (a time-series collection's buckets) to their intents' keys. */
  private readonly archiveData = new Map<string, string>();
  private oplog: DataSource | undefined;
  private readonly specialData = new Map<SpecialCollection, Buffer[]>();
  private readonly known = new Map<string, Set<string>>();
  private readonly incomplete = new Set<string>();
  private readonly restored: Intent[] = [];
  private readonly result: RestoreResult = { successes: 0, failures: 0 };
  private slots: Semaphore;
  private archivePrelude: ArchivePrelude | undefined;
  private archiveReader: ByteReader | undefined;

  constructor(
    private readonly o: RestoreOptions,
    private readonly log: ToolLog,
    private readonly io: ToolStreams,
  ) {
    validateRestoreOptions(o);
    this.client = new MongoClient(o.connection.uri, o.connection.clientOptions);
    const includes = [...o.nsInclude];
    if (o.db !== undefined && o.collection !== undefined)
      includes.push(`${escapePattern(o.db)}.${o.collection}`);
    else if (o.db !== undefined) includes.push(`${escapePattern(o.db)}.*`);
    this.include = new NamespaceMatcher(includes.length === 0 ? ['*'] : includes);
    this.exclude = new NamespaceMatcher([
      ...o.nsExclude,
      ...o.excludeCollections.map((c) => `*.${escapePattern(c)}`),
      ...o.excludeCollectionPrefixes.map((p) => `*.${escapePattern(p)}*`),
    ]);
    this.renamer = new NamespaceRenamer(o.nsFrom, o.nsTo);
    this.slots = new Semaphore(o.numParallelCollections);
  }

  private get settings(): InsertSettings {
    return {
      ordered: this.o.maintainInsertionOrder,
      stopOnError: this.o.stopOnError || this.o.maintainInsertionOrder,
      bypassDocumentValidation: this.o.bypassDocumentValidation,
      writeConcern: this.o.writeConcern,
    };
  }

  async run(): Promise<RestoreResult> {
    try {
      await this.client.connect().catch((e: unknown) => {
        throw withContext(e, 'error connecting to host');
      });
      const version = await serverVersion(this.client);
      this.log.debug(`the server reports version ${version}`);
      await this.restore();
      return this.result;
    } catch (e) {
      if (this.incomplete.size > 0 && e instanceof ToolError)
        throw new ToolError(
          `${e.message} (restored incompletely: ${[...this.incomplete].join(', ')})`,
        );
      throw e;
    } finally {
      this.log.stopBars();
      await this.client.close();
    }
  }

  get counts(): RestoreResult {
    return this.result;
  }

  // ---- planning ---------------------------------------------------------------------------

  private selected(sourceNs: string): boolean {
    return this.include.has(sourceNs) && !this.exclude.has(sourceNs);
  }

  private intentFor(sourceNs: string): Intent {
    let intent = this.intents.get(sourceNs);
    if (intent === undefined) {
      const [db, collection] = splitNamespace(this.renamer.rename(sourceNs));
      intent = { source: sourceNs, db, collection };
      this.intents.set(sourceNs, intent);
    }
    return intent;
  }

  private async restore(): Promise<void> {
    if (this.o.archive !== undefined) await this.planArchive();
    else await this.planFiles();
    if (this.o.oplogReplay && this.oplog === undefined)
      throw new ToolError('no oplog file to replay; make sure you run mongodump with --oplog');
    this.checkDestinations();
    for (const i of this.intents.values()) {
      if (i.muted === true) continue;
      if (i.metadataPath !== undefined && i.metadata === undefined)
        i.metadata = await this.readMetadata(i.metadataPath);
      // As mongorestore: options holding `timeseries` make a time-series collection.
      if (i.metadata?.options['timeseries'] !== undefined) i.timeseries = true;
    }
    await this.timeseriesChecks();
    if (this.o.dryRun) {
      if (this.o.archive !== undefined) await this.verifyArchive();
      this.log.always('dry run completed');
      return;
    }
    if (this.o.archive !== undefined) await this.restoreArchive();
    else await this.restoreFiles();
  }

  /** mongorestore's preFlightChecks for time-series collections, before anything is written. */
  private async timeseriesChecks(): Promise<void> {
    for (const i of this.intents.values()) {
      if (i.muted === true || i.timeseries !== true) continue;
      const ns = `${i.db}.${i.collection}`;
      if (!this.o.drop) {
        if (await this.collectionExists(i.db, i.collection))
          throw new ToolError(
            `timeseries collection ${ns} already exists on the destination. ` +
              'You must remove this collection from the destination or use --drop',
          );
        if (await this.collectionExists(i.db, dataCollection(i)))
          throw new ToolError(
            `system.buckets collection ${i.db}.${dataCollection(i)} already exists on the destination. ` +
              `You must remove this collection from the destination in order to restore ${ns}`,
          );
      }
      if (this.o.noOptionsRestore)
        throw new ToolError(
          'cannot specify --noOptionsRestore when restoring timeseries collections',
        );
      if (i.metadata === undefined)
        throw new ToolError(`could not find the timeseries collection metadata file for ${ns}`);
    }
  }

  private checkDestinations(): void {
    const seen = new Map<string, string>();
    let conflict = false;
    for (const i of this.intents.values()) {
      if (i.muted === true) continue;
      const dest = `${i.db}.${i.collection}`;
      const other = seen.get(dest);
      if (other !== undefined) {
        this.log.always(
          `namespace conflict: ${other} and ${i.source} would both be restored to ${dest}`,
        );
        conflict = true;
      }
      seen.set(dest, i.source);
    }
    if (conflict) throw new ToolError('cannot restore with conflicting namespace destinations');
  }

  private async readMetadata(path: string): Promise<CollectionMetadata | undefined> {
    let text: string;
    try {
      const bytes = await readFile(path);
      text = (this.o.gzip ? gunzipSync(bytes) : bytes).toString('utf8');
    } catch (e) {
      throw new ToolError(
        `error reading metadata from ${path}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    this.log.info(`reading metadata from ${path}`);
    return metadataFromJson(text, path);
  }

  /** The collection name and kind of a dump file, as mongorestore reads file names. */
  private async fileInfo(path: string): Promise<FileInfo | undefined> {
    const name = basename(path);
    let stem: string | undefined;
    let kind: FileInfo['kind'] | undefined;
    const cut = (suffix: string, k: FileInfo['kind']): boolean => {
      if (!name.endsWith(suffix)) return false;
      stem = name.slice(0, -suffix.length);
      kind = k;
      return true;
    };
    if (!cut('.bin', 'bson')) {
      if (this.o.gzip) {
        if (!cut('.metadata.json.gz', 'metadata')) cut('.bson.gz', 'bson');
      } else if (!cut('.metadata.json', 'metadata')) cut('.bson', 'bson');
    }
    if (stem === undefined || kind === undefined) return undefined;
    if (isTruncatedStem(stem)) {
      const metadataPath =
        kind === 'metadata'
          ? path
          : join(dirname(path), `${stem}.metadata.json${this.o.gzip ? '.gz' : ''}`);
      const m = await this.readMetadata(metadataPath);
      if (m === undefined || m.collectionName === '')
        throw new ToolError(
          `no collection name found in metadata file with truncated file name ${metadataPath}`,
        );
      return { collection: m.collectionName, kind };
    }
    return { collection: queryUnescape(stem), kind };
  }

  private async planFiles(): Promise<void> {
    const o = this.o;
    if (o.target === '-') {
      const intent = this.intentFor(`${o.db as string}.${o.collection as string}`);
      intent.data = { kind: 'stdin' };
      this.log.always('setting up a collection to be read from standard input');
      return;
    }
    let target = o.target;
    if (target === undefined) {
      target = 'dump';
      this.log.always("using default 'dump' directory");
    }
    const st = await stat(target).catch(() => undefined);
    if (st === undefined)
      throw new ToolError(`mongorestore target '${target}' invalid: no such file or directory`);
    if (!st.isDirectory()) return this.planOneFile(target, st.size);
    if (o.db !== undefined && o.collection !== undefined)
      throw new ToolError(`file ${target} is a directory, not a bson file`);
    if (o.db !== undefined) {
      this.log.always(`building a list of collections to restore from ${target} dir`);
      await this.planDatabase(o.db, target);
      return;
    }
    this.log.always('preparing collections to restore from');
    for (const entry of await readdir(target, { withFileTypes: true })) {
      const path = join(target, entry.name);
      if (entry.isDirectory()) {
        validateDbName(entry.name);
        await this.planDatabase(entry.name, path);
      } else if (entry.name === 'oplog.bson') {
        if (o.oplogReplay) {
          this.log.info('found oplog.bson file to replay');
          this.oplog = { kind: 'file', path, size: (await stat(path)).size };
        }
      } else if (entry.name !== 'prelude.json' && entry.name !== 'prelude.json.gz') {
        this.log.always(`don't know what to do with file ${path}, skipping...`);
      }
    }
  }

  /** A single .bson file: --db/--collection, or the file's directory and name. */
  private async planOneFile(path: string, size: number): Promise<void> {
    const info = await this.fileInfo(path);
    if (info?.kind !== 'bson')
      throw new ToolError(`file ${path} does not have .bson${this.o.gzip ? '.gz' : ''} extension`);
    let db = this.o.db;
    if (db === undefined) {
      db = basename(dirname(path));
      if (db === '.' || db === '..' || db === '') db = 'test';
    }
    // A buckets file restores the time-series collection it belongs to (mongorestore's rule).
    const buckets = info.collection.startsWith(timeseriesBucketsPrefix);
    const logical = buckets
      ? info.collection.slice(timeseriesBucketsPrefix.length)
      : info.collection;
    const collection = this.o.collection ?? logical;
    const intent = this.intentFor(`${db}.${collection}`);
    intent.data = { kind: 'file', path, size };
    if (buckets) intent.timeseries = true;
    const stem = basename(path).replace(/\.bson(\.gz)?$/, '');
    const metadataName =
      (buckets ? stem.slice(timeseriesBucketsPrefix.length) : stem) +
      `.metadata.json${this.o.gzip ? '.gz' : ''}`;
    const metadataPath = join(dirname(path), metadataName);
    if (
      await stat(metadataPath).then(
        () => true,
        () => false,
      )
    )
      intent.metadataPath = metadataPath;
    else this.log.info('restoring collection without metadata');
  }

  private async planDatabase(db: string, dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    const hasMetadata = entries.some((e) => e.name.endsWith('.metadata.json'));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        this.log.always(
          `don't know what to do with subdirectory ${join(basename(dir), entry.name)}, skipping...`,
        );
        continue;
      }
      const info = await this.fileInfo(path);
      if (info === undefined) {
        if (entry.name !== 'prelude.json' && entry.name !== 'prelude.json.gz')
          this.log.always(`don't know what to do with file ${path}, skipping...`);
        continue;
      }
      // A time-series collection's buckets file belongs to the collection's intent.
      const buckets = info.kind === 'bson' && info.collection.startsWith(timeseriesBucketsPrefix);
      const logical = buckets
        ? info.collection.slice(timeseriesBucketsPrefix.length)
        : info.collection;
      const source = `${db}.${logical}`;
      if (info.collection === 'system.profile') continue;
      if (info.kind === 'bson') {
        if (this.o.db === undefined && info.collection.startsWith('$')) continue;
        if (info.collection === 'system.indexes' && hasMetadata) continue;
      }
      if (!this.selected(source)) {
        this.log.debug(`skipping restoring ${source}, it is not included or is excluded`);
        continue;
      }
      const intent = this.intentFor(source);
      if (info.kind === 'bson') intent.data = { kind: 'file', path, size: (await stat(path)).size };
      else intent.metadataPath = path;
      if (buckets) intent.timeseries = true;
      this.log.info(
        `found collection ${info.kind === 'bson' ? 'bson' : 'metadata'} for ${source} to restore to ${intent.db}.${intent.collection}`,
      );
    }
  }

  private async openArchive(): Promise<ByteReader> {
    const o = this.o;
    const path = o.archive as string;
    if (path === '-')
      return new ByteReader(streamSource(this.io.stdin as never, o.gzip), 'archive');
    const st = await stat(path).catch(() => undefined);
    if (st === undefined) throw new ToolError(`open ${path}: no such file or directory`);
    const file = st.isDirectory() ? join(path, o.gzip ? 'archive.gz' : 'archive') : path;
    return new ByteReader(fileSource(file, o.gzip), 'archive');
  }

  private async planArchive(): Promise<void> {
    const reader = await this.openArchive();
    let prelude: ArchivePrelude;
    try {
      prelude = await readPrelude(reader);
    } catch (e) {
      throw withContext(e, 'reading the archive');
    }
    this.archiveReader = reader;
    this.archivePrelude = prelude;
    this.log.debug(
      `archive format version ${prelude.header.version}, server version ${prelude.header.serverVersion}, tool version ${prelude.header.toolVersion}`,
    );
    if (prelude.header.concurrentCollections > this.o.numParallelCollections) {
      this.slots = new Semaphore(prelude.header.concurrentCollections);
      this.log.always(
        `setting number of parallel collections to number of parallel collections in archive (${prelude.header.concurrentCollections})`,
      );
    }
    this.log.always('preparing collections to restore from');
    for (const c of prelude.collections) {
      if (c.db === '' && c.collection === 'oplog') {
        if (this.o.oplogReplay) this.oplog = { kind: 'archive' };
        continue;
      }
      const source = `${c.db}.${c.collection}`;
      const intent = this.intentFor(source);
      const skip =
        c.collection === 'system.profile' ||
        (this.o.db === undefined && c.collection.startsWith('$')) ||
        !this.selected(source);
      if (skip) {
        intent.muted = true;
        continue;
      }
      intent.data = { kind: 'archive' };
      intent.metadata = metadataFromJson(c.metadata, `the archive's metadata of ${source}`);
      if (c.type === 'timeseries') intent.timeseries = true;
      const data = `${c.db}.${dataCollectionOf(c)}`;
      if (data !== source) this.archiveData.set(data, source);
    }
  }

  // ---- restoring ------------------------------------------------------------------------

  private async collectionExists(db: string, collection: string): Promise<boolean> {
    let names = this.known.get(db);
    if (names === undefined) {
      const list = await this.client.db(db).listCollections({}, { nameOnly: true }).toArray();
      names = new Set(list.map((c) => c.name));
      this.known.set(db, names);
    }
    return names.has(collection);
  }

  /** Drops (with --drop) and creates the destination collection with its options. */
  private async prepare(intent: Intent): Promise<void> {
    const ns = `${intent.db}.${intent.collection}`;
    let exists = await this.collectionExists(intent.db, intent.collection);
    if (exists && !this.o.drop)
      this.log.always(`restoring to existing collection ${ns} without dropping`);
    if (exists && this.o.drop) {
      if (intent.collection.startsWith('system.'))
        this.log.always(`cannot drop system collection ${ns}, skipping`);
      else {
        this.log.always(`dropping collection ${ns} before restoring`);
        await this.client.db(intent.db).collection(intent.collection).drop();
        exists = false;
      }
    }
    if (exists) return;
    const command: Document = { create: intent.collection };
    const m = intent.metadata;
    if (m !== undefined && !this.o.noOptionsRestore) {
      for (const [k, v] of Object.entries(m.options)) {
        if (k === 'recordIdsReplicated') continue;
        command[k] = k === 'autoIndexId' && v === false && intent.db !== 'local' ? true : v;
      }
      const idIndex = m.indexes.find((ix) => ix['name'] === '_id_');
      if (
        idIndex !== undefined &&
        m.options['viewOn'] === undefined &&
        m.options['clusteredIndex'] === undefined
      ) {
        const spec: Document = { ...idIndex };
        if (!this.o.keepIndexVersion && !this.o.preserveUUID) delete spec['v'];
        delete spec['ns'];
        delete command['autoIndexId'];
        command['idIndex'] = spec;
      }
    }
    this.log.info(
      `creating collection ${ns} ${m === undefined ? 'with no metadata' : 'using options from metadata'}`,
    );
    try {
      if (this.o.preserveUUID && m?.uuid !== undefined)
        await this.createWithUuid(intent, command, m.uuid);
      else await this.client.db(intent.db).command(command);
    } catch (e) {
      throw withContext(e, `error creating collection ${ns}`);
    }
    this.known.get(intent.db)?.add(intent.collection);
  }

  private async createWithUuid(intent: Intent, command: Document, uuidHex: string): Promise<void> {
    try {
      await this.client.db('admin').command({
        applyOps: [{ op: 'c', ns: `${intent.db}.$cmd`, o: command, ui: new UUID(uuidHex) }],
      });
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 59)
        throw new ToolError(
          '--preserveUUID needs the applyOps command, which this server does not have',
        );
      throw e;
    }
  }

  /**
   * The inserter of an intent's documents. Buckets are inserted without
   * bypassDocumentValidation whatever the flag says (mongorestore's rule): the server checks
   * each against the buckets' schema.
   */
  private inserter(intent: Intent): Inserter {
    const settings: InsertSettings =
      intent.timeseries === true
        ? { ...this.settings, bypassDocumentValidation: false }
        : this.settings;
    return new Inserter(
      this.client.db(intent.db),
      dataCollection(intent),
      settings,
      this.slots,
      this.log,
    );
  }

  private async finishCollection(intent: Intent, inserter: Inserter): Promise<void> {
    const ns = `${intent.db}.${dataCollection(intent)}`;
    const counts = await inserter.finish();
    this.result.successes += counts.successes;
    this.result.failures += counts.failures;
    this.incomplete.delete(ns);
    this.log.always(
      `finished restoring ${ns} (${plural(counts.successes, 'document', 'documents')}, ${plural(counts.failures, 'failure', 'failures')})`,
    );
  }

  private dataReader(source: DataSource, name: string): ByteReader {
    if (source.kind === 'file')
      return new ByteReader(fileSource(source.path, this.o.gzip), source.path);
    if (source.kind === 'stdin')
      return new ByteReader(streamSource(this.io.stdin as never, this.o.gzip), name);
    throw new ToolError('internal error: archive data read as a file');
  }

  /** Every document of a file or standard input, in order. */
  private async *documents(source: DataSource, name: string): AsyncGenerator<Buffer> {
    const reader = this.dataReader(source, name);
    for (;;) {
      let doc: Buffer | 'terminator' | undefined;
      try {
        doc = await reader.readDocument(false);
      } catch (e) {
        throw withContext(e, `error restoring from ${name}: reading bson input`);
      }
      if (doc === undefined || doc === 'terminator') return;
      yield doc;
    }
  }

  private async restoreFromFile(intent: Intent): Promise<void> {
    await this.prepare(intent);
    this.restored.push(intent);
    const source = intent.data;
    if (source === undefined) return;
    const ns = `${intent.db}.${dataCollection(intent)}`;
    const name = source.kind === 'file' ? source.path : 'standard input';
    this.log.always(`restoring ${ns} from ${name}`);
    this.incomplete.add(ns);
    const inserter = this.inserter(intent);
    const bar = this.log.bar(ns, source.kind === 'file' && !this.o.gzip ? source.size : 0, 'bytes');
    let bytes = 0;
    try {
      for await (const doc of this.documents(source, name)) {
        await inserter.add(doc);
        bytes += doc.length;
        bar.update(bytes);
      }
    } finally {
      bar.stop();
    }
    await this.finishCollection(intent, inserter);
  }

  private ordinaryIntents(): Intent[] {
    return [...this.intents.values()].filter(
      (i) => i.muted !== true && specialCollection(i.db, i.collection) === undefined,
    );
  }

  private async restoreFiles(): Promise<void> {
    const ordinary = this.ordinaryIntents();
    await runPool(ordinary, this.o.numParallelCollections, (i) => this.restoreFromFile(i));
    for (const i of this.intents.values()) {
      const special = specialCollection(i.db, i.collection);
      if (special === undefined || i.muted === true || i.data === undefined) continue;
      const docs: Buffer[] = [];
      for await (const d of this.documents(i.data, i.data.kind === 'file' ? i.data.path : i.source))
        docs.push(d);
      this.specialData.set(special, docs);
    }
    await this.restoreUsersAndRoles();
    if (this.oplog !== undefined) {
      const replayer = this.replayer();
      for await (const entry of this.documents(this.oplog, 'oplog.bson'))
        if (!(await replayer.replay(entry))) break;
      this.log.always(`applied ${plural(replayer.count, 'oplog entry', 'oplog entries')}`);
    }
    await this.restoreIndexes();
  }

  private replayer(): OplogReplayer {
    this.log.always('replaying oplog');
    return new OplogReplayer(
      this.client,
      {
        preserveUUID: this.o.preserveUUID,
        bypassDocumentValidation: this.o.bypassDocumentValidation,
        oplogLimit: this.o.oplogLimit,
      },
      this.log,
    );
  }

  private async verifyArchive(): Promise<void> {
    const reader = this.archiveReader;
    const prelude = this.archivePrelude;
    if (reader === undefined || prelude === undefined) return;
    let n = 0;
    try {
      for await (const ev of readArchiveBody(reader, prelude)) if (ev.kind === 'document') n++;
    } catch (e) {
      throw withContext(e, 'reading the archive');
    }
    this.log.always(
      `the archive is complete: ${plural(n, 'document', 'documents')}, every CRC matches`,
    );
  }

  private async restoreArchive(): Promise<void> {
    const reader = this.archiveReader;
    const prelude = this.archivePrelude;
    if (reader === undefined || prelude === undefined) return;
    const open = new Map<string, Inserter>();
    const pending: Array<Promise<void>> = [];
    let replayer: OplogReplayer | undefined;
    let collectionsDone = false;
    const bar = this.log.bar('archive', 0, 'bytes');
    const finishOrdinary = async (): Promise<void> => {
      if (collectionsDone) return;
      collectionsDone = true;
      await Promise.all(pending);
      await this.restoreUsersAndRoles();
    };
    try {
      for await (const ev of readArchiveBody(reader, prelude)) {
        bar.update(reader.position);
        const source = `${ev.db}.${ev.collection}`;
        if (ev.db === '' && ev.collection === 'oplog') {
          if (this.oplog === undefined || ev.kind !== 'document') continue;
          await finishOrdinary();
          replayer ??= this.replayer();
          await replayer.replay(ev.doc);
          continue;
        }
        const intent = this.intents.get(this.archiveData.get(source) ?? source);
        if (intent === undefined || intent.muted === true) continue;
        const special = specialCollection(intent.db, intent.collection);
        if (special !== undefined) {
          if (ev.kind === 'document') {
            const list = this.specialData.get(special) ?? [];
            list.push(ev.doc);
            this.specialData.set(special, list);
          }
          continue;
        }
        let inserter = open.get(source);
        if (inserter === undefined && !this.restored.includes(intent)) {
          await this.prepare(intent);
          this.restored.push(intent);
          this.log.always(`restoring ${intent.db}.${dataCollection(intent)} from archive`);
          if (intent.metadata?.options['viewOn'] === undefined) {
            inserter = this.inserter(intent);
            open.set(source, inserter);
            this.incomplete.add(`${intent.db}.${dataCollection(intent)}`);
          }
        }
        if (inserter === undefined) continue;
        if (ev.kind === 'document') await inserter.add(ev.doc);
        else {
          open.delete(source);
          const done = this.finishCollection(intent, inserter);
          done.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
          pending.push(done);
        }
      }
    } catch (e) {
      await Promise.allSettled(pending);
      throw withContext(e, 'reading the archive');
    } finally {
      bar.stop();
    }
    await finishOrdinary();
    if (replayer !== undefined)
      this.log.always(`applied ${plural(replayer.count, 'oplog entry', 'oplog entries')}`);
    await this.restoreIndexes();
  }

  /** mongorestore's way: into admin.tempusers / admin.temproles, then _mergeAuthzCollections. */
  private async restoreUsersAndRoles(): Promise<void> {
    if (this.o.db !== undefined && this.o.db !== 'admin') return;
    const users = this.specialData.get('users');
    const roles = this.specialData.get('roles');
    if (users === undefined && roles === undefined) return;
    const version = this.specialData.get('version');
    if (version !== undefined) this.checkAuthVersion(version);
    const admin = this.client.db('admin');
    const merge: Document = { _mergeAuthzCollections: 1 };
    const temps: string[] = [];
    try {
      for (const [kind, docs, temp, param] of [
        ['users', users, 'tempusers', 'tempUsersCollection'],
        ['roles', roles, 'temproles', 'tempRolesCollection'],
      ] as const) {
        if (docs === undefined) continue;
        this.log.always(`restoring ${kind} from the dump`);
        if (await this.collectionExists('admin', temp)) await admin.collection(temp).drop();
        temps.push(temp);
        const inserter = this.inserter({ source: `admin.${temp}`, db: 'admin', collection: temp });
        for (const d of docs) await inserter.add(d);
        await inserter.finish();
        merge[param] = `admin.${temp}`;
      }
      merge['drop'] = this.o.drop;
      merge['db'] = '';
      if (this.o.writeConcern !== undefined) merge['writeConcern'] = this.o.writeConcern;
      try {
        await admin.command(merge);
      } catch (e) {
        if (e instanceof MongoServerError && e.code === 59)
          throw new ToolError(
            'restoring users and roles needs the _mergeAuthzCollections command, which this server does not have; ' +
              'leave them out with --nsExclude "admin.system.*"',
          );
        throw withContext(e, 'error running merge command');
      }
    } finally {
      for (const t of temps)
        await admin
          .collection(t)
          .drop()
          .catch(() => undefined);
    }
  }

  private checkAuthVersion(docs: readonly Buffer[]): void {
    for (const raw of docs) {
      const d = deserialize(raw);
      if (d['_id'] !== 'authSchema') continue;
      const v = Number(d['currentVersion']);
      if (v !== 3 && v !== 5)
        throw new ToolError(
          `cannot restore users and roles from a dump file with auth version ${v}`,
        );
      return;
    }
  }

  private async restoreIndexes(): Promise<void> {
    if (this.o.noIndexRestore) return;
    for (const intent of this.restored) {
      const m = intent.metadata;
      if (m === undefined || m.options['viewOn'] !== undefined) continue;
      const ns = `${intent.db}.${intent.collection}`;
      // mongod writes an index's effective collation into its spec, so on a collection with a
      // default collation a spec without one is a simple-collation index (SecantusDB lists
      // those without `collation`): say so, or the index would inherit the collection's.
      const collated = m.options['collation'] !== undefined && !this.o.noOptionsRestore;
      // The _id index, and a clustered collection's clustered index (listed with
      // `clustered: true`, whatever its name), come with the collection itself.
      const indexes = m.indexes
        .filter((ix) => ix['name'] !== '_id_' && ix['clustered'] !== true)
        .map((ix) => {
          const spec: Document = { ...ix };
          if (!this.o.keepIndexVersion) delete spec['v'];
          delete spec['ns'];
          if (collated && spec['collation'] === undefined) spec['collation'] = { locale: 'simple' };
          return spec;
        });
      if (indexes.length === 0) {
        this.log.info(`no indexes to restore for collection ${ns}`);
        continue;
      }
      this.log.always(`restoring indexes for collection ${ns} from metadata`);
      try {
        await this.client.db(intent.db).command({
          createIndexes: intent.collection,
          indexes,
          ignoreUnknownIndexOptions: true,
        });
      } catch (e) {
        throw withContext(e, `${ns}: error creating indexes for ${ns}`);
      }
    }
  }
}
