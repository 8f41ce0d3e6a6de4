// What the catalog stores about a collection and its indexes (their `_catalog` rows): apart
// from collection.ts so that index-access.ts, which collection.ts uses, reads it without a
// circle.

import type { BsonDocument } from '../bson/types.js';

export interface IndexMeta {
  readonly name: string;
  readonly key: BsonDocument;
  /** The spec as listIndexes reports it: v, key, name and the options given. */
  readonly spec: BsonDocument;
  /** Storage table holding the index entries. */
  readonly ident: string;
  /** Set while the index is being built (src/commands/admin/index-build.ts): the build's UUID. */
  readonly buildUUID?: string;
}

export interface CollectionMeta {
  readonly db: string;
  readonly name: string;
  /** 32 hex digits. */
  readonly uuid: string;
  readonly options: BsonDocument;
  readonly indexes: readonly IndexMeta[];
  /**
   * Indexes being built: not used by reads (nor listed), but kept up to date by every write,
   * so that the build's scan and the writes made meanwhile together fill them.
   */
  readonly building?: readonly IndexMeta[];
  readonly nextIndexIdent: number;
}
