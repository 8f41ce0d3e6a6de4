// Where an operation's reads and writes go: straight to the storage engine (each read a
// fresh snapshot, each write its own atomic commit), or into a multi-document transaction
// (reads from its snapshot plus its own writes; writes buffered until commit).

import type { ReadView, WriteTxn } from '../storage/engine.js';
import type { StorageEngine } from '../storage/engine.js';
import type { Transaction } from './transaction.js';

export interface ViewLease {
  readonly view: ReadView;
  release(): void;
}

export interface DataAccess {
  /** The transaction the operation runs in, if any. */
  readonly transaction: Transaction | undefined;
  /** A read view for one unit of reading (a batch); release it before replying. */
  acquireView(): ViewLease;
  /** A write unit: all-or-nothing, and acknowledged as the write concern asks. */
  write<T>(fn: (txn: WriteTxn) => T): Promise<T>;
}

export function engineAccess(engine: StorageEngine, durable: boolean): DataAccess {
  return {
    transaction: undefined,
    acquireView() {
      const snap = engine.snapshot();
      return { view: snap, release: () => snap.release() };
    },
    write: (fn) => engine.write(fn, { durable }),
  };
}

/** Reads pinned to one snapshot (a snapshot read outside a transaction); no writes. */
export function snapshotAccess(snapshot: ReadView): DataAccess {
  return {
    transaction: undefined,
    acquireView: () => ({ view: snapshot, release: () => undefined }),
    write: () => Promise.reject(new Error('writes are not allowed with readConcern snapshot')),
  };
}

export function transactionAccess(transaction: Transaction): DataAccess {
  return {
    transaction,
    acquireView: () => ({ view: transaction.view(), release: () => undefined }),
    // Runs now, on the transaction's view; a throw fails the statement and (in the
    // dispatcher) aborts the transaction, so partial writes of the statement never commit.
    write: (fn) => {
      try {
        return Promise.resolve(fn(transaction.view()));
      } catch (e) {
        return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      }
    },
  };
}
