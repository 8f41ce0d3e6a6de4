// What the server reports about its own activity: the documents of $currentOp (one per
// operation in progress, and per idle connection, cursor or transaction when asked), the
// session list of $listSessions / $listLocalSessions, and the commands currentOp (the same
// documents through a $currentOp + $match pipeline, as mongod builds it) and killOp.
//
// Document shapes follow mongod 7.0 (CurOp::reportCurrentOpForClient, CurOp::reportState,
// TransactionParticipant's reports, fillLockerInfo). This server takes no locks and has no
// flow control, so `locks` and `lockStats` are empty and waitingForLock is always false.

import { setOwn } from '../../bson/document.js';
import { calculateObjectSize, Int32, Long, Timestamp } from 'bson';
import * as os from 'node:os';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { bsonTypeName, numericValue } from '../../bson/types.js';
import { formatDocument, formatElement } from '../../bson/format.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import {
  buildPipeline,
  newEnv,
  newScope,
  parsePipeline,
  runToArray,
} from '../../pipeline/index.js';
import type {
  CurrentOpOptions,
  PipelineContext,
  Runtime,
  ServerIntrospection,
} from '../../pipeline/index.js';
import type { ServerCursor } from '../../query/exec/cursor.js';
import type { Session } from '../../txn/sessions.js';
import { lsidWithUid } from '../../txn/sessions.js';
import { genericArgs, t } from '../args.js';
import type { ConnectionState, ServerServices } from '../context.js';
import type { RunningOperation } from '../operations.js';
import { queryFramework, runningPlanSummary } from '../op-debug.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { clusterTimeOf } from '../crud/operation-env.js';
import { authenticatedOnly, privileges, userKeyOf } from '../authorization.js';
import { privilege } from '../../auth/privileges.js';
import { clusterResource } from '../../auth/resource.js';
import type { AuthInput } from '../registry.js';

/** mongod's Date_t::toString(): ISO 8601 in local time with the UTC offset. */
export function localIsoString(d: Date): string {
  const pad = (n: number, w = 2): string => String(Math.trunc(Math.abs(n))).padStart(w, '0');
  const offset = -d.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}` +
    `${sign}${pad(offset / 60)}:${pad(offset % 60)}`
  );
}

/**
 * A command as the currentOp command shows it: past limits.currentOpCommandBytesMax, mongod's
 * {$truncated: "<the command as text, cut and ended with ...>", comment} form.
 */
export function truncateCommand(command: BsonDocument): BsonDocument {
  const max = limits.currentOpCommandBytesMax;
  if (calculateObjectSize(command) <= max) return command;
  const { comment, ...rest } = command;
  let text = formatDocument(rest);
  if (text.length > max) text = `${text.slice(0, max - 3)}...`;
  return comment === undefined ? { $truncated: text } : { $truncated: text, comment };
}

/** `locks` … `flowControlStats`: what mongod's lock and flow-control reports add to an operation. */
function lockFields(): BsonDocument {
  return {
    locks: {},
    waitingForLock: false,
    lockStats: {},
    waitingForFlowControl: false,
    flowControlStats: {},
  };
}

/** The part of a multi-document transaction's report this server can give (reportStashedState). */
function transactionReport(services: ServerServices, session: Session): BsonDocument | undefined {
  const txn = session.transaction;
  if (txn === undefined || txn.state !== 'inProgress') return undefined;
  const parameters: BsonDocument = { txnNumber: Long.fromNumber(txn.txnNumber), autocommit: false };
  if (txn.readConcern !== undefined) parameters['readConcern'] = txn.readConcern;
  const lifetimeSecs =
    numericValue(services.parameters.get('transactionLifetimeLimitSeconds')) ?? 60;
  return {
    parameters,
    readTimestamp: Timestamp.fromNumber(0),
    startWallClockTime: localIsoString(new Date(txn.startedAtMs)),
    timeOpenMicros: Long.fromNumber((Date.now() - txn.startedAtMs) * 1000),
    expiryTime: localIsoString(new Date(txn.startedAtMs + lifetimeSecs * 1000)),
  };
}

class CurrentOpReporter {
  private readonly host: string;
  private readonly now = new Date();

  constructor(private readonly services: ServerServices) {
    this.host = `${os.hostname()}:${services.config.port}`;
  }

  /** Client::reportState and the client metadata (type, host, desc, connectionId, client, appName, clientMetadata). */
  private client(type: string, client: ConnectionState | undefined, desc?: string): BsonDocument {
    const doc: BsonDocument = { type, host: this.host };
    if (client === undefined) {
      if (desc !== undefined) doc['desc'] = desc;
      return doc;
    }
    doc['desc'] = desc ?? `conn${client.id}`;
    doc['connectionId'] = new Int32(client.id);
    doc['client'] = client.remote;
    if (client.appName !== undefined && client.appName !== '') doc['appName'] = client.appName;
    if (client.clientMetadata !== undefined) doc['clientMetadata'] = client.clientMetadata;
    return doc;
  }

  private connection(client: ConnectionState, active: boolean): BsonDocument {
    const doc: BsonDocument = {
      ...this.client('op', client),
      active,
      currentOpTime: localIsoString(this.now),
    };
    // The user the client authenticated as (no impersonation here, so never runBy).
    const user = client.auth.user;
    if (user !== undefined) doc['effectiveUsers'] = [{ user: user.user, db: user.db }];
    doc['threaded'] = true;
    return doc;
  }

  /**
   * A cursor as mongod's GenericCursor serializes it inside a report, without the fields the
   * report carries at its top level (ns, lsid, planSummary): truncateAndSerializeGenericCursor.
   */
  private cursor(c: ServerCursor, truncate: boolean, usedBy?: RunningOperation): BsonDocument {
    const doc: BsonDocument = {
      cursorId: c.id,
      createdDate: new Date(c.createdAt),
      lastAccessDate: new Date(c.lastUsedMs),
      nDocsReturned: Long.fromNumber(c.nReturned),
      nBatchesReturned: Long.fromNumber(c.nBatchesReturned),
      noCursorTimeout: c.options.noCursorTimeout === true,
      tailable: c.options.tailable === true,
      awaitData: c.options.awaitData === true,
    };
    const originating = c.options.originatingCommand;
    if (originating !== undefined)
      doc['originatingCommand'] = truncate ? truncateCommand(originating) : originating;
    if (usedBy !== undefined) doc['operationUsingCursorId'] = Long.fromNumber(usedBy.opid);
    return doc;
  }

  operation(op: RunningOperation, truncate: boolean): BsonDocument {
    const doc = this.connection(op.client, true);
    doc['opid'] = new Int32(op.opid);
    if (op.killPending) doc['killPending'] = true;
    if (op.lsid !== undefined) doc['lsid'] = lsidWithUid(op.lsid);
    const micros = op.elapsedMicros;
    doc['secs_running'] = Long.fromBigInt(micros / 1_000_000n);
    doc['microsecs_running'] = Long.fromBigInt(micros);
    doc['op'] = op.logicalOp;
    doc['ns'] = op.ns;
    doc['command'] = truncate ? truncateCommand(op.command) : op.command;
    const plan = op.debug.plan;
    const planSummary = plan === undefined ? undefined : runningPlanSummary(plan);
    if (planSummary !== undefined) {
      doc['queryFramework'] = queryFramework;
      doc['planSummary'] = planSummary;
    }
    const cursor = op.debug.cursor;
    if (cursor !== undefined) doc['cursor'] = this.cursor(cursor, truncate, op);
    if (op.status.msg !== undefined) doc['msg'] = op.status.msg;
    if (op.status.progress !== undefined) {
      // appendNumber: an int when it fits, as mongod's CurOp does.
      const n = (v: number): Int32 | Long => (v <= 0x7fffffff ? new Int32(v) : Long.fromNumber(v));
      doc['progress'] = { done: n(op.status.progress.done), total: n(op.status.progress.total) };
    }
    doc['numYields'] = new Int32(op.debug.numYields);
    // The transaction the operation runs in (reportUnstashedState).
    const inTransaction =
      op.command['autocommit'] === false &&
      op.session?.transaction?.txnNumber === numericValue(op.command['txnNumber']);
    const txn =
      inTransaction && op.session !== undefined
        ? transactionReport(this.services, op.session)
        : undefined;
    if (txn !== undefined) doc['transaction'] = txn;
    return { ...doc, ...lockFields() };
  }

  idleConnection(client: ConnectionState): BsonDocument {
    return this.connection(client, false);
  }

  idleCursor(cursor: ServerCursor): BsonDocument {
    const doc: BsonDocument = { type: 'idleCursor', host: this.host, ns: cursor.ns };
    const session =
      cursor.options.owner.sessionKey === undefined
        ? undefined
        : this.services.sessions.peek(cursor.options.owner.sessionKey);
    if (session !== undefined) doc['lsid'] = lsidWithUid(session.lsid);
    const planSummary = runningPlanSummary(cursor.plan.stats);
    if (planSummary !== undefined) doc['planSummary'] = planSummary;
    doc['cursor'] = this.cursor(cursor, false);
    return doc;
  }

  /** A session whose transaction is open while no command runs in it (reportStashedState). */
  idleSession(session: Session): BsonDocument | undefined {
    const transaction = transactionReport(this.services, session);
    if (transaction === undefined) return undefined;
    const client =
      session.lastConnectionId === undefined
        ? undefined
        : this.services.operations.connection(session.lastConnectionId);
    const { type, host, desc, ...clientFields } = this.client(
      'idleSession',
      client,
      'inactive transaction',
    );
    return {
      type,
      host,
      desc,
      ...clientFields,
      lsid: lsidWithUid(session.lsid),
      transaction,
      waitingForLock: false,
      active: false,
      locks: {},
      lockStats: {},
    };
  }
}

/** The $currentOp documents: each connection's operation (or the idle connection), then idle cursors, then idle sessions. */
export function currentOpDocuments(
  services: ServerServices,
  options: CurrentOpOptions,
  /** With access control and allUsers false: only this connection's user's operations. */
  onlyUser?: string,
): BsonDocument[] {
  const report = new CurrentOpReporter(services);
  const registry = services.operations;
  const mine = (c: ConnectionState): boolean => onlyUser === undefined || userKeyOf(c) === onlyUser;
  const running = registry.operations().filter((op) => mine(op.client));
  const byClient = new Map(running.map((op) => [op.client.id, op]));
  const out: BsonDocument[] = [];
  for (const client of registry.connections()) {
    if (!mine(client)) continue;
    const op = byClient.get(client.id);
    byClient.delete(client.id);
    if (op !== undefined) out.push(report.operation(op, options.truncateOps));
    else if (options.idleConnections) out.push(report.idleConnection(client));
  }
  // Operations of connections the registry was not told about (none from the listener).
  for (const op of byClient.values()) out.push(report.operation(op, options.truncateOps));
  if (options.idleCursors) {
    for (const c of services.cursors.all())
      if (!c.inUse && (onlyUser === undefined || c.authenticatedUser === onlyUser))
        out.push(report.idleCursor(c));
  }
  if (options.idleSessions) {
    const busy = new Set(running.map((op) => op.session));
    for (const s of services.sessions.all()) {
      if (busy.has(s) || (onlyUser !== undefined && s.owner !== onlyUser)) continue;
      const doc = report.idleSession(s);
      if (doc !== undefined) out.push(doc);
    }
  }
  return out;
}

/** The server's self-report for pipeline stages, as `connection` may see it. */
export function serverIntrospection(
  services: ServerServices,
  connection?: ConnectionState,
): ServerIntrospection {
  const self = connection === undefined ? undefined : userKeyOf(connection);
  return {
    currentOps: (options) =>
      currentOpDocuments(
        services,
        options,
        services.config.auth && !options.allUsers ? (self ?? '') : undefined,
      ),
    sessions: () =>
      [...services.sessions.all()].map((s) => ({ lsid: s.lsid, lastUse: new Date(s.lastUsedMs) })),
    latencyStats: (ns) => {
      const e = services.metrics.top.get(ns);
      if (e === undefined) return undefined;
      const of = (c: { time: number; count: number }): { latency: number; ops: number } => ({
        latency: c.time,
        ops: c.count,
      });
      return {
        reads: of(e.latency.reads),
        writes: of(e.latency.writes),
        commands: of(e.latency.commands),
      };
    },
  };
}

/** BSONElement::trueValue: false for false, null, undefined, zero; true otherwise. */
function trueValue(v: BsonValue | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  const n = numericValue(v);
  return n === undefined ? true : n !== 0;
}

/** The currentOp command's own parameters; every other non-generic field is a filter. */
const currentOpParameters = { $all: t.any, $ownOps: t.any, $truncateOps: t.any };

export const currentOp = defineCommand({
  name: 'currentOp',
  auth: privileges('inprog on the cluster; none with $ownOps', (input) =>
    trueValue(input.body['$ownOps']) ? [[]] : [[privilege(clusterResource, 'inprog')]],
  ),
  args: currentOpParameters,
  strict: false,
  traits: { adminOnly: true },
  run: (inv) => {
    const { services, body } = inv;
    const [, ...fields] = Object.entries(body);
    const filter: BsonDocument = {};
    for (const [k, v] of fields)
      if (!Object.hasOwn(currentOpParameters, k) && !Object.hasOwn(genericArgs, k))
        setOwn(filter, k, v);
    // Outside test mode the command always truncates, as the legacy currentOp did.
    const truncateOps =
      !services.config.enableTestCommands ||
      body['$truncateOps'] === undefined ||
      trueValue(body['$truncateOps']);
    const pipeline = [
      {
        $currentOp: {
          idleConnections: trueValue(body['$all']),
          allUsers: !trueValue(body['$ownOps']),
          truncateOps,
        },
      },
      { $match: filter },
    ];
    const env = newEnv({ now: new Date(), clusterTime: clusterTimeOf(services) });
    const ctx: PipelineContext = {
      env,
      scope: newScope(undefined),
      db: 'admin',
      collection: undefined,
      allowDiskUse: false,
      subPipelineDepth: 0,
      inFacet: false,
      inLookup: false,
      server: serverIntrospection(services, inv.connection),
    };
    const rt: Runtime = {
      catalog: services.catalog,
      db: 'admin',
      frame: env.frame,
      allowDiskUse: false,
      interrupt: () => inv.op.checkDeadline(),
    };
    const built = buildPipeline(parsePipeline(pipeline, ctx), { collection: undefined }, rt);
    const lease = inv.op.access.acquireView();
    try {
      return { inprog: runToArray(built.plan, lease.view, rt) };
    } finally {
      lease.release();
    }
  },
});

/** killOp of an operation that the connection's own user runs (allowed without killop). */
function ownOperation(input: AuthInput): boolean {
  const opid = numericValue(input.body['op']);
  const user = userKeyOf(input.connection);
  if (opid === undefined || user === undefined) return false;
  const op = input.services.operations.operations().find((o) => o.opid === opid);
  return op !== undefined && userKeyOf(op.client) === user;
}

/** mongod's KillOpCmdBase::parseOpId: an integral number within int32. */
function parseOpId(body: BsonDocument): number {
  const v = body['op'];
  if (v === undefined) throw new CommandError(ErrorCode.NoSuchKey, 'Missing expected field "op"');
  const n = numericValue(v);
  if (n === undefined)
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `Expected field "op" to have numeric type, but found ${bsonTypeName(v)}`,
    );
  if (!Number.isInteger(n)) {
    throw new CommandError(
      ErrorCode.BadValue,
      `Expected field "op" to have a value exactly representable as a 64-bit integer, but found ${formatElement('op', v)}`,
    );
  }
  if (n < -2147483648 || n > 2147483647) {
    throw new CommandError(
      ErrorCode.Location26823,
      `invalid op : ${n}. Op ID cannot be represented with 32 bits`,
    );
  }
  return n;
}

export const killOp = defineCommand({
  name: 'killOp',
  auth: privileges("killop on the cluster; none to kill one's own operation", (input) =>
    ownOperation(input) ? [[]] : [[privilege(clusterResource, 'killop')]],
  ),
  args: { op: t.any },
  strict: false,
  traits: { adminOnly: true },
  run: ({ services, body }) => {
    const opid = parseOpId(body);
    services.logger.info('COMMAND', 20482, 'Going to kill op', { opId: opid });
    // Like mongod, killOp succeeds whether or not an operation had that id.
    services.operations.kill(opid);
    return { info: 'attempting to kill op' };
  },
});

/**
 * Test command: mongod writes its session cache to config.system.sessions. $listSessions here
 * reads the cache itself, so there is nothing to do; tests written for mongod call it first.
 */
export const refreshLogicalSessionCacheNow = defineCommand({
  name: 'refreshLogicalSessionCacheNow',
  auth: authenticatedOnly,
  args: {},
  traits: { testOnly: true },
  run: () => ({}),
});

export const currentOpCommands: CommandDefinition[] = [
  currentOp,
  killOp,
  refreshLogicalSessionCacheNow,
];
