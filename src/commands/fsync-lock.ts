// fsync {lock: true} and fsyncUnlock (mongod's FSyncCommand): the lock flushes storage, then
// holds every write until the last unlock; reads go on. Locks nest (lockCount). A write command
// waiting for the lock can be killed (killOp) or time out (maxTimeMS); every other writer (a
// transaction's commit, TTL deletes, $out) waits in the storage wrapper
// (src/txn/tracked-engine.ts). Shutdown releases the lock, as mongod does.

import type { Logger } from '../log.js';
import type { TrackedEngine } from '../txn/tracked-engine.js';
import { CommandError, ErrorCode } from '../errors.js';
import { interruptedError } from './operations.js';

export class FsyncLock {
  private count = 0;

  constructor(
    private readonly engine: TrackedEngine,
    private readonly logger: Logger,
  ) {}

  get lockCount(): number {
    return this.count;
  }

  get locked(): boolean {
    return this.count > 0;
  }

  /** Flush, then hold writes; returns the new lock count. */
  async lock(): Promise<number> {
    this.count++;
    if (this.count === 1) {
      this.engine.holdWrites();
      try {
        await this.engine.flush();
      } catch (e) {
        this.count = 0;
        this.engine.releaseWrites();
        this.logger.warn('COMMAND', 20468, 'fsyncLock failed. Lock count reset to 0', {
          error: e instanceof Error ? e.message : String(e),
        });
        throw new CommandError(ErrorCode.CommandFailed, e instanceof Error ? e.message : String(e));
      }
    }
    this.logger.info(
      'COMMAND',
      20462,
      'mongod is locked and no writes are allowed. db.fsyncUnlock() to unlock',
    );
    this.logger.info('COMMAND', 20463, 'Lock count is {getLockCount}', {
      getLockCount: this.count,
    });
    return this.count;
  }

  /** Returns the lock count after, or undefined when it was not locked. */
  unlock(): number | undefined {
    if (this.count === 0) return undefined;
    this.count--;
    if (this.count === 0) {
      this.engine.releaseWrites();
      this.logger.info(
        'COMMAND',
        20467,
        'fsyncUnlock completed. mongod is now unlocked and free to accept writes',
      );
    } else {
      this.logger.info('COMMAND', 20466, 'fsyncUnlock completed', { lockCount: this.count });
    }
    return this.count;
  }

  /** Shutdown: every lock goes. */
  releaseAll(): void {
    if (this.count === 0) return;
    this.logger.warn('COMMAND', 20469, 'Interrupting fsync because the server is shutting down.');
    this.count = 0;
    this.engine.releaseWrites();
  }

  /**
   * A write command waits here while the server is locked: until the unlock, its deadline, or
   * killOp.
   */
  async waitUnlocked(signal: AbortSignal, deadlineMs: number | undefined): Promise<void> {
    while (this.engine.writesHeld) {
      if (signal.aborted) throw interruptedError();
      if (deadlineMs !== undefined && Date.now() >= deadlineMs)
        throw new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
      await new Promise<void>((resolve) => {
        const timer =
          deadlineMs === undefined
            ? undefined
            : setTimeout(done, Math.max(0, deadlineMs - Date.now()) + 1);
        function done(): void {
          if (timer !== undefined) clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
        void this.engine.writesAllowed().then(done);
      });
    }
  }
}
