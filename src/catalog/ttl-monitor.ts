// The TTL monitor, as mongod's TTLMonitor: every `ttlMonitorSleepSecs` (60 by default) a pass
// deletes, for each index with `expireAfterSeconds`, the documents whose indexed field holds a
// date older than now - expireAfterSeconds (for an array of dates, its earliest date decides:
// `{field: {$lte: cutoff}}` matches when any element is that old). Fields holding no date are
// never deleted. Hidden TTL indexes still expire documents, as in mongod; a partial TTL index
// only those matching its filter. A clustered collection with `expireAfterSeconds` loses the
// documents whose _id is such a date; a time-series collection (its buckets collection) the
// buckets whose control.max time is. `ttlMonitorEnabled: false` pauses the passes.
//
// The deletes go through the same write path as a delete command (the caller provides it), so
// the oplog and change streams see them. The parameters are read on every tick (1 s), so a
// setParameter takes effect at once rather than after the current sleep.

import type { BsonDocument } from '../bson/types.js';
import { numericValue } from '../bson/types.js';
import type { Logger } from '../log.js';
import type { Catalog } from './catalog.js';
import type { Collection } from './collection.js';
import { timeseriesOptionsOf } from './timeseries.js';

export interface TtlMonitorOptions {
  readonly catalog: Catalog;
  readonly parameters: ReadonlyMap<string, unknown>;
  readonly logger: Logger;
  /** Deletes the documents of db.coll the filter selects through the write path; resolves to how many. */
  readonly deleteMatching: (db: string, coll: string, filter: BsonDocument) => Promise<number>;
  readonly now?: () => number;
}

const tickMs = 1000;
const defaultSleepSecs = 60;

export class TtlMonitor {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastPassMs: number;
  private stopped = false;
  /** Passes run and documents deleted (serverStatus metrics.ttl). */
  readonly metrics = { passes: 0, deletedDocuments: 0 };

  constructor(private readonly options: TtlMonitorOptions) {
    this.lastPassMs = this.now();
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private sleepMs(): number {
    const n = numericValue(this.options.parameters.get('ttlMonitorSleepSecs'));
    return (n !== undefined && n >= 0 ? n : defaultSleepSecs) * 1000;
  }

  private enabled(): boolean {
    return this.options.parameters.get('ttlMonitorEnabled') !== false;
  }

  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = setInterval(() => this.tick(), tickMs);
    this.timer.unref();
  }

  private tick(): void {
    if (this.running !== undefined || this.stopped) return;
    if (!this.enabled() || this.now() - this.lastPassMs < this.sleepMs()) return;
    this.running = this.runPass()
      .then(() => undefined)
      .catch((e: unknown) =>
        this.options.logger.warn('INDEX', 22542, 'TTL pass failed', { error: String(e) }),
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  /** One pass over every TTL index; resolves to the number of documents deleted. */
  async runPass(): Promise<number> {
    this.lastPassMs = this.now();
    this.metrics.passes++;
    let deleted = 0;
    const { catalog } = this.options;
    for (const db of catalog.databaseNames()) {
      for (const coll of catalog.collections(db)) {
        deleted += await this.expireClustered(coll);
        for (const index of coll.indexes) {
          if (this.stopped) return deleted;
          const secs = numericValue(index.meta.spec['expireAfterSeconds']);
          const field = index.fields.length === 1 ? index.fields[0]?.path : undefined;
          if (secs === undefined || Number.isNaN(secs) || field === undefined || index.isIdIndex)
            continue;
          const cutoff = new Date(this.now() - secs * 1000);
          const pfe = index.meta.spec['partialFilterExpression'];
          const byAge: BsonDocument = { [field]: { $lte: cutoff } };
          const filter: BsonDocument =
            pfe !== undefined && pfe !== null && typeof pfe === 'object'
              ? { $and: [byAge, pfe as BsonDocument] }
              : byAge;
          try {
            deleted += await this.options.deleteMatching(coll.meta.db, coll.meta.name, filter);
          } catch (e) {
            this.options.logger.warn('INDEX', 22542, 'TTL deletion failed', {
              ns: coll.ns,
              index: index.meta.name,
              error: String(e),
            });
          }
        }
      }
    }
    this.metrics.deletedDocuments += deleted;
    if (deleted > 0)
      this.options.logger.debug('INDEX', 22530, 'TTL pass deleted documents', { deleted });
    return deleted;
  }

  /**
   * A clustered collection with expireAfterSeconds (mongod's clustered TTL): the documents
   * whose _id is a date older than now - expireAfterSeconds; other _id types never expire.
   */
  private async expireClustered(coll: Collection): Promise<number> {
    const options = coll.meta.options;
    if (this.stopped || options['clusteredIndex'] === undefined) return 0;
    const secs = numericValue(options['expireAfterSeconds']);
    if (secs === undefined || Number.isNaN(secs)) return 0;
    const cutoff = new Date(this.now() - secs * 1000);
    // A time-series buckets collection loses the buckets whose newest measurement is that old.
    const ts = timeseriesOptionsOf(coll);
    const filter: BsonDocument =
      ts === undefined
        ? { _id: { $lte: cutoff } }
        : { [`control.max.${ts.timeField}`]: { $lte: cutoff } };
    try {
      return await this.options.deleteMatching(coll.meta.db, coll.meta.name, filter);
    } catch (e) {
      this.options.logger.warn('INDEX', 22542, 'TTL deletion failed', {
        ns: coll.ns,
        error: String(e),
      });
      return 0;
    }
  }

  /** Stops the ticks and waits for a running pass. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
