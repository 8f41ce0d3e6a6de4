// Checks and errors common to every engine. They run before an engine touches its own
// structures, so a rejected put leaves the transaction usable and both engines reject the
// same inputs the same way.

import type { Bytes } from './engine.js';
import { KeyTooLongError } from './engine.js';
import { InvariantError } from '../errors.js';

/**
 * Longest table name, in UTF-16 code units. The lmdb engine stores names losslessly as
 * UTF-16 (a JS string may hold lone surrogates that UTF-8 would merge), so 512 units are at
 * most 1024 bytes: within LMDB's key limit, and well above mongod's 255-byte namespaces plus
 * index-name suffixes.
 * TODO(limits): move to src/limits.ts as storageTableNameLengthMax.
 */
export const tableNameLengthMax = 512;

/**
 * Longest key the engines accept by default: LMDB's default-build limit (1978 bytes) minus
 * the longest table prefix the lmdb engine adds (4 bytes). The memory engine uses the same
 * number so that code tested against it meets the limit it will meet in production.
 */
export const defaultMaxKeyBytes = 1974;

export function checkTableName(table: string): void {
  if (typeof table !== 'string') throw new TypeError('table name must be a string');
  if (table.length > tableNameLengthMax) {
    throw new RangeError(
      `table name of ${table.length} UTF-16 units exceeds the limit of ${tableNameLengthMax}`,
    );
  }
}

export function checkKey(key: Bytes, maxKeyBytes: number): void {
  if (!(key instanceof Uint8Array)) throw new TypeError('key must be a Uint8Array');
  if (key.length > maxKeyBytes) throw new KeyTooLongError(key.length, maxKeyBytes);
}

export function checkValue(value: Bytes): void {
  if (!(value instanceof Uint8Array)) throw new TypeError('value must be a Uint8Array');
}

/** Writes or reads on an engine after `close()`. */
export class StorageClosedError extends Error {
  constructor() {
    super('the storage engine is closed');
    this.name = 'StorageClosedError';
  }
}

/**
 * A write callback returned a promise: it must be synchronous, because the transaction is
 * over when it returns. Rejected (and rolled back) rather than half-applied.
 */
export function checkSynchronousResult(result: unknown): void {
  if (
    result !== null &&
    (typeof result === 'object' || typeof result === 'function') &&
    typeof (result as { then?: unknown }).then === 'function'
  ) {
    throw new InvariantError('a storage write callback returned a promise; it must be synchronous');
  }
}

/**
 * Runs an engine's write callback on its transaction and ends the transaction either way: the
 * callback's result, or undefined once `reject` has its error (or the promise it wrongly
 * returned); the engine then publishes nothing.
 */
export function runWriteCallback<X extends { end(): void }, T>(
  txn: X,
  fn: (txn: X) => T,
  reject: (e: unknown) => void,
): { readonly result: T } | undefined {
  let result: T;
  try {
    result = fn(txn);
    checkSynchronousResult(result);
  } catch (e) {
    txn.end();
    reject(e);
    return undefined;
  }
  txn.end();
  return { result };
}

export function useAfterEnd(what: string): InvariantError {
  return new InvariantError(`${what} used after it ended`);
}
