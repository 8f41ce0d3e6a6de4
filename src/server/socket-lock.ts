// The Unix domain socket of a daemon (secantusd --unixSocket, open({ multiProcess: true })):
// whoever holds `<socket>.lock` owns the socket path. The owner may remove a socket file left
// by a killed daemon before it listens, and a starter that finds the lock held by a live
// process knows a daemon is on its way and waits for it instead of starting another one.
//
// The daemon takes this lock before the data directory's and gives it back after the
// storage is closed, so a second daemon for the same socket never reaches the data lock
// while the first still holds it: a data directory refused to the holder of the socket lock
// is held by something else (an open() without multiProcess, a daemon started by hand).

import { basename, dirname, join } from 'node:path';
import { realpathSync } from 'node:fs';
import { DataDirectoryLockedError } from '../storage/engine.js';
import { DirectoryLock, lockHolder } from '../storage/lock-file.js';

export class SocketInUseError extends Error {
  constructor(
    readonly socketPath: string,
    readonly holderPid: number | undefined,
  ) {
    super(
      `the socket ${socketPath} belongs to another secantusd process` +
        (holderPid === undefined ? '' : ` (pid ${holderPid})`),
    );
    this.name = 'SocketInUseError';
  }
}

/** The lock file of a socket path: `<socket>.lock`, beside it. */
export function socketLockFile(socketPath: string): string {
  return join(realpathSync(dirname(socketPath)), `${basename(socketPath)}.lock`);
}

/** Take the socket's lock or throw SocketInUseError. */
export function lockSocket(socketPath: string): DirectoryLock {
  try {
    return DirectoryLock.acquire(dirname(socketPath), `${basename(socketPath)}.lock`);
  } catch (e) {
    if (e instanceof DataDirectoryLockedError) throw new SocketInUseError(socketPath, e.holderPid);
    throw e;
  }
}

/** The live process holding the socket's lock, if any (a look, not a decision). */
export function socketOwner(socketPath: string): number | undefined {
  try {
    return lockHolder(socketLockFile(socketPath));
  } catch {
    return undefined; // the directory is gone: nobody
  }
}
