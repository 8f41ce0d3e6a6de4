// dataSize: the bytes of a collection's documents, or of those in an index key range
// [min, max) (mongod's CmdDatasize, used by the sharding tools to size chunks). Without a range
// and with {estimate: true} the size comes from the storage engine's table size; otherwise the
// records are read one by one (an estimate multiplies their count by the average size), in
// slices that give the event loop back. maxSize / maxObjects stop the count early.

import { Int32, Long, MinKey } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { compareBson } from '../../bson/compare.js';
import { getOwn } from '../../bson/document.js';
import type { Collection } from '../../catalog/collection.js';
import type { IndexAccess } from '../../catalog/index-access.js';
import { encodeRecordId } from '../../catalog/record-id.js';
import { collectionSizes } from '../../catalog/sizes.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { ReadView } from '../../storage/engine.js';
import { t } from '../args.js';
import type { OperationContext } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { privileges } from '../authorization.js';
import { privilege } from '../../auth/privileges.js';
import { namespaceResource } from '../../auth/resource.js';
import { errmsgReply } from './log-commands.js';

/** An index whose key pattern starts with `keyPattern`'s fields and that is not multikey. */
function indexFor(
  coll: Collection,
  keyPattern: BsonDocument,
  view: ReadView,
): IndexAccess | undefined {
  const wanted = Object.keys(keyPattern);
  return coll.indexes.find((index) => {
    const fields = index.fields.map((f) => f.path);
    if (wanted.length > fields.length || !wanted.every((f, i) => fields[i] === f)) return false;
    if (index.partialFilter !== undefined || index.sparse) return false;
    return index.readState(view).multikeyPaths.every((p) => p.length === 0);
  });
}

/** A bound's values in the index's field order, missing trailing fields as MinKey. */
function boundValues(index: IndexAccess, bound: BsonDocument): BsonValue[] {
  return index.fields.map((f) => getOwn(bound, f.path) ?? new MinKey());
}

async function sliceBreak(op: OperationContext, sliceEndMs: { at: number }): Promise<void> {
  if (performance.now() < sliceEndMs.at) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  op.checkDeadline();
  sliceEndMs.at = performance.now() + limits.diagnosticSliceMs;
}

export const dataSize = defineCommand({
  name: 'dataSize',
  aliases: ['datasize'],
  // As mongod: find on the namespace the command names ("db.coll").
  auth: privileges('find on the namespace', ({ target }) => {
    const ns = typeof target === 'string' ? target : '';
    const dot = ns.indexOf('.');
    return [[privilege(namespaceResource(ns.slice(0, dot), ns.slice(dot + 1)), 'find')]];
  }),
  args: {
    keyPattern: t.document,
    min: t.document,
    max: t.document,
    estimate: t.safeBool,
    maxSize: t.number,
    maxObjects: t.number,
  },
  strict: false,
  help: 'determine data size for a set of data in a certain range\nexample: { dataSize:"blog.posts", keyPattern:{x:1}, min:{x:10}, max:{x:55} }\nmin and max parameters are optional. They must either both be included or both omitted\nkeyPattern is an optional parameter indicating an index pattern that would be useful for iterating over the min/max bounds. If keyPattern is omitted, it is inferred from the structure of min.\nnote: This command may take a while to run',
  run: async ({ services, target, args, op }) => {
    const started = Date.now();
    if (typeof target !== 'string' || target === '' || !target.includes('.'))
      throw new CommandError(
        ErrorCode.InvalidNamespace,
        `Invalid namespace specified '${typeof target === 'string' ? target : ''}'`,
      );
    const dot = target.indexOf('.');
    const coll = services.catalog.get(target.slice(0, dot), target.slice(dot + 1));
    const millis = (): Int32 => new Int32(Date.now() - started);
    const sizes = coll === undefined ? undefined : collectionSizes(services.engine, coll);
    if (coll === undefined || sizes === undefined || sizes.count === 0)
      return { size: new Int32(0), numObjects: new Int32(0), millis: millis() };
    const min = args.min ?? {};
    const max = args.max ?? {};
    const ranged = Object.keys(min).length > 0 || Object.keys(max).length > 0;
    if (!ranged && args.estimate === true)
      return {
        size: Long.fromNumber(sizes.dataBytes),
        numObjects: Long.fromNumber(sizes.count),
        millis: millis(),
      };
    if (ranged && (Object.keys(min).length === 0 || Object.keys(max).length === 0))
      return errmsgReply('only one of min or max specified');
    const avgObjSize = Math.trunc(sizes.dataBytes / sizes.count);
    const maxSize = Math.trunc(args.maxSize ?? 0);
    const maxObjects = Math.trunc(args.maxObjects ?? 0);
    let size = 0;
    let numObjects = 0;
    let maxReached = false;
    const slice = { at: performance.now() + limits.diagnosticSliceMs };
    const snap = services.engine.snapshot();
    try {
      const count = (bytes: number): boolean => {
        size += args.estimate === true ? avgObjSize : bytes;
        numObjects++;
        if ((maxSize > 0 && size > maxSize) || (maxObjects > 0 && numObjects > maxObjects)) {
          maxReached = true;
          return false;
        }
        return true;
      };
      if (!ranged) {
        for (const { value } of snap.scan(coll.recordTable)) {
          await sliceBreak(op, slice);
          if (!count(value.length)) break;
        }
      } else {
        const keyPattern =
          args.keyPattern !== undefined && Object.keys(args.keyPattern).length > 0
            ? args.keyPattern
            : Object.fromEntries(Object.keys(min).map((k) => [k, new Int32(1)]));
        const index = isPlainDocument(keyPattern) ? indexFor(coll, keyPattern, snap) : undefined;
        if (index === undefined)
          return errmsgReply("couldn't find valid index containing key pattern");
        const lo = boundValues(index, min);
        const hi = boundValues(index, max);
        if (lo.every((v, i) => compareBson(v, hi[i] ?? null) === 0))
          return { size: new Int32(0), numObjects: new Int32(0), millis: millis() };
        const range = { start: index.encode(lo), end: index.encode(hi) };
        for (const entry of index.scan(snap, range, false)) {
          await sliceBreak(op, slice);
          const bytes = snap.get(coll.recordTable, encodeRecordId(entry.recordId));
          if (bytes === undefined) continue;
          if (!count(bytes.length)) break;
        }
      }
    } finally {
      snap.release();
    }
    const reply: BsonDocument = {};
    if (maxReached) reply['maxReached'] = true;
    reply['size'] = Long.fromNumber(size);
    reply['numObjects'] = Long.fromNumber(numObjects);
    reply['millis'] = millis();
    return reply;
  },
});

export const dataSizeCommands: CommandDefinition[] = [dataSize];
