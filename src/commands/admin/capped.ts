// convertToCapped and cloneCollectionAsCapped: a capped copy of a collection (mongod's
// capped_utils). Both copy the source's newest documents that fit in `size`, in natural order,
// into a new capped collection with only the _id index, through the write unit (so the copy is
// logged as inserts); convertToCapped then renames the copy over the source (one rename entry
// with dropTarget, as mongod logs it), so the collection gets a new UUID and loses its other
// indexes, as in mongod.

import { randomBytes } from 'node:crypto';
import type { Collection, StoredRecord } from '../../catalog/collection.js';
import { cappedLimitsOf } from '../../catalog/collection.js';
import { lookupView } from '../../catalog/views.js';
import { insertDocument, internalWrite } from '../../catalog/write-unit.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import type { WriteTxn } from '../../storage/engine.js';
import { privilege } from '../../auth/privileges.js';
import { namespaceResource } from '../../auth/resource.js';
import { t } from '../args.js';
import type { ArgType } from '../args.js';
import { onCollection, privileges, targetResource } from '../authorization.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { withWriteConcernError } from '../write-concern.js';
import { targetCollection } from '../crud/target.js';
import { cappedOptions } from './collections.js';

function requireSize(command: string, size: number | undefined): number {
  if (size === undefined) throw missingFieldError(`${command}.size`);
  return size;
}

/** The source collection: NamespaceNotFound when absent, CommandNotSupportedOnView for a view. */
function sourceCollection(
  services: ServerServices,
  txn: WriteTxn,
  db: string,
  name: string,
): Collection {
  const coll = services.catalog.get(db, name);
  if (coll !== undefined) return coll;
  if (lookupView(services.catalog, txn, db, name) !== undefined)
    throw new CommandError(
      ErrorCode.CommandNotSupportedOnView,
      `cannot convert or clone a view: ${db}.${name}`,
    );
  throw new CommandError(
    ErrorCode.NamespaceNotFound,
    `source collection ${db}.${name} does not exist`,
  );
}

/**
 * Inside a write transaction: a new capped collection `toName` of `size` bytes holding the
 * newest documents of `source` that fit (at least its newest one), oldest first.
 */
function copyAsCapped(
  services: ServerServices,
  txn: WriteTxn,
  source: Collection,
  toName: string,
  size: number,
): void {
  const options = cappedOptions({ capped: true, size });
  const target = services.catalog.create(txn, source.meta.db, toName, { options });
  const limits = cappedLimitsOf(target.meta.options);
  const sizeBytes = limits?.sizeBytes ?? size;
  const kept: StoredRecord[] = [];
  let bytes = 0;
  for (const rec of source.scanRecords(txn, { reverse: true })) {
    if (kept.length > 0 && bytes + rec.size > sizeBytes) break;
    kept.push(rec);
    bytes += rec.size;
  }
  const w = internalWrite(txn, services.catalog);
  for (let i = kept.length - 1; i >= 0; i--) {
    const rec = kept[i];
    if (rec !== undefined) insertDocument(w, { db: target.meta.db, name: toName }, rec.doc);
  }
}

export const convertToCapped = defineCommand({
  name: 'convertToCapped',
  auth: onCollection('convertToCapped'),
  args: { size: t.int64 },
  traits: { isWrite: true, apiVersion1: false },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const name = targetCollection(inv, { allowSystem: false });
    const size = requireSize('convertToCapped', args.size);
    cappedOptions({ capped: true, size });
    await services.engine.write(
      (txn) => {
        const source = sourceCollection(services, txn, db, name);
        const tmp = `tmp${randomBytes(4).toString('hex')}.convertToCapped.${name}`;
        copyAsCapped(services, txn, source, tmp, size);
        const copy = services.catalog.get(db, tmp);
        if (copy === undefined) throw new Error(`convertToCapped: ${db}.${tmp} was not created`);
        services.catalog.rename(txn, copy, db, name, source);
      },
      { durable: op.writeConcern.durable },
    );
    services.cursors.killForNamespace(`${db}.${name}`, 'collection converted to capped');
    return withWriteConcernError({}, op.writeConcern, services.config.replSet);
  },
});

/** cloneCollectionAsCapped: find on the source; insert, createIndex and convertToCapped on the target. */
const cloneAuth = privileges<{ readonly toCollection: ArgType<string> }>(
  'find on the source; insert, createIndex, convertToCapped on the target',
  (input) => [
    [
      privilege(targetResource(input), 'find'),
      privilege(
        namespaceResource(input.db, input.args.toCollection ?? ''),
        'insert',
        'createIndex',
        'convertToCapped',
      ),
    ],
  ],
);

export const cloneCollectionAsCapped = defineCommand({
  name: 'cloneCollectionAsCapped',
  auth: cloneAuth,
  args: { toCollection: t.string, size: t.int64, temp: t.ignored },
  traits: { isWrite: true, apiVersion1: false },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const name = targetCollection(inv);
    if (args.toCollection === undefined)
      throw missingFieldError('cloneCollectionAsCapped.toCollection');
    const to = args.toCollection;
    targetCollection({ ...inv, target: to }, { allowSystem: false });
    const size = requireSize('cloneCollectionAsCapped', args.size);
    cappedOptions({ capped: true, size });
    await services.engine.write(
      (txn) => {
        const source = sourceCollection(services, txn, db, name);
        if (
          services.catalog.get(db, to) !== undefined ||
          lookupView(services.catalog, txn, db, to) !== undefined
        )
          throw new CommandError(
            ErrorCode.NamespaceExists,
            `cloneCollectionAsCapped failed - destination collection ${db}.${to} already exists. source: ${db}.${name} destination: ${db}.${to}`,
          );
        copyAsCapped(services, txn, source, to, size);
      },
      { durable: op.writeConcern.durable },
    );
    return withWriteConcernError({}, op.writeConcern, services.config.replSet);
  },
});

export const cappedCommands: CommandDefinition[] = [convertToCapped, cloneCollectionAsCapped];
