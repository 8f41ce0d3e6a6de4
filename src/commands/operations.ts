// The operations in progress (mongod's CurOp registry): the dispatcher registers every command
// it runs with an opid, the connection it came on and the command document; $currentOp and the
// currentOp command report them, killOp marks one killed. A killed operation notices at its
// next interruption point (OperationContext.checkDeadline, or a wait on its abort signal) and
// fails with Interrupted (11601), as mongod's do. The registry also knows the open client
// connections, for {idleConnections: true}.

import { setOwn } from '../bson/document.js';
import type { BsonDocument } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import { interruptedError } from '../errors.js';
import { sessionKeyOf } from '../txn/sessions.js';
import type { Session } from '../txn/sessions.js';
import type { ConnectionState, CurOpStatus } from './connection.js';
import { OpDebug } from './op-debug.js';

/** mongod's logical operation kinds (logicalOpToString) for the commands that have their own. */
const logicalOps: ReadonlyMap<string, string> = new Map([
  ['find', 'query'],
  ['getMore', 'getmore'],
  ['insert', 'insert'],
  ['update', 'update'],
  ['delete', 'remove'],
  ['killCursors', 'killcursors'],
]);

/**
 * Fields whose values are secrets, per command: replaced before the command is shown or
 * logged (mongod's snipForLogging shows "xxx"). hello's speculativeAuthenticate carries a
 * SASL payload.
 */
const secretFields: ReadonlyMap<string, readonly string[]> = new Map([
  ['createUser', ['pwd']],
  ['updateUser', ['pwd']],
  ['saslStart', ['payload']],
  ['saslContinue', ['payload']],
  ['authenticate', ['key']],
  ['hello', ['speculativeAuthenticate']],
  ['isMaster', ['speculativeAuthenticate']],
  ['ismaster', ['speculativeAuthenticate']],
]);

/** The command document as currentOp shows it: secrets replaced. */
export function redactCommand(body: BsonDocument): BsonDocument {
  const name = Object.keys(body)[0] ?? '';
  const secrets = secretFields.get(name);
  if (secrets === undefined || !secrets.some((f) => f in body)) return body;
  const out: BsonDocument = {};
  for (const [k, v] of Object.entries(body)) setOwn(out, k, secrets.includes(k) ? 'xxx' : v);
  return out;
}

/** The namespace mongod's CurOp reports for a command. */
function namespaceOf(name: string, body: BsonDocument, db: string): string {
  const target = body[name];
  if (name === 'getMore')
    return typeof body['collection'] === 'string' ? `${db}.${body['collection']}` : `${db}.$cmd`;
  if (name === 'aggregate' && typeof target !== 'string') return `${db}.$cmd.aggregate`;
  return typeof target === 'string' && target !== '' ? `${db}.${target}` : `${db}.$cmd`;
}

// Defined with the error table, so modules this one depends on (failpoints) can raise it too.
export { interruptedError };

const helloNames = new Set(['hello', 'isMaster', 'ismaster']);

/** One command in progress. */
export class RunningOperation {
  readonly name: string;
  /** currentOp's `op`: command, query, getmore, insert, update, remove or killcursors. */
  readonly logicalOp: string;
  readonly ns: string;
  /** The command as received, secrets redacted. */
  readonly command: BsonDocument;
  readonly lsid: BsonDocument | undefined;
  /** The key of the logical session the command carries (killSessions finds its ops by it). */
  readonly sessionKey: string | undefined;
  readonly startedAtMs = Date.now();
  /** What the operation did, for its slow-operation line and profile entry. */
  readonly debug = new OpDebug();
  private readonly startedAtNs = process.hrtime.bigint();
  /** The registered command it runs (primary name), once found; and whether it writes. */
  commandName: string | undefined;
  isWrite = false;
  /** The logical session the command runs in, once bound (transaction info, idle sessions). */
  session: Session | undefined;
  /** Message and progress the command reports (currentOp's msg and progress). */
  readonly status: CurOpStatus = {};
  private readonly controller = new AbortController();

  constructor(
    readonly opid: number,
    readonly client: ConnectionState,
    body: BsonDocument,
    readonly db: string,
  ) {
    this.name = Object.keys(body)[0] ?? '';
    this.logicalOp = logicalOps.get(this.name) ?? 'command';
    this.ns = namespaceOf(this.name, body, db);
    this.command = redactCommand(body);
    const lsid = body['lsid'];
    this.lsid = isPlainDocument(lsid) ? lsid : undefined;
    this.sessionKey = sessionKeyOf(this.lsid);
  }

  /** Aborted by killOp; long waits listen to it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** killOp reached it and it has not finished yet (mongod's killPending). */
  get killPending(): boolean {
    return this.controller.signal.aborted;
  }

  kill(): void {
    this.controller.abort();
  }

  get elapsedMicros(): bigint {
    return (process.hrtime.bigint() - this.startedAtNs) / 1000n;
  }
}

/** Waits `ms`, or fails with Interrupted as soon as the operation is killed (opCtx->sleepFor). */
export function interruptibleSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(interruptedError());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(interruptedError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The operations in progress and the open client connections. Each connection runs one request
 * at a time, so the registry holds at most one operation per connection (limits.connectionsMax).
 */
export class OperationRegistry {
  private lastOpid = 0;
  private readonly running = new Map<number, RunningOperation>();
  private readonly clients = new Map<number, ConnectionState>();

  clientOpened(client: ConnectionState): void {
    this.clients.set(client.id, client);
  }

  clientClosed(client: ConnectionState): void {
    this.clients.delete(client.id);
    // A waiting (awaitable) hello has nobody to answer any more: its wait ends with the client.
    for (const op of this.running.values()) {
      if (op.client === client && helloNames.has(op.name)) op.kill();
    }
  }

  /** Registers a command about to run; `end` must follow. */
  begin(client: ConnectionState, body: BsonDocument, db: string): RunningOperation {
    // opids are positive int32 (mongod reports them as int), reused only after 2^31 operations.
    this.lastOpid = this.lastOpid >= 0x7fffffff ? 1 : this.lastOpid + 1;
    const op = new RunningOperation(this.lastOpid, client, body, db);
    this.running.set(op.opid, op);
    return op;
  }

  end(op: RunningOperation): void {
    this.running.delete(op.opid);
    if (op.session !== undefined) op.session.lastConnectionId = op.client.id;
  }

  /** killOp: marks the operation killed. False when no operation has that opid. */
  kill(opid: number): boolean {
    const op = this.running.get(opid);
    if (op === undefined) return false;
    op.kill();
    return true;
  }

  /**
   * killSessions and killAllSessions: kills the operations running in the sessions `inSession`
   * picks (mongod's killSessionsLocalKillOps), except the killing command itself (`self`).
   */
  killInSessions(inSession: (key: string) => boolean, self: AbortSignal): void {
    for (const op of this.running.values()) {
      if (op.signal !== self && op.sessionKey !== undefined && inSession(op.sessionKey)) op.kill();
    }
  }

  /** The operations in progress, by connection. */
  operations(): RunningOperation[] {
    return [...this.running.values()].sort((a, b) => a.client.id - b.client.id);
  }

  connections(): ConnectionState[] {
    return [...this.clients.values()].sort((a, b) => a.id - b.id);
  }

  connection(id: number): ConnectionState | undefined {
    return this.clients.get(id);
  }
}
