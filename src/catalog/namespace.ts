// Database and collection name rules, as mongod enforces them (InvalidNamespace, 73).

import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';

const invalidDbChars = /[/\\. "$\0]/;

export function validateDatabaseName(db: string): void {
  // mongod's one database name with a '$': where external users (X.509, LDAP) are defined.
  if (db === '$external') return;
  if (db.length === 0)
    throw new CommandError(ErrorCode.InvalidNamespace, 'Invalid empty database name');
  if (Buffer.byteLength(db) > limits.databaseNameLengthBytesMax) {
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `db name is too long: '${db.slice(0, 80)}' (max ${limits.databaseNameLengthBytesMax} bytes)`,
    );
  }
  if (invalidDbChars.test(db))
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid database name: '${db}'`);
}

export interface CollectionNameOptions {
  /** Allow `system.*` names that users may create (system.js, system.views handled by callers). */
  readonly allowSystem?: boolean;
}

export function validateCollectionName(
  db: string,
  coll: string,
  options: CollectionNameOptions = {},
): void {
  if (coll.length === 0) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid namespace specified '${db}.'`);
  }
  if (coll.includes('\0') || coll.includes('$') || coll.startsWith('.')) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid collection name: ${coll}`);
  }
  if (
    !options.allowSystem &&
    coll.startsWith('system.') &&
    !userWritableSystemCollections.has(coll)
  ) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid collection name: ${coll}`);
  }
  const full = `${db}.${coll}`;
  if (Buffer.byteLength(full) > limits.namespaceLengthBytesMax) {
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `Fully qualified namespace is too long. Namespace: ${full.slice(0, 120)}... Max: ${limits.namespaceLengthBytesMax}`,
    );
  }
}

/**
 * Whether changes to a collection are replicated (go to the oplog): not those of
 * system.profile, which every node keeps for itself (mongod's NamespaceString::isReplicated).
 */
export function isReplicatedNamespace(coll: string): boolean {
  return coll !== 'system.profile';
}

/** system.* collections a client may create and write directly. */
const userWritableSystemCollections = new Set(['system.js', 'system.profile']);

export function fullName(db: string, coll: string): string {
  return `${db}.${coll}`;
}
