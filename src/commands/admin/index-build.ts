// Index builds as mongod 4.2+ runs them ("hybrid" builds), reshaped for one JavaScript thread.
//
// 1. Registration: one short write transaction adds the new indexes to the collection's
//    metadata as *building* (CollectionMeta.building, each with the build's UUID). From then
//    on every write keeps them up to date, like a ready index, except that a unique index being
//    built sets a duplicate aside instead of refusing it (src/catalog/index-access.ts).
//    Transactions that already buffered writes to the collection are waited for first: their
//    buffered index entries were computed without the new indexes.
// 2. Collection scan: in slices of limits.execSliceMs, each its own write transaction, the
//    build adds the keys of the records in RecordId order, resuming after the last one. A
//    record written meanwhile has its keys added by that write too; adding a key twice is
//    harmless. Between slices the event loop is given back and the operation's kill flag and
//    deadline are checked; currentOp shows `msg` and `progress: {done, total}` as mongod's.
// 3. Commit: one write transaction resolves the records set aside (the build fails with
//    DuplicateKey if another record still holds their key), moves the indexes from `building`
//    to the ready ones and logs the createIndexes oplog entries. createIndexes replies then.
//
// A build that fails, is killed (killOp, maxTimeMS) or whose index is dropped (dropIndexes)
// removes its indexes and their tables in one write transaction: nothing is left. At shutdown
// a build stops where it is and stays registered; the next start clears its tables and builds
// it again from the beginning (mongod restarts unfinished builds at startup likewise).

import { UUID } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import type { Catalog } from '../../catalog/catalog.js';
import { clearIndexTables } from '../../catalog/catalog.js';
import type { Collection, CollectionMeta, IndexMeta } from '../../catalog/collection.js';
import type { RecordId } from '../../catalog/record-id.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { Logger } from '../../log.js';
import type { WriteTxn } from '../../storage/engine.js';
import type { TrackedEngine } from '../../txn/tracked-engine.js';
import type { SessionCatalog } from '../../txn/sessions.js';
import type { FailPoints } from '../testing/failpoints.js';

/** What a build checks between slices and where it reports (the createIndexes operation). */
export interface BuildControl {
  /** Throws Interrupted once killed, MaxTimeMSExpired past the deadline. */
  checkDeadline(): void;
  /** Its currentOp message and progress (OperationContext.curOp). */
  readonly curOp: {
    msg?: string | undefined;
    progress?: { done: number; total: number } | undefined;
  };
}

const detached: BuildControl = { checkDeadline: () => undefined, curOp: {} };

export interface BuildResult {
  readonly numIndexesBefore: number;
  readonly numIndexesAfter: number;
}

/** The dashed form of a 32-hex-digit UUID, as mongod prints collection UUIDs. */
function dashed(hex: string): string {
  return hex.length === 32
    ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
    : hex;
}

const scanMessage = 'Index Build: scanning collection';

/** One build in progress: one or more indexes of one collection, built by one scan. */
export class IndexBuild {
  readonly buildUUID = new UUID().toHexString(true);
  /** Why the build must stop (dropIndexes, shutdown); checked between slices. */
  private stopReason: CommandError | undefined;
  private resolveDone: () => void = () => undefined;
  /** Settles (never rejects) once the build committed or cleaned up. */
  readonly done = new Promise<void>((r) => (this.resolveDone = r));

  constructor(
    readonly collectionUUID: string,
    public ns: string,
    readonly names: readonly string[],
  ) {}

  stop(reason: CommandError): void {
    this.stopReason ??= reason;
  }

  get stopping(): CommandError | undefined {
    return this.stopReason;
  }

  finished(): void {
    this.resolveDone();
  }
}

export interface IndexBuildDeps {
  readonly engine: TrackedEngine;
  readonly catalog: Catalog;
  readonly logger: Logger;
  readonly sessions: SessionCatalog;
  readonly failPoints: FailPoints;
}

const hangFailPoint = 'hangIndexBuildDuringCollectionScanPhaseAfterInsertion';
/** How often a build held by the failpoint looks again (and checks kill flag and deadline). */
const hangPollMs = 10;

/** The index builds in progress (mongod's IndexBuildsCoordinator). */
export class IndexBuilds {
  private readonly builds = new Set<IndexBuild>();
  private shuttingDown = false;

  constructor(private readonly deps: IndexBuildDeps) {}

  /** The builds of a collection. */
  forCollection(uuid: string): IndexBuild[] {
    return [...this.builds].filter((b) => b.collectionUUID === uuid);
  }

  /**
   * Within the registering write transaction: adds `specs` to the collection as building and
   * returns the build, which `run` then carries out. Throws WriteConflictRetry-like
   * `PendingTransactions` when open transactions hold writes to the collection.
   */
  register(txn: WriteTxn, coll: Collection, specs: readonly BsonDocument[]): IndexBuild {
    if (this.shuttingDown)
      throw new CommandError(ErrorCode.InterruptedAtShutdown, 'interrupted at shutdown');
    const build = new IndexBuild(
      coll.meta.uuid,
      coll.ns,
      specs.map((s) => s['name'] as string),
    );
    let next = coll.meta.nextIndexIdent;
    const added: IndexMeta[] = specs.map((spec) => ({
      name: spec['name'] as string,
      key: spec['key'] as BsonDocument,
      spec,
      ident: `i:${coll.meta.uuid}:${next++}`,
      buildUUID: build.buildUUID,
    }));
    this.deps.catalog.updateMeta(txn, coll, {
      ...coll.meta,
      building: [...(coll.meta.building ?? []), ...added],
      nextIndexIdent: next,
    });
    this.builds.add(build);
    txn.onRollback?.(() => this.builds.delete(build));
    return build;
  }

  /** Open transactions with buffered writes to the collection (see the file comment). */
  pendingTransactions(coll: Collection): Promise<void>[] {
    const out: Promise<void>[] = [];
    for (const s of this.deps.sessions.all()) {
      const t = s.transaction;
      if (t !== undefined && t.writesTo(coll.recordTable)) out.push(t.ended);
    }
    return out;
  }

  /**
   * Carries out a registered build: scan, commit. On failure the build's indexes are removed
   * (not at shutdown: then they stay registered for the restart) and the error is thrown with
   * mongod's "Index build failed" context.
   */
  async run(build: IndexBuild, ctl: BuildControl, durable: boolean): Promise<BuildResult> {
    const { logger } = this.deps;
    const startedMs = Date.now();
    try {
      const metas = this.metasOf(build);
      metas.forEach((m, i) =>
        logger.info('INDEX', 20384, 'Index build: starting', {
          buildUUID: build.buildUUID,
          collectionUUID: dashed(build.collectionUUID),
          namespace: build.ns,
          properties: m.spec,
          specIndex: i,
          numSpecs: metas.length,
          method: 'Hybrid',
        }),
      );
      const total = await this.scan(build, ctl);
      logger.info('INDEX', 20391, 'Index build: collection scan done', {
        buildUUID: build.buildUUID,
        collectionUUID: dashed(build.collectionUUID),
        namespace: build.ns,
        totalRecords: total,
        durationMillis: Date.now() - startedMs,
      });
      ctl.curOp.msg = undefined;
      ctl.curOp.progress = undefined;
      this.checkStop(build, ctl);
      const result = await this.deps.engine.write((txn) => this.commit(txn, build), { durable });
      logger.info('INDEX', 20663, 'Index build: completed successfully', {
        buildUUID: build.buildUUID,
        collectionUUID: dashed(build.collectionUUID),
        namespace: build.ns,
        indexesBuilt: build.names,
        numIndexesBefore: result.numIndexesBefore,
        numIndexesAfter: result.numIndexesAfter,
        durationMillis: Date.now() - startedMs,
      });
      return result;
    } catch (e) {
      const error =
        e instanceof CommandError
          ? e
          : new CommandError(ErrorCode.InternalError, e instanceof Error ? e.message : String(e));
      const atShutdown = error.code === ErrorCode.InterruptedAtShutdown;
      if (!atShutdown) await this.cleanUp(build);
      logger.info('INDEX', 20649, 'Index build: failed', {
        buildUUID: build.buildUUID,
        collectionUUID: dashed(build.collectionUUID),
        namespace: build.ns,
        error: { code: error.code, codeName: error.codeName, errmsg: error.message },
      });
      throw new CommandError(
        error.code,
        `Index build failed: ${build.buildUUID}: Collection ${build.ns} ( ${dashed(build.collectionUUID)} ) :: caused by :: ${error.message}`,
        { ...(error.info === undefined ? {} : { info: error.info }) },
      );
    } finally {
      ctl.curOp.msg = undefined;
      ctl.curOp.progress = undefined;
      this.builds.delete(build);
      build.finished();
    }
  }

  /** The collection the build works on, wherever it is now (a rename keeps its UUID). */
  private collectionOf(build: IndexBuild): Collection {
    const { catalog } = this.deps;
    const [db, ...rest] = build.ns.split('.');
    const byName = db === undefined ? undefined : catalog.get(db, rest.join('.'));
    if (byName?.meta.uuid === build.collectionUUID) return byName;
    for (const d of catalog.databaseNames()) {
      for (const c of catalog.collections(d)) {
        if (c.meta.uuid === build.collectionUUID) {
          build.ns = c.ns;
          return c;
        }
      }
    }
    throw new CommandError(
      ErrorCode.NamespaceNotFound,
      `Collection ${build.ns} ( ${dashed(build.collectionUUID)} ) was dropped during the index build`,
    );
  }

  private metasOf(build: IndexBuild, coll = this.collectionOf(build)): IndexMeta[] {
    return (coll.meta.building ?? []).filter((m) => m.buildUUID === build.buildUUID);
  }

  private checkStop(build: IndexBuild, ctl: BuildControl): void {
    const reason = build.stopping;
    if (reason !== undefined) throw reason;
    ctl.checkDeadline();
  }

  /** Phase 2: the collection scan, in slices. Returns the number of records scanned. */
  private async scan(build: IndexBuild, ctl: BuildControl): Promise<number> {
    const { engine, logger } = this.deps;
    const first = this.collectionOf(build);
    const snap = engine.snapshot();
    let total: number;
    try {
      total = first.count(snap);
    } finally {
      snap.release();
    }
    let done = 0;
    let after: RecordId | undefined;
    let lastLogMs = Date.now();
    const report = (): void => {
      const percent = total === 0 ? 100 : Math.floor((done * 100) / total);
      ctl.curOp.msg = `${scanMessage} ${scanMessage}: ${done}/${total} ${percent}%`;
      ctl.curOp.progress = { done, total };
    };
    report();
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.checkStop(build, ctl);
      const slice = await engine.write(
        (txn) => {
          const coll = this.collectionOf(build);
          const indexes = this.metasOf(build, coll).map((m) => coll.buildingIndex(m.name));
          if (indexes.length !== build.names.length || indexes.some((i) => i === undefined))
            throw new CommandError(ErrorCode.IndexBuildAborted, 'the index being built is gone');
          const endMs = performance.now() + limits.execSliceMs;
          let n = 0;
          let last = after;
          let end = true;
          for (const rec of coll.scanRecords(txn, after === undefined ? {} : { after })) {
            for (const index of indexes)
              index?.addEntries(txn, index.keysFor(rec.doc, txn), rec.recordId);
            last = rec.recordId;
            n++;
            if (performance.now() >= endMs) {
              end = false;
              break;
            }
          }
          return { n, last, end };
        },
        { durable: false },
      );
      done += slice.n;
      after = slice.last;
      report();
      if (Date.now() - lastLogMs >= limits.indexBuildProgressLogMs) {
        lastLogMs = Date.now();
        logger.info('INDEX', 51773, 'progress meter', {
          name: scanMessage,
          done,
          total,
          percent: total === 0 ? 100 : Math.floor((done * 100) / total),
        });
      }
      const offs = this.deps.failPoints.timesTurnedOff(hangFailPoint);
      if (this.deps.failPoints.check(hangFailPoint) !== undefined) {
        logger.info('INDEX', 20386, 'Hanging index build during collection scan phase', {
          buildUUID: build.buildUUID,
        });
        // Held until the failpoint is turned off, even by the entry that spent {times: n}.
        while (this.deps.failPoints.timesTurnedOff(hangFailPoint) === offs) {
          await new Promise((r) => setTimeout(r, hangPollMs));
          this.checkStop(build, ctl);
        }
      }
      if (slice.end) return done;
    }
  }

  /** Phase 3, inside the committing write transaction. */
  private commit(txn: WriteTxn, build: IndexBuild): BuildResult {
    const coll = this.collectionOf(build);
    const ours = this.metasOf(build, coll);
    for (const meta of ours) {
      const index = coll.buildingIndex(meta.name);
      if (index?.unique === true) index.resolveSkipped(txn, (id) => coll.getRecord(txn, id)?.doc);
    }
    const ready = ours.map(({ buildUUID: _done, ...m }) => m);
    const updated = this.deps.catalog.updateMeta(
      txn,
      coll,
      { ...withoutBuild(coll.meta, build), indexes: [...coll.meta.indexes, ...ready] },
      { op: 'createIndexes', specs: ready.map((m) => m.spec) },
    );
    return { numIndexesBefore: coll.indexes.length, numIndexesAfter: updated.indexes.length };
  }

  /** Removes the build's indexes and their tables (a failed or aborted build). */
  private async cleanUp(build: IndexBuild): Promise<void> {
    try {
      await this.deps.engine.write(
        (txn) => {
          let coll: Collection;
          try {
            coll = this.collectionOf(build);
          } catch {
            return; // dropped with the collection
          }
          for (const meta of this.metasOf(build, coll)) clearIndexTables(txn, meta);
          this.deps.catalog.updateMeta(txn, coll, withoutBuild(coll.meta, build));
        },
        { durable: true },
      );
    } catch (e) {
      this.deps.logger.error('INDEX', 4656002, 'Index build: cleanup failed', {
        buildUUID: build.buildUUID,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }

  /**
   * dropIndexes of an index being built: the build stops at its next slice and removes what it
   * made; resolves once it has.
   */
  async abort(build: IndexBuild, reason: string): Promise<void> {
    build.stop(
      new CommandError(
        ErrorCode.IndexBuildAborted,
        `Index build aborted: ${build.buildUUID}: ${reason}`,
      ),
    );
    await build.done;
  }

  /** Shutdown: every build stops where it is, left registered for the next start. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    const all = [...this.builds];
    for (const b of all)
      b.stop(new CommandError(ErrorCode.InterruptedAtShutdown, 'interrupted at shutdown'));
    await Promise.all(all.map((b) => b.done));
  }

  /**
   * At startup: builds left unfinished (a shutdown or a crash mid-build) start again from the
   * beginning, with nobody waiting for them; their tables are emptied first.
   */
  async restartUnfinished(): Promise<void> {
    const { catalog, logger, engine } = this.deps;
    const restarts: IndexBuild[] = [];
    await engine.write(
      (txn) => {
        for (const db of catalog.databaseNames()) {
          for (const coll of catalog.collections(db)) {
            const building = coll.meta.building ?? [];
            if (building.length === 0) continue;
            for (const meta of building) {
              logger.info('STORAGE', 22253, 'Found index from unfinished build', {
                namespace: coll.ns,
                index: meta.name,
                buildUUID: meta.buildUUID,
              });
              clearIndexTables(txn, meta);
            }
            const specs = building.map((m) => m.spec);
            const cleared = catalog.updateMeta(txn, coll, { ...coll.meta, building: [] });
            restarts.push(this.register(txn, cleared, specs));
          }
        }
      },
      { durable: true },
    );
    for (const build of restarts) {
      this.run(build, detached, true).catch(() => undefined); // logged by run
    }
  }
}

function withoutBuild(meta: CollectionMeta, build: IndexBuild): CollectionMeta {
  const rest = (meta.building ?? []).filter((m) => m.buildUUID !== build.buildUUID);
  return { ...meta, building: rest };
}
