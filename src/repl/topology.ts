// The server's topologyVersion (SDAM's awaitable hello): a processId chosen at startup and a
// counter bumped whenever what hello reports about this server changes. An awaitable hello
// (topologyVersion + maxAwaitTimeMS) waits here until the counter moves past the client's, the
// time passes, the operation is killed, or the server shuts down.

import { Long, ObjectId } from 'bson';

export interface TopologyVersionValue {
  readonly processId: ObjectId;
  readonly counter: Long;
}

export class Topology {
  readonly processId = new ObjectId();
  private counter = 0;
  private shuttingDown = false;
  /**
   * A replSetStepDown attempt is waiting for a secondary to catch up (mongod's leader mode
   * kAttemptingStepDown): the node takes no writes until the attempt ends.
   */
  steppingDown = false;
  private readonly waiters = new Set<() => void>();

  get version(): TopologyVersionValue {
    return { processId: this.processId, counter: Long.fromNumber(this.counter) };
  }

  get currentCounter(): number {
    return this.counter;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** A change in what hello reports: every waiting hello answers now. */
  bump(): void {
    this.counter++;
    this.wakeAll();
  }

  /** Shutdown: the counter moves (mongod's quiesce) and no hello waits any more. */
  shutdown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.bump();
  }

  /** How many hellos are waiting (serverStatus' awaitingTopologyChanges). */
  get awaiting(): number {
    return this.waiters.size;
  }

  /**
   * Resolves once the counter differs from `counter`, after `ms`, or when `signal` aborts
   * (the caller checks which). The timer does not keep the process alive.
   */
  waitForChange(counter: number, ms: number, signal: AbortSignal): Promise<void> {
    if (this.counter !== counter || this.shuttingDown || signal.aborted || ms <= 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }

  private wakeAll(): void {
    for (const w of [...this.waiters]) w();
  }
}
