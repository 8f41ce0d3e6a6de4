// Resources a privilege applies to, as mongod's ResourcePattern: the cluster, any resource,
// any normal collection, a database, a collection name in any database, one namespace, and the
// time-series bucket forms. A pattern is kept as a short string key so that a user's
// privileges are one Map lookup per candidate pattern.
//
// A check on a target resource looks up the patterns that could match it (mongod's
// ResourcePatternSearchList): a normal collection test.c is matched by {anyResource}, by any
// normal resource (except in local and config), by the database test, by the collection name c
// in any database and by test.c itself; a system collection only by {anyResource}, its name and
// itself.

import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';

export type ResourcePattern =
  | { readonly kind: 'any' }
  | { readonly kind: 'cluster' }
  | { readonly kind: 'anyNormal' }
  | { readonly kind: 'database'; readonly db: string }
  | { readonly kind: 'collection'; readonly coll: string }
  | { readonly kind: 'namespace'; readonly db: string; readonly coll: string }
  | { readonly kind: 'anySystemBuckets' }
  | { readonly kind: 'systemBucketsInDatabase'; readonly db: string }
  | { readonly kind: 'systemBucketsAnyDatabase'; readonly coll: string }
  | { readonly kind: 'systemBuckets'; readonly db: string; readonly coll: string };

export const anyResource: ResourcePattern = { kind: 'any' };
export const clusterResource: ResourcePattern = { kind: 'cluster' };
export const anyNormalResource: ResourcePattern = { kind: 'anyNormal' };

export function databaseResource(db: string): ResourcePattern {
  return { kind: 'database', db };
}

export function namespaceResource(db: string, coll: string): ResourcePattern {
  return { kind: 'namespace', db, coll };
}

export function collectionNameResource(coll: string): ResourcePattern {
  return { kind: 'collection', coll };
}

const bucketsPrefix = 'system.buckets.';

/** The pattern's key: equal keys, equal patterns (database names never contain '.'). */
export function patternKey(p: ResourcePattern): string {
  switch (p.kind) {
    case 'any':
      return 'any';
    case 'cluster':
      return 'cluster';
    case 'anyNormal':
      return 'normal';
    case 'database':
      return `db:${p.db}`;
    case 'collection':
      return `coll:${p.coll}`;
    case 'namespace':
      return `ns:${p.db}.${p.coll}`;
    case 'anySystemBuckets':
      return 'buckets';
    case 'systemBucketsInDatabase':
      return `bucketsdb:${p.db}`;
    case 'systemBucketsAnyDatabase':
      return `bucketscoll:${p.coll}`;
    case 'systemBuckets':
      return `bucketsns:${p.db}.${p.coll}`;
  }
}

/** Not a system collection and no '$' in the name (mongod's NamespaceString::isNormalCollection). */
export function isNormalCollection(coll: string): boolean {
  return !coll.startsWith('system.') && !coll.includes('$');
}

function normalDatabase(db: string): boolean {
  return db !== 'local' && db !== 'config';
}

/** The keys of every pattern that matches `target`, most general first. */
export function searchKeys(target: ResourcePattern): string[] {
  const keys = ['any'];
  switch (target.kind) {
    case 'any':
      return keys;
    case 'namespace': {
      const { db, coll } = target;
      if (isNormalCollection(coll)) {
        if (normalDatabase(db)) keys.push('normal');
        keys.push(`db:${db}`);
      } else if (coll.length > bucketsPrefix.length && coll.startsWith(bucketsPrefix)) {
        const base = coll.slice(bucketsPrefix.length);
        keys.push(`bucketsns:${db}.${base}`, 'buckets', `bucketsdb:${db}`, `bucketscoll:${base}`);
      }
      keys.push(`coll:${coll}`);
      break;
    }
    case 'database':
      if (normalDatabase(target.db)) keys.push('normal');
      break;
    default:
      break;
  }
  keys.push(patternKey(target));
  return keys;
}

/** The pattern's database, for patterns tied to one ('' otherwise). */
export function patternDatabase(p: ResourcePattern): string {
  switch (p.kind) {
    case 'database':
    case 'namespace':
    case 'systemBucketsInDatabase':
    case 'systemBuckets':
      return p.db;
    default:
      return '';
  }
}

/** The resource document mongod shows for a pattern (rolesInfo, connectionStatus). */
export function patternToDocument(p: ResourcePattern): BsonDocument {
  switch (p.kind) {
    case 'any':
      return { anyResource: true };
    case 'cluster':
      return { cluster: true };
    case 'anyNormal':
      return { db: '', collection: '' };
    case 'database':
      return { db: p.db, collection: '' };
    case 'collection':
      return { db: '', collection: p.coll };
    case 'namespace':
      return { db: p.db, collection: p.coll };
    case 'anySystemBuckets':
      return { db: '', system_buckets: '' };
    case 'systemBucketsInDatabase':
      return { db: p.db, system_buckets: '' };
    case 'systemBucketsAnyDatabase':
      return { db: '', system_buckets: p.coll };
    case 'systemBuckets':
      return { db: p.db, system_buckets: p.coll };
  }
}

function badResource(message: string): CommandError {
  return new CommandError(ErrorCode.BadValue, message);
}

/** A privilege's `resource` document, as createRole and grantPrivilegesToRole accept it. */
export function patternFromDocument(v: BsonValue | undefined): ResourcePattern {
  if (!isPlainDocument(v)) throw badResource("Privilege document must contain a 'resource' object");
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] === 'cluster') {
    if (v['cluster'] !== true)
      throw badResource('resource: {cluster: true} is the only cluster form');
    return clusterResource;
  }
  if (keys.length === 1 && keys[0] === 'anyResource') {
    if (v['anyResource'] !== true)
      throw badResource('resource: {anyResource: true} is the only anyResource form');
    return anyResource;
  }
  const db = v['db'];
  if (typeof db !== 'string') throw badResource("resource must have a string 'db' field");
  if (keys.length === 2 && typeof v['collection'] === 'string') {
    const coll = v['collection'];
    if (db === '' && coll === '') return anyNormalResource;
    if (db === '') return collectionNameResource(coll);
    if (coll === '') return databaseResource(db);
    return namespaceResource(db, coll);
  }
  if (keys.length === 2 && typeof v['system_buckets'] === 'string') {
    const coll = v['system_buckets'];
    if (db === '' && coll === '') return { kind: 'anySystemBuckets' };
    if (db === '') return { kind: 'systemBucketsAnyDatabase', coll };
    if (coll === '') return { kind: 'systemBucketsInDatabase', db };
    return { kind: 'systemBuckets', db, coll };
  }
  throw badResource(
    'resource must be {cluster: true}, {anyResource: true}, {db, collection} or {db, system_buckets}',
  );
}
