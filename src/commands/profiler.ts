// The database profiler and the slow-operation log (mongod's CurOp::completeAndLogOperation and
// introspect.cpp). When an operation ends, the dispatcher hands it here:
//
// - with a profile filter set for its database, the filter decides both whether it is logged
//   and whether it is profiled at level 1;
// - otherwise an operation that took slowms or longer (whole milliseconds, as mongod compares
//   them; so slowms 0 takes every operation) and is sampled by sampleRate is logged as
//   "Slow query" (51803) and profiled at level 1; at COMMAND verbosity >= 1 every operation is
//   logged, and profiled at level 1 when sampled;
// - at level 2 every operation is profiled.
//
// A profile entry is a document in <db>.system.profile, shaped as mongod's (op, ns, command,
// keysExamined, docsExamined, nreturned, responseLength, millis, planSummary, ts, client,
// appName, allUsers, user). The collection is created as mongod creates it (capped, 1 MiB) and
// kept within that size: the oldest entries are deleted as new ones come. Its writes have no
// oplog entries (system.profile is not replicated, src/catalog/namespace.ts). A failed profile
// write never fails the operation: it is logged.
//
// The common case costs a comparison: no filter, shorter than slowms, level below 2.

import { Double, Int32 } from 'bson';
import type { BsonDocument } from '../bson/types.js';
import { bsonSize } from '../bson/codec.js';
import { formatDocument } from '../bson/format.js';
import { getOwn } from '../bson/document.js';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import { logDocument } from '../log.js';
import { compileFilter } from '../query/match/index.js';
import type { Matcher } from '../query/match/index.js';
import type { RunningOperation } from './operations.js';
import type { Logger } from '../log.js';
import type { Catalog } from '../catalog/catalog.js';
import type { TrackedEngine } from '../txn/tracked-engine.js';
import type { FsyncLock } from './fsync-lock.js';
import { executeDelete } from './crud/write-exec.js';
import { insertDocument, internalWrite } from '../catalog/write-unit.js';

export const profileCollection = 'system.profile';

/**
 * What the profiler uses of the server's services (ServerServices has them all): declared here
 * so that the profiler, which those services hold, does not import their definition.
 */
export interface ProfilerServices {
  readonly logger: Logger;
  readonly catalog: Catalog;
  readonly engine: TrackedEngine;
  readonly fsyncLock: FsyncLock;
}

export interface ProfileFilter {
  readonly spec: BsonDocument;
  readonly matcher: Matcher;
}

export interface DatabaseProfileSettings {
  readonly level: number;
  readonly filter: ProfileFilter | undefined;
}

export interface ProfilerOptions {
  /** --profile: the level of every database not set otherwise. */
  readonly level?: number;
  /** --slowms. */
  readonly slowMs?: number;
  /** --slowOpSampleRate. */
  readonly sampleRate?: number;
}

/** Fields a profile filter may name (mongod's OpDebug::appendStaged). */
const filterFields = new Set([
  'ts',
  'client',
  'appName',
  'allUsers',
  'user',
  'op',
  'ns',
  'command',
  'originatingCommand',
  'nShards',
  'cursorid',
  'mongot',
  'exhaust',
  'keysExamined',
  'docsExamined',
  'hasSortStage',
  'usedDisk',
  'fromMultiPlanner',
  'fromPlanCache',
  'replanned',
  'replanReason',
  'nMatched',
  'nBatches',
  'nModified',
  'ninserted',
  'ndeleted',
  'nUpserted',
  'cursorExhausted',
  'keysInserted',
  'keysDeleted',
  'prepareReadConflicts',
  'writeConflicts',
  'temporarilyUnavailableErrors',
  'dataThroughputLastSecond',
  'dataThroughputAverage',
  'numYield',
  'nreturned',
  'queryHash',
  'planCacheKey',
  'queryFramework',
  'locks',
  'authorization',
  'flowControl',
  'writeConcern',
  'storage',
  'ok',
  'errMsg',
  'errName',
  'errCode',
  'responseLength',
  'protocol',
  'remoteOpWaitMillis',
  'cpuNanos',
  'millis',
  'durationMillis',
  'planSummary',
  'planningTimeMicros',
  'totalOplogSlotDurationMicros',
  'execStats',
]);

function topLevelFields(filter: BsonDocument, out: Set<string>): void {
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and' || k === '$or' || k === '$nor') {
      if (Array.isArray(v))
        for (const c of v)
          if (c !== null && typeof c === 'object') topLevelFields(c as BsonDocument, out);
    } else if (!k.startsWith('$')) out.add(k.split('.')[0] ?? k);
  }
}

/** Parses a profile filter as mongod does: a match expression over the known profile fields. */
export function parseProfileFilter(spec: BsonDocument): ProfileFilter {
  const matcher = compileFilter(spec);
  const fields = new Set<string>();
  topLevelFields(spec, fields);
  for (const f of fields) {
    if (!filterFields.has(f))
      throw new CommandError(
        ErrorCode.Location4910200,
        `No such field (or fields) available for profile filter: ${f}`,
      );
  }
  return { spec, matcher };
}

/** The client address as the profiler shows it: the host, without the port. */
function clientAddress(remote: string): string {
  const i = remote.lastIndexOf(':');
  const host = i < 0 ? remote : remote.slice(0, i);
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** What the profiler keeps per system.profile collection to stay within its size. */
interface ProfileQueue {
  readonly uuid: string;
  /** _id and size of each entry, oldest first. */
  readonly entries: Array<{ id: unknown; bytes: number }>;
  bytes: number;
}

export class Profiler {
  slowMs: number;
  sampleRate: number;
  readonly defaultLevel: number;
  private readonly dbs = new Map<string, DatabaseProfileSettings>();
  /** True once any database has settings of its own (else the default applies everywhere). */
  private perDatabase = false;
  private readonly queues = new Map<string, ProfileQueue>();

  constructor(options: ProfilerOptions = {}) {
    this.defaultLevel = options.level ?? 0;
    this.slowMs = options.slowMs ?? 100;
    this.sampleRate = options.sampleRate ?? 1;
  }

  settingsOf(db: string): DatabaseProfileSettings {
    return (
      (this.perDatabase ? this.dbs.get(db) : undefined) ?? {
        level: this.defaultLevel,
        filter: undefined,
      }
    );
  }

  /** The profile command's changes for one database; returns the settings before. */
  apply(
    db: string,
    change: { level?: number; filter?: ProfileFilter | null },
  ): DatabaseProfileSettings {
    const before = this.settingsOf(db);
    const level =
      change.level !== undefined && change.level >= 0 && change.level <= 2
        ? change.level
        : before.level;
    const filter = change.filter === undefined ? before.filter : (change.filter ?? undefined);
    this.dbs.set(db, { level, filter });
    this.perDatabase = true;
    return before;
  }

  /**
   * The operation ended: log it as a slow query and profile it if its settings say so. Returns
   * the profile write to wait for (before the reply), or undefined.
   */
  finish(
    services: ProfilerServices,
    op: RunningOperation,
    reply: BsonDocument,
  ): Promise<void> | undefined {
    const debug = op.debug;
    const millis = debug.millis;
    const settings = this.perDatabase ? this.dbs.get(op.db) : undefined;
    const level = settings?.level ?? this.defaultLevel;
    const filter = settings?.filter;
    const logger = services.logger;
    const commandVerbose = logger.settings.levelOf('COMMAND') >= 1;
    if (filter === undefined && millis < this.slowMs && level < 2 && !commandVerbose)
      return undefined;
    debug.responseLength = bsonSize(reply);
    let logIt: boolean;
    let profileAtLevel1: boolean;
    if (filter !== undefined) {
      const pass = filter.matcher.matches(debug.filterDocument(this.head(op)));
      logIt = pass;
      profileAtLevel1 = pass;
    } else {
      // shouldLogSlowOpWithSampling: slow when at least slowms; profiled when logged and sampled.
      const sampled = this.sampleRate >= 1 || Math.random() < this.sampleRate;
      logIt = commandVerbose || (sampled && millis >= this.slowMs);
      profileAtLevel1 = logIt && sampled;
    }
    if (logIt) this.logSlow(services, op);
    const profile = level >= 2 || (level === 1 && profileAtLevel1);
    if (!profile || op.ns.endsWith(`.${profileCollection}`) || services.fsyncLock.locked)
      return undefined;
    return this.writeEntry(services, op).catch((e: unknown) => {
      logger.warn('COMMAND', 20700, 'Caught exception while writing to the profile collection', {
        ns: op.ns,
        error: e instanceof Error ? e.message : String(e),
      });
    });
  }

  private head(op: RunningOperation): BsonDocument {
    const head: BsonDocument = {
      op: op.logicalOp,
      ns: op.ns,
      command: this.commandForProfile(op.command),
    };
    const originating = op.debug.cursor?.options.originatingCommand;
    if (originating !== undefined) head['originatingCommand'] = this.commandForProfile(originating);
    return head;
  }

  /** mongod's appendAsObjOrString: a command over 50 KiB is kept as {$truncated: text}. */
  private commandForProfile(command: BsonDocument): BsonDocument {
    if (bsonSize(command) <= limits.profileCommandBytesMax) return command;
    const rest: BsonDocument = {};
    for (const [k, v] of Object.entries(command)) if (k !== 'comment') rest[k] = v;
    let text = formatDocument(rest);
    if (text.length > limits.profileCommandBytesMax)
      text = text.slice(0, limits.profileCommandBytesMax - 3) + '...';
    const out: BsonDocument = { $truncated: text };
    const comment = getOwn(command, 'comment');
    if (comment !== undefined) out['comment'] = comment;
    return out;
  }

  private logSlow(services: ProfilerServices, op: RunningOperation): void {
    const attr: Record<string, unknown> = { type: 'command', ns: op.ns };
    if (op.client.appName !== undefined) attr['appName'] = op.client.appName;
    attr['command'] = logDocument(op.command);
    const originating = op.debug.cursor?.options.originatingCommand;
    if (originating !== undefined) attr['originatingCommand'] = logDocument(originating);
    Object.assign(attr, op.debug.reportAttributes());
    attr['remote'] = op.client.remote;
    attr['protocol'] = 'op_msg';
    attr['durationMillis'] = op.debug.millis;
    services.logger.child(`conn${op.client.id}`).info('COMMAND', 51803, 'Slow query', attr);
  }

  private async writeEntry(services: ProfilerServices, op: RunningOperation): Promise<void> {
    const entry: BsonDocument = { ...this.head(op), ...op.debug.profileFields() };
    entry['ts'] = new Date();
    entry['client'] = clientAddress(op.client.remote);
    if (op.client.appName !== undefined) entry['appName'] = op.client.appName;
    // OpDebug::appendUserInfo: the authenticated user, as {user, db} and as "user@db".
    const user = op.client.auth.user;
    entry['allUsers'] = user === undefined ? [] : [{ user: user.user, db: user.db }];
    entry['user'] = user === undefined ? '' : `${user.user}@${user.db}`;
    const db = op.db;
    const { catalog } = services;
    await services.engine.write(
      (txn) => {
        if (catalog.get(db, profileCollection) === undefined) {
          catalog.create(txn, db, profileCollection, {
            options: { capped: true, size: new Int32(limits.profileCollectionBytesMax) },
          });
          services.logger.info('COMMAND', 20701, 'Creating profile collection', {
            namespace: `${db}.${profileCollection}`,
          });
        }
        const w = internalWrite(txn, catalog);
        const rec = insertDocument(w, { db, name: profileCollection }, entry);
        const coll = catalog.get(db, profileCollection);
        if (coll === undefined) return;
        let q = this.queues.get(db);
        if (q === undefined || q.uuid !== coll.meta.uuid) {
          q = { uuid: coll.meta.uuid, entries: [], bytes: 0 };
          for (const r of coll.scanRecords(txn)) {
            q.entries.push({ id: getOwn(r.doc, '_id'), bytes: r.size });
            q.bytes += r.size;
          }
          this.queues.set(db, q);
        } else {
          q.entries.push({ id: getOwn(rec.doc, '_id'), bytes: rec.size });
          q.bytes += rec.size;
        }
        const drop: unknown[] = [];
        while (q.bytes > limits.profileCollectionBytesMax && q.entries.length > 1) {
          const oldest = q.entries.shift();
          if (oldest === undefined) break;
          q.bytes -= oldest.bytes;
          drop.push(oldest.id);
        }
        if (drop.length > 0) {
          const filter = { _id: { $in: drop } } as BsonDocument;
          executeDelete(
            w,
            { db, name: profileCollection },
            {
              filter,
              matcher: compileFilter(filter),
              limit: 0,
            },
          );
        }
      },
      { durable: false },
    );
  }

  /** The profile command's reply fields and the 48742 log line. */
  static describe(
    before: DatabaseProfileSettings,
    slowMs: number,
    sampleRate: number,
  ): BsonDocument {
    const out: BsonDocument = {
      was: new Int32(before.level),
      slowms: new Int32(slowMs),
      sampleRate: new Double(sampleRate),
    };
    if (before.filter !== undefined) out['filter'] = before.filter.spec;
    return out;
  }
}
