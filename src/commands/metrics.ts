// The server's counters, as serverStatus, top, $collStats latencyStats and the Prometheus
// endpoint read them: operations per command (total, failed), documents returned / inserted /
// updated / deleted, network traffic, and per-namespace time (mongod's Top). The dispatcher and
// the connections bump them; each bump is a property increment, so they cost nothing
// measurable on the hot path.

import { limits } from '../limits.js';

export interface CommandCounter {
  total: number;
  failed: number;
}

/** Top's operation kinds (mongod's Top::UsageMap fields). */
export type TopKind = 'queries' | 'getmore' | 'insert' | 'update' | 'remove' | 'commands';

export interface TopCounter {
  time: number;
  count: number;
}

export interface TopEntry {
  readonly total: TopCounter;
  readonly readLock: TopCounter;
  readonly writeLock: TopCounter;
  readonly queries: TopCounter;
  readonly getmore: TopCounter;
  readonly insert: TopCounter;
  readonly update: TopCounter;
  readonly remove: TopCounter;
  readonly commands: TopCounter;
  /** $collStats latencyStats: reads, writes, commands (microseconds and count). */
  readonly latency: { reads: TopCounter; writes: TopCounter; commands: TopCounter };
}

const counter = (): TopCounter => ({ time: 0, count: 0 });

function newTopEntry(): TopEntry {
  return {
    total: counter(),
    readLock: counter(),
    writeLock: counter(),
    queries: counter(),
    getmore: counter(),
    insert: counter(),
    update: counter(),
    remove: counter(),
    commands: counter(),
    latency: { reads: counter(), writes: counter(), commands: counter() },
  };
}

/** Per-command hook for an external metrics exporter (the Prometheus endpoint). */
export interface CommandObserver {
  onCommand(name: string, micros: number, failed: boolean): void;
}

/** The command kinds Top and latencyStats sort a command into. */
const topKinds: ReadonlyMap<string, TopKind> = new Map([
  ['find', 'queries'],
  ['getMore', 'getmore'],
  ['insert', 'insert'],
  ['update', 'update'],
  ['delete', 'remove'],
]);
const readCommands = new Set(['find', 'getMore', 'aggregate', 'count', 'distinct']);

export class ServerMetrics {
  /** By the command's primary name; unknown names count under `<UNKNOWN>`, as mongod. */
  readonly commands = new Map<string, CommandCounter>();
  readonly document = { deleted: 0, inserted: 0, returned: 0, updated: 0 };
  readonly network = { bytesIn: 0, bytesOut: 0, numRequests: 0 };
  /** Keys and documents examined by reads (serverStatus metrics.queryExecutor). */
  readonly queryExecutor = { scanned: 0, scannedObjects: 0 };
  /** Every operation's time by kind (serverStatus opLatencies), microseconds. */
  readonly opLatencies = { reads: counter(), writes: counter(), commands: counter() };
  /** Connections refused at the connection limit. */
  connectionsRejected = 0;
  readonly top = new Map<string, TopEntry>();
  observer: CommandObserver | undefined;

  counterFor(name: string): CommandCounter {
    let c = this.commands.get(name);
    if (c === undefined) {
      c = { total: 0, failed: 0 };
      this.commands.set(name, c);
    }
    return c;
  }

  /** Any operation, `micros` long (serverStatus opLatencies). */
  recordLatency(command: string, isWrite: boolean, micros: number): void {
    const c = isWrite
      ? this.opLatencies.writes
      : readCommands.has(command)
        ? this.opLatencies.reads
        : this.opLatencies.commands;
    c.time += micros;
    c.count++;
  }

  /** One operation on a collection namespace, `micros` long. */
  recordTop(ns: string, command: string, isWrite: boolean, micros: number): void {
    let e = this.top.get(ns);
    if (e === undefined) {
      if (this.top.size >= limits.topNamespacesMax) return;
      e = newTopEntry();
      this.top.set(ns, e);
    }
    const add = (c: TopCounter): void => {
      c.time += micros;
      c.count++;
    };
    add(e.total);
    add(isWrite ? e.writeLock : e.readLock);
    add(e[topKinds.get(command) ?? 'commands']);
    add(
      isWrite ? e.latency.writes : readCommands.has(command) ? e.latency.reads : e.latency.commands,
    );
  }

  /** A dropped collection's counters go with it (mongod's Top::collectionDropped). */
  forgetNamespace(ns: string): void {
    this.top.delete(ns);
  }
}
