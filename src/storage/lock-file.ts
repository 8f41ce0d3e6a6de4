// The data-directory lock: one secantusd process (and one engine within it) per directory.
//
// LMDB itself lets several processes share an environment, but our engine keeps state in
// memory (the commit sequence, the table-id map) that would go wrong if another process
// wrote behind its back — so a second opener must get DataDirectoryLockedError, not a
// quietly diverging copy.
//
// Mechanism: `<dir>/secantus.lock` holds the owner's pid and is created with O_EXCL, so two
// openers cannot both create it. Node has no flock(), so a crash leaves the file behind; a
// lock whose pid is not alive is stale and taken over. The takeover moves the stale file
// aside with rename() (atomic) and checks that what it moved still names the dead pid
// before deleting it; if a racing opener had already replaced it with a live lock, that lock
// is put back and we report it as held. Then the O_EXCL create decides between racers.
// Known limit: a pid reused by an unrelated live process makes a stale lock look held; the
// error names the pid so an operator can check and delete the file.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { DataDirectoryLockedError } from './engine.js';

export const lockFileName = 'secantus.lock';

/** Lock files held by this process, so a second engine here is refused even though the pid is alive. */
const heldHere = new Set<string>();

export class DirectoryLock {
  private released = false;

  private constructor(
    readonly dir: string,
    readonly file: string,
  ) {}

  /**
   * Take the lock on `dir` (created if missing) or throw DataDirectoryLockedError. `name` is
   * the lock file's name in `dir`: the data directory's by default; the daemon's socket lock
   * (src/server/socket-lock.ts) uses the same mechanism under another name.
   */
  static acquire(dir: string, name: string = lockFileName): DirectoryLock {
    fs.mkdirSync(dir, { recursive: true });
    const real = fs.realpathSync(dir);
    const file = path.join(real, name);
    if (heldHere.has(file)) throw new DataDirectoryLockedError(dir, process.pid);
    // Each round either creates the file, reports a live holder, or removes one stale file;
    // the bound only guards against an unexpected livelock.
    for (let attempt = 0; attempt < 20; attempt++) {
      if (tryCreate(file)) {
        heldHere.add(file);
        return new DirectoryLock(real, file);
      }
      const content = readLock(file);
      if (content === undefined) continue; // removed meanwhile: try to create again
      const pid = parsePid(content);
      if (pid === undefined) {
        // Empty or torn: a creator may be between open() and write(). Give it a moment,
        // then treat an unchanged unreadable file as the leftover of a crash.
        sleepMs(20);
        if (readLock(file) !== content) continue;
      } else if (isAlive(pid)) {
        throw new DataDirectoryLockedError(dir, pid);
      }
      takeOver(file, content, dir);
    }
    throw new DataDirectoryLockedError(dir, undefined);
  }

  /** Remove the lock file if it is still ours. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    heldHere.delete(this.file);
    try {
      if (parsePid(fs.readFileSync(this.file, 'utf8')) === process.pid) fs.unlinkSync(this.file);
    } catch {
      // Already gone (an operator removed it): nothing to release.
    }
  }
}

/**
 * The live process holding the lock file `file`, or undefined when there is none (no file,
 * a torn one, or a dead pid). A look, not a decision: only acquire() decides between racers.
 */
export function lockHolder(file: string): number | undefined {
  let content: string | undefined;
  try {
    content = readLock(file);
  } catch {
    return undefined;
  }
  const pid = content === undefined ? undefined : parsePid(content);
  if (pid === undefined) return undefined;
  if (pid === process.pid) return heldHere.has(file) ? pid : undefined;
  return isAlive(pid) ? pid : undefined;
}

function tryCreate(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(
      file,
      fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY,
      0o644,
    );
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    fs.writeSync(fd, `${process.pid}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

function readLock(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function parsePid(content: string): number | undefined {
  const m = /^(\d+)\n?$/.exec(content);
  if (m === null) return undefined;
  const pid = Number(m[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  // Our own pid in a file we do not hold (heldHere was checked) is a previous incarnation
  // with the same pid — common in containers, where the server is often pid 1.
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function takeOver(file: string, staleContent: string, dir: string): void {
  const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    fs.renameSync(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else removed it
    throw e;
  }
  const moved = readLock(aside);
  if (moved === staleContent) {
    fs.rmSync(aside, { force: true });
    return;
  }
  // We moved a lock a racing opener had just created: put it back and report it as held.
  try {
    fs.linkSync(aside, file);
  } catch {
    // A third opener created one meanwhile; its O_EXCL create won, ours will not.
  }
  fs.rmSync(aside, { force: true });
  throw new DataDirectoryLockedError(dir, moved === undefined ? undefined : parsePid(moved));
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
