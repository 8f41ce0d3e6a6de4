// Namespaces the tools treat specially, as mongo-tools does.

/** The config collections mongodump dumps and mongorestore replays (the sharding metadata). */
export const configCollectionsKept: ReadonlySet<string> = new Set([
  'chunks',
  'collections',
  'databases',
  'settings',
  'shards',
  'tags',
  'version',
]);

export type SpecialCollection = 'users' | 'roles' | 'version';

/** admin.system.users, .roles and .version: dumped first, restored through _mergeAuthzCollections. */
export function specialCollection(db: string, collection: string): SpecialCollection | undefined {
  if (db !== 'admin') return undefined;
  if (collection === 'system.users') return 'users';
  if (collection === 'system.roles') return 'roles';
  if (collection === 'system.version') return 'version';
  return undefined;
}

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A time-series collection's buckets collection is `system.buckets.<name>` (mongod before
 * 8.3, whose viewless time-series collections keep their buckets under their own name).
 */
export const timeseriesBucketsPrefix = 'system.buckets.';
