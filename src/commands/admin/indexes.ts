// createIndexes, listIndexes, dropIndexes.

import { Int32, Long } from 'bson';
import { compareBson } from '../../bson/compare.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, numericValue } from '../../bson/types.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { Collection, IndexMeta } from '../../catalog/collection.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { WriteTxn } from '../../storage/engine.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { targetCollection } from '../crud/common.js';
import { writeConcernError } from '../write-concern.js';

/** Options an index spec may carry, and what we do with them. */
const acceptedOptions = new Set(['key', 'name', 'v', 'unique', 'sparse', 'background', 'hidden', 'expireAfterSeconds', 'partialFilterExpression', 'ns']);
const notImplementedOptions = new Set(['collation', 'weights', 'default_language', 'language_override', 'textIndexVersion', '2dsphereIndexVersion', 'bits', 'min', 'max', 'wildcardProjection', 'bucketSize', 'storageEngine', 'clustered', 'prepareUnique']);

function defaultIndexName(key: BsonDocument): string {
  return Object.entries(key)
    .map(([k, v]) => `${k}_${typeof v === 'string' ? v : String(numericValue(v) ?? v)}`)
    .join('_');
}

export function validateIndexSpec(raw: BsonValue): BsonDocument {
  if (!isPlainDocument(raw)) throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'createIndexes.indexes' contains an element that is not an object");
  const key = raw['key'];
  if (!isPlainDocument(key)) throw new CommandError(ErrorCode.FailedToParse, "The 'key' field is a required property of an index specification");
  const fields = Object.entries(key);
  if (fields.length === 0) throw new CommandError(ErrorCode.CannotCreateIndex, 'Index keys cannot be an empty field.');
  if (fields.length > limits.indexFieldsMax) {
    throw new CommandError(ErrorCode.CannotCreateIndex, `Index key pattern has ${fields.length} fields; the limit is ${limits.indexFieldsMax}`);
  }
  for (const [field, dir] of fields) {
    if (field === '') throw new CommandError(ErrorCode.CannotCreateIndex, 'Index keys cannot be an empty field.');
    if (typeof dir === 'string') {
      throw new CommandError(ErrorCode.NotImplemented, `index type '${dir}' is not supported yet`);
    }
    const n = numericValue(dir);
    if (n === undefined || n === 0 || Number.isNaN(n)) {
      throw new CommandError(ErrorCode.CannotCreateIndex, `Values in the index key pattern can only be numbers > 0, numbers < 0, or strings. Found: ${field}: ${String(dir)}`);
    }
  }
  for (const opt of Object.keys(raw)) {
    if (notImplementedOptions.has(opt)) throw new CommandError(ErrorCode.NotImplemented, `index option '${opt}' is not supported yet`);
    if (!acceptedOptions.has(opt)) {
      throw new CommandError(ErrorCode.InvalidIndexSpecificationOption, `The field '${opt}' is not valid for an index specification. Specification: ${JSON.stringify(raw)}`);
    }
  }
  if (raw['partialFilterExpression'] !== undefined) {
    throw new CommandError(ErrorCode.NotImplemented, "index option 'partialFilterExpression' is not supported yet");
  }
  const name = raw['name'] ?? defaultIndexName(key);
  if (typeof name !== 'string' || name === '') throw new CommandError(ErrorCode.CannotCreateIndex, 'index name must be a non-empty string');
  if (name === '*') throw new CommandError(ErrorCode.BadValue, "The index name '*' is not valid.");
  const isId = fields.length === 1 && fields[0]?.[0] === '_id';
  if (isId && (raw['unique'] === false || raw['sparse'] === true)) {
    throw new CommandError(ErrorCode.InvalidIndexSpecificationOption, 'The field \'unique\' or \'sparse\' is not valid for an _id index specification.');
  }
  const spec: BsonDocument = { v: new Int32(2), key, name };
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'key' || k === 'name' || k === 'v' || k === 'background' || k === 'ns') continue;
    spec[k] = v;
  }
  return spec;
}

function comparableOptions(spec: BsonDocument): BsonDocument {
  const out: BsonDocument = {};
  for (const k of ['unique', 'sparse', 'expireAfterSeconds', 'partialFilterExpression']) {
    const v = spec[k];
    if (v !== undefined && v !== false) out[k] = v;
  }
  return out;
}

/** Inside a write transaction: add the index and build its entries from existing documents. */
export function buildIndex(txn: WriteTxn, catalog: Catalog, coll: Collection, spec: BsonDocument): Collection {
  const meta: IndexMeta = {
    name: spec['name'] as string,
    key: spec['key'] as BsonDocument,
    spec,
    ident: `i:${coll.meta.uuid}:${coll.meta.nextIndexIdent}`,
  };
  const updated = catalog.updateMeta(txn, coll, {
    ...coll.meta,
    indexes: [...coll.meta.indexes, meta],
    nextIndexIdent: coll.meta.nextIndexIdent + 1,
  });
  const index = updated.index(meta.name);
  if (index === undefined) throw new CommandError(ErrorCode.InternalError, 'index vanished during build');
  for (const rec of updated.scanRecords(txn)) {
    const keys = index.keysFor(rec.doc, txn);
    index.checkInsert(txn, keys, rec.recordId, rec.doc);
    index.addEntries(txn, keys, rec.recordId);
  }
  catalog.observer.onCreateIndex(txn, updated, spec);
  return updated;
}

export const createIndexes = defineCommand({
  name: 'createIndexes',
  args: { indexes: t.array, commitQuorum: t.any, ignoreUnknownIndexOptions: t.bool, isTimeseriesNamespace: t.ignored },
  traits: { isWrite: true, allowedInTransaction: true, apiVersion1: true },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const name = targetCollection(inv, { allowSystem: false });
    if (args.indexes === undefined) throw new CommandError(ErrorCode.Location40414, "BSON field 'createIndexes.indexes' is missing but a required field");
    if (args.indexes.length === 0) throw new CommandError(ErrorCode.BadValue, 'Must specify at least one index to create');
    const specs = args.indexes.map(validateIndexSpec);
    const result = await services.engine.write(
      (txn) => {
        const existed = services.catalog.get(db, name) !== undefined;
        let coll = services.catalog.getOrCreate(txn, db, name);
        const before = coll.indexes.length;
        let created = 0;
        for (const spec of specs) {
          const key = spec['key'] as BsonDocument;
          const sameName = coll.meta.indexes.find((i) => i.name === spec['name']);
          const sameKey = coll.meta.indexes.find((i) => compareBson(i.key, key) === 0 && sameKeyOrder(i.key, key));
          if (sameName !== undefined) {
            if (compareBson(sameName.key, key) !== 0 || !sameKeyOrder(sameName.key, key)) {
              throw new CommandError(
                ErrorCode.IndexKeySpecsConflict,
                `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName.spec)}`,
              );
            }
            if (compareBson(comparableOptions(sameName.spec), comparableOptions(spec)) !== 0) {
              throw new CommandError(ErrorCode.IndexOptionsConflict, `An equivalent index already exists with the same name but different options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName.spec)}`);
            }
            continue;
          }
          if (sameKey !== undefined) {
            if (compareBson(comparableOptions(sameKey.spec), comparableOptions(spec)) === 0) {
              throw new CommandError(ErrorCode.IndexOptionsConflict, `Index already exists with a different name: ${sameKey.name}`);
            }
            throw new CommandError(ErrorCode.IndexOptionsConflict, `An equivalent index already exists with a different name and options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameKey.spec)}`);
          }
          if (coll.indexes.length >= limits.indexesPerCollectionMax) {
            throw new CommandError(ErrorCode.CannotCreateIndex, `add index fails, too many indexes for ${db}.${name} key:${JSON.stringify(key)}`);
          }
          coll = buildIndex(txn, services.catalog, coll, spec);
          created++;
        }
        return { existed, before, after: coll.indexes.length, created };
      },
      { durable: op.writeConcern.durable },
    );
    const reply: BsonDocument = {
      numIndexesBefore: new Int32(result.before),
      numIndexesAfter: new Int32(result.after),
      createdCollectionAutomatically: !result.existed,
    };
    if (result.created === 0) reply['note'] = 'all indexes already exist';
    const wce = writeConcernError(op.writeConcern, services.config.replSet);
    if (wce !== undefined) reply['writeConcernError'] = wce;
    return reply;
  },
});

function sameKeyOrder(a: BsonDocument, b: BsonDocument): boolean {
  return Object.keys(a).join('\0') === Object.keys(b).join('\0');
}

export const listIndexes = defineCommand({
  name: 'listIndexes',
  args: { cursor: t.document, includeBuildUUIDs: t.ignored, includeIndexBuildInfo: t.ignored },
  traits: { allowedInTransaction: false, apiVersion1: true },
  run: (inv) => {
    const { services, db } = inv;
    const name = targetCollection(inv);
    const coll = services.catalog.get(db, name);
    if (coll === undefined) throw new CommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${db}.${name}`);
    return { cursor: { id: Long.ZERO, ns: `${db}.$cmd.listIndexes.${name}`, firstBatch: coll.meta.indexes.map((i) => i.spec) } };
  },
});

export const dropIndexes = defineCommand({
  name: 'dropIndexes',
  aliases: ['deleteIndexes'],
  args: { index: t.any },
  traits: { isWrite: true, apiVersion1: true },
  run: async (inv) => {
    const { services, args, db, op } = inv;
    const name = targetCollection(inv);
    const which = args.index;
    if (which === undefined) throw new CommandError(ErrorCode.Location40414, "BSON field 'dropIndexes.index' is missing but a required field");
    const nIndexesWas = await services.engine.write(
      (txn) => {
        const coll = services.catalog.get(db, name);
        if (coll === undefined) throw new CommandError(ErrorCode.NamespaceNotFound, `ns not found ${db}.${name}`);
        const toDrop = selectIndexes(coll, which);
        for (const meta of toDrop) txn.clearTable(meta.ident);
        const keep = coll.meta.indexes.filter((i) => !toDrop.includes(i));
        const updated = services.catalog.updateMeta(txn, coll, { ...coll.meta, indexes: keep });
        for (const meta of toDrop) services.catalog.observer.onDropIndex(txn, updated, meta.spec);
        return coll.indexes.length;
      },
      { durable: op.writeConcern.durable },
    );
    const reply: BsonDocument = { nIndexesWas: new Int32(nIndexesWas) };
    const wce = writeConcernError(op.writeConcern, services.config.replSet);
    if (wce !== undefined) reply['writeConcernError'] = wce;
    return reply;
  },
});

function selectIndexes(coll: Collection, which: BsonValue): IndexMeta[] {
  if (which === '*') return coll.meta.indexes.filter((i) => i.name !== '_id_');
  const names: IndexMeta[] = [];
  const byName = (n: string): IndexMeta => {
    if (n === '_id_') throw new CommandError(ErrorCode.InvalidOptions, 'cannot drop _id index');
    const m = coll.meta.indexes.find((i) => i.name === n);
    if (m === undefined) throw new CommandError(ErrorCode.IndexNotFound, `index not found with name [${n}]`);
    return m;
  };
  if (typeof which === 'string') return [byName(which)];
  if (Array.isArray(which)) {
    for (const n of which) {
      if (typeof n !== 'string') throw new CommandError(ErrorCode.TypeMismatch, 'dropIndexes index names must be strings');
      names.push(byName(n));
    }
    return names;
  }
  if (isPlainDocument(which)) {
    const matches = coll.meta.indexes.filter((i) => compareBson(i.key, which) === 0 && sameKeyOrder(i.key, which));
    if (matches.length === 0) throw new CommandError(ErrorCode.IndexNotFound, `can't find index with key: ${JSON.stringify(which)}`);
    if (matches.length > 1) throw new CommandError(ErrorCode.AmbiguousIndexKeyPattern, `${matches.length} indexes found for key: ${JSON.stringify(which)}, identify by name instead.`);
    const m = matches[0] as IndexMeta;
    if (m.name === '_id_') throw new CommandError(ErrorCode.InvalidOptions, 'cannot drop _id index');
    return [m];
  }
  throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'dropIndexes.index' is the wrong type");
}

export const indexCommands: CommandDefinition[] = [createIndexes, listIndexes, dropIndexes];
