// The way of one command: name → registry → checks (database, test-only, admin-only) →
// failpoints → typed arguments → operation context (deadline, write concern) → run → reply
// envelope (ok, cluster time). Every error becomes MongoDB's error reply; a CommandError
// carries its code, anything else is an InternalError and a log line.

import { Double, Int32, Long } from 'bson';
import { Binary } from 'bson';
import { getOwn } from '../bson/document.js';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isPlainDocument, numericValue } from '../bson/types.js';
import { validateDatabaseName } from '../catalog/namespace.js';
import { nestingDepthExceeds } from '../catalog/validate-document.js';
import { CommandError, ErrorCode, isCommandError } from '../errors.js';
import { limits } from '../limits.js';
import { logDocument } from '../log.js';
import { parseArgs } from './args.js';
import type { GenericArgs } from './args.js';
import type { ConnectionState, OpCounters, ServerServices } from './context.js';
import { makeOperationContext } from './context.js';
import type { CommandDefinition, CommandRegistry } from './registry.js';
import { checkWriteConcernAllowed, parseWriteConcern } from './write-concern.js';
import { bindSession, commitOrAbort } from './session-binding.js';
import { errorLabelsFor } from './error-labels.js';
import { CloseConnectionSignal } from './signals.js';
import { interruptibleSleep } from './operations.js';
import type { RunningOperation } from './operations.js';
import {
  checkAuthenticated,
  checkPrivileges,
  checkSessionOwner,
  claimCursor,
  userKeyOf,
} from './authorization.js';
import { gossipClusterTimeIn } from './cluster-time.js';
import { maxTimeOverride } from './testing/failpoints.js';
import type { AuthInput, Requirement } from './registry.js';

export interface DispatchResult {
  readonly reply: BsonDocument;
  /** The failCommand failpoint asked to drop the connection instead of replying. */
  readonly closeConnection?: boolean;
}

function parseMaxTimeMS(v: BsonValue | undefined): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = numericValue(v);
  if (n === undefined) throw new CommandError(ErrorCode.BadValue, 'maxTimeMS must be a number');
  if (!Number.isInteger(n))
    throw new CommandError(ErrorCode.BadValue, 'maxTimeMS has non-integral value');
  if (n < 0)
    throw new CommandError(
      ErrorCode.BadValue,
      `${n} value for maxTimeMS is out of range [0, 2147483647]`,
    );
  if (n > 2147483647)
    throw new CommandError(
      ErrorCode.BadValue,
      `${n} value for maxTimeMS is out of range [0, 2147483647]`,
    );
  return n === 0 ? undefined : n;
}

/** An error injected by failCommand; its errorLabels, when given, replace computed ones. */
export class FailPointError extends CommandError {
  readonly fixedLabels: boolean;
  constructor(code: number, message: string, labels: string[] | undefined) {
    super(code, message, { labels: labels ?? [] });
    this.fixedLabels = labels !== undefined;
  }
}

export function errorReply(e: CommandError): BsonDocument {
  const reply: BsonDocument = {
    ok: new Double(0),
    errmsg: e.message,
    code: new Int32(e.code),
    codeName: e.codeName,
  };
  if (e.info !== undefined) for (const [k, v] of Object.entries(e.info)) reply[k] = v as BsonValue;
  if (e.labels.size > 0) reply['errorLabels'] = [...e.labels];
  return reply;
}

/**
 * Stable API parameters: version "1" (and "2" for the API test commands once acceptApiVersion2
 * is set, as mongod's test builds); apiStrict refuses commands outside the version,
 * apiDeprecationErrors those deprecated in it.
 */
function checkApiVersion(
  services: ServerServices,
  name: string,
  def: CommandDefinition,
  args: GenericArgs,
): void {
  const version = args.apiVersion;
  if (version === undefined) {
    if (args.apiStrict !== undefined || args.apiDeprecationErrors !== undefined) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'Parameters apiStrict and apiDeprecationErrors require apiVersion to be specified',
      );
    }
    return;
  }
  const version2 = version === '2' && services.parameters.get('acceptApiVersion2') === true;
  if (version !== '1' && !version2)
    throw new CommandError(ErrorCode.APIVersionError, 'API version must be "1"');
  const traits = def.traits;
  const inVersion = version2 ? traits?.apiVersion2 === true : traits?.apiVersion1 === true;
  if (args.apiStrict === true && !inVersion) {
    throw new CommandError(
      ErrorCode.APIStrictError,
      `Provided apiStrict:true, but the command ${name} is not in API Version ${version}`,
    );
  }
  if (
    args.apiDeprecationErrors === true &&
    traits?.apiDeprecatedIn?.includes(version2 ? '2' : '1')
  ) {
    throw new CommandError(
      ErrorCode.APIDeprecationError,
      `Provided apiDeprecationErrors:true, but the command ${name} is deprecated in API Version ${version}`,
    );
  }
}

/**
 * mongod's opcounters: insert counts documents (added from the reply), update and delete their
 * statements, query and getmore their commands, command everything else.
 */
function countOperation(counters: OpCounters, def: CommandDefinition, body: BsonDocument): void {
  const kind = def.traits?.counter ?? 'command';
  if (kind === 'insert') return;
  if (kind === 'bulkWrite') {
    // As mongod's bulkWrite: each update and delete operation (inserts come from the reply).
    const ops = body['ops'];
    if (!Array.isArray(ops)) return;
    for (const op of ops) {
      const first = isPlainDocument(op) ? Object.keys(op)[0] : undefined;
      if (first === 'update') counters.update++;
      else if (first === 'delete') counters.delete++;
    }
    return;
  }
  if (kind === 'update' || kind === 'delete') {
    const statements = body[kind === 'update' ? 'updates' : 'deletes'];
    counters[kind] += Array.isArray(statements) ? statements.length : 1;
    return;
  }
  counters[kind]++;
}

export class Dispatcher {
  constructor(
    private readonly services: ServerServices,
    private readonly registry: CommandRegistry,
  ) {}

  async dispatch(
    connection: ConnectionState,
    body: BsonDocument,
    legacyDb?: string,
  ): Promise<DispatchResult> {
    let reply: BsonDocument;
    const command = Object.keys(body)[0] ?? '';
    const txnNumber = numericValue(body['txnNumber']);
    const autocommit = typeof body['autocommit'] === 'boolean' ? body['autocommit'] : undefined;
    const dbName = body['$db'] ?? legacyDb;
    const running = this.services.operations.begin(
      connection,
      body,
      typeof dbName === 'string' ? dbName : '',
    );
    let failed = false;
    try {
      const r = await this.run(connection, body, legacyDb, running);
      if (r.closeConnection === true) return r;
      reply = r.reply;
      failed = reply['ok'] !== undefined && numericValue(reply['ok']) === 0;
      const wce = reply['writeConcernError'];
      const wcCode = isPlainDocument(wce) ? numericValue(wce['code']) : undefined;
      if (wcCode !== undefined) {
        const labels = errorLabelsFor({ command, txnNumber, autocommit, code: undefined, wcCode });
        if (labels.length > 0) reply['errorLabels'] = labels;
      }
    } catch (e) {
      const err = isCommandError(e) ? e : this.internalError(e, body);
      if (this.services.logger.enabled('debug', 'COMMAND'))
        this.services.logger.debug('COMMAND', 21962, 'Assertion while executing command', {
          command: command,
          db: running.ns.slice(0, running.ns.indexOf('.')),
          commandArgs: logDocument(running.command),
          error: { code: err.code, codeName: err.codeName, errmsg: err.message },
        });
      if (!(err instanceof FailPointError && err.fixedLabels)) {
        for (const l of errorLabelsFor({
          command,
          txnNumber,
          autocommit,
          code: err.code,
          wcCode: undefined,
        }))
          err.addLabel(l);
      }
      reply = errorReply(err);
      failed = true;
    }
    try {
      await this.finishOperation(running, reply, failed);
    } finally {
      this.services.operations.end(running);
    }
    this.addTopologyVersion(reply);
    this.addClusterTime(reply);
    return { reply };
  }

  /**
   * Counters, latencies, the slow-operation log and the profiler, once the reply is known
   * (mongod's completeAndLogOperation). Cheap unless the operation is logged or profiled.
   */
  private async finishOperation(
    running: RunningOperation,
    reply: BsonDocument,
    failed: boolean,
  ): Promise<void> {
    const { metrics, opcounters, profiler } = this.services;
    const debug = running.debug;
    const micros = Number(running.elapsedMicros);
    debug.micros = micros;
    const name = running.commandName;
    if (name === undefined) return;
    const counter = metrics.counterFor(name);
    counter.total++;
    if (failed) {
      counter.failed++;
      debug.error = {
        code: numericValue(reply['code']) ?? 0,
        codeName: typeof reply['codeName'] === 'string' ? reply['codeName'] : '',
        errmsg: typeof reply['errmsg'] === 'string' ? reply['errmsg'] : '',
      };
    } else {
      if (name === 'insert' || name === 'update' || name === 'delete')
        debug.fromWriteReply(name, reply);
      else if (name === 'findAndModify') debug.fromFindAndModifyReply(reply);
      const doc = metrics.document;
      doc.returned += debug.nreturned ?? 0;
      doc.inserted += debug.ninserted ?? 0;
      doc.updated += (debug.nMatched ?? 0) + (debug.nUpserted ?? 0);
      doc.deleted += debug.ndeleted ?? 0;
      opcounters.insert += debug.ninserted ?? 0;
    }
    metrics.queryExecutor.scanned += debug.keysExamined ?? 0;
    metrics.queryExecutor.scannedObjects += debug.docsExamined ?? 0;
    metrics.recordLatency(name, running.isWrite, micros);
    metrics.observer?.onCommand(name, micros, failed);
    if (!running.ns.endsWith('.$cmd') && !running.ns.endsWith('.$cmd.aggregate'))
      metrics.recordTop(running.ns, name, running.isWrite, micros);
    const write = profiler.finish(this.services, running, reply);
    if (write !== undefined) await write;
  }

  /**
   * A "not primary" or shutdown error (top level or write concern) carries the server's
   * topologyVersion, as mongod's appendErrorLabelsAndTopologyVersion does: drivers compare it
   * with the one their monitor holds and ignore a stale error instead of marking the server
   * Unknown and waiting for the next (streamed) heartbeat.
   */
  private addTopologyVersion(reply: BsonDocument): void {
    const wce = getOwn(reply, 'writeConcernError');
    const codes = [
      numericValue(getOwn(reply, 'ok')) === 1 ? undefined : numericValue(getOwn(reply, 'code')),
      isPlainDocument(wce) ? numericValue(getOwn(wce, 'code')) : undefined,
    ];
    if (codes.some((c) => c !== undefined && topologyErrorCodes.has(c))) {
      reply['topologyVersion'] = { ...this.services.topology.version };
    }
  }

  private internalError(e: unknown, body: BsonDocument): CommandError {
    const name = Object.keys(body)[0] ?? '';
    this.services.logger.error('COMMAND', 21966, 'Unexpected error running command', {
      command: name,
      error: e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : String(e),
    });
    const message = e instanceof Error ? e.message : String(e);
    return new CommandError(ErrorCode.InternalError, message);
  }

  private addClusterTime(reply: BsonDocument): void {
    if (this.services.config.replSet === '') return;
    const now = this.services.clock.now();
    reply['$clusterTime'] = {
      clusterTime: now,
      signature: { hash: new Binary(Buffer.alloc(20), 0), keyId: Long.fromInt(0) },
    };
    reply['operationTime'] = now;
  }

  /** What a command's privilege declaration sees (AuthInput). */
  private authInput(
    connection: ConnectionState,
    db: string,
    name: string,
    body: BsonDocument,
    args: GenericArgs,
  ): AuthInput {
    const target = body[name];
    return {
      services: this.services,
      connection,
      db,
      target,
      body,
      args,
      name,
      requirementOf: (inner, innerDb) => this.requirementOf(connection, inner, innerDb),
    };
  }

  /** The requirement of a command body that is not run itself (explain's inner command). */
  private requirementOf(connection: ConnectionState, body: BsonDocument, db: string): Requirement {
    const name = Object.keys(body)[0];
    const def = name === undefined ? undefined : this.registry.get(name);
    if (name === undefined || def === undefined) return [[]];
    if (def.auth.requiresAuth === false) return [[]];
    let args: GenericArgs;
    try {
      args = parseArgs(name, body, def.args, name, false);
    } catch {
      args = {};
    }
    return def.auth.required(this.authInput(connection, db, name, body, args));
  }

  private async run(
    connection: ConnectionState,
    body: BsonDocument,
    legacyDb: string | undefined,
    running: RunningOperation,
  ): Promise<DispatchResult> {
    const name = Object.keys(body)[0];
    if (name === undefined)
      throw new CommandError(ErrorCode.CommandNotFound, "no such command: ''");
    const def = this.registry.get(name);
    if (def === undefined) {
      this.services.metrics.counterFor('<UNKNOWN>').total++;
      throw new CommandError(ErrorCode.CommandNotFound, `no such command: '${name}'`);
    }
    const services = this.services;
    running.commandName = def.name;
    running.isWrite = def.traits?.isWrite === true;
    countOperation(services.opcounters, def, body);

    const dbValue = body['$db'] ?? legacyDb;
    if (typeof dbValue !== 'string') {
      throw new CommandError(ErrorCode.Location40571, 'OP_MSG requests require a $db argument');
    }
    validateDatabaseName(dbValue);
    // As mongod's message validation (bson_validate.cpp): a document or array inside more than
    // maxBSONDepth others is refused before any parsing.
    if (nestingDepthExceeds(body, limits.commandDepthMax + 1)) {
      throw new CommandError(
        ErrorCode.Overflow,
        `BSONObj exceeded maximum nested object depth: ${limits.commandDepthMax}`,
      );
    }
    if (def.traits?.testOnly === true && !services.config.enableTestCommands) {
      throw new CommandError(ErrorCode.CommandNotFound, `no such command: '${name}'`);
    }
    if (def.traits?.adminOnly === true && dbValue !== 'admin') {
      throw new CommandError(
        ErrorCode.Unauthorized,
        `${name} may only be run against the admin database.`,
      );
    }

    // Before parsing, as mongod: an unauthenticated client learns nothing of the arguments.
    if (services.config.auth) checkAuthenticated(services, connection, def, name);

    if (services.logger.enabled('debug2', 'COMMAND'))
      services.logger.debug2('COMMAND', 21965, 'About to run the command', {
        db: dbValue,
        client: connection.remote,
        commandArgs: logDocument(running.command),
      });
    const args = parseArgs(name, body, def.args, name, def.strict ?? true);
    if (services.config.auth) {
      checkPrivileges(this.authInput(connection, dbValue, name, body, args), def);
      if (def.auth.requiresAuth !== false) checkSessionOwner(services, connection, body['lsid']);
    }
    checkApiVersion(services, name, def, args);
    const wc = parseWriteConcern(args.writeConcern);
    checkWriteConcernAllowed(wc, services.config.replSet);
    const maxTimeMS = parseMaxTimeMS(args.maxTimeMS);
    if (args.$clusterTime !== undefined && services.config.replSet !== '')
      gossipClusterTimeIn(services, connection, args.$clusterTime);
    // failCommand acts before the session is checked out, as in mongod: an injected error
    // does not touch the transaction (its labels are still computed from the session fields).
    const fp = services.failPoints.failCommand(
      name,
      connection.appName ?? handshakeAppName(name, body),
    );
    let failWriteConcern: BsonValue | undefined;
    if (fp !== undefined) {
      if (fp['closeConnection'] === true) return { reply: {}, closeConnection: true };
      if (fp['blockConnection'] === true) {
        const ms = Math.min(numericValue(fp['blockTimeMS']) ?? 0, limits.failPointBlockTimeMsMax);
        await interruptibleSleep(ms, running.signal);
      }
      const code = numericValue(fp['errorCode']);
      if (code !== undefined) {
        const labels = fp['errorLabels'];
        throw new FailPointError(
          code,
          `Failing command ${name} due to failCommand failpoint`,
          Array.isArray(labels)
            ? labels.filter((l): l is string => typeof l === 'string')
            : undefined,
        );
      }
      failWriteConcern = fp['writeConcernError'];
    }
    const limit = maxTimeMS === undefined ? undefined : maxTimeOverride(services.failPoints);
    if (limit === 'expired')
      throw new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
    const deadlineMs =
      maxTimeMS === undefined || limit === 'unlimited' ? undefined : Date.now() + maxTimeMS;
    // fsync {lock: true} holds writes: a write command waits here, killable, within maxTimeMS.
    if (running.isWrite && services.fsyncLock.locked)
      await services.fsyncLock.waitUnlocked(running.signal, deadlineMs);
    // A replSetStepDown attempt in progress: the node takes no writes (mongod's
    // canAcceptNonLocalWrites is false while it waits for a secondary to catch up).
    if (running.isWrite && services.topology.steppingDown)
      throw new CommandError(ErrorCode.NotWritablePrimary, 'not primary');
    const bound = bindSession(services, def, name, body, args, wc);
    running.session = bound.binding?.session;
    const op = makeOperationContext(
      deadlineMs,
      wc,
      args.comment,
      bound.access,
      bound.binding,
      bound.atClusterTime,
      running.signal,
      running.debug,
      running.status,
    );
    let result: BsonDocument;
    try {
      if (bound.transaction !== undefined) bound.transaction.statements++;
      result = await def.run({
        services,
        connection,
        db: dbValue,
        target: body[name],
        body,
        args,
        op,
        name,
      });
    } catch (e) {
      // A failed statement aborts its transaction, as in mongod: nothing of it may commit.
      if (bound.transaction !== undefined && !commitOrAbort.has(name)) bound.transaction.abort();
      if (e instanceof CloseConnectionSignal) return { reply: {}, closeConnection: true };
      throw e;
    }
    const reply: BsonDocument = { ...result };
    if (services.config.auth) {
      claimCursor(services, connection, reply);
      const session = bound.binding?.session;
      if (session !== undefined) session.owner ??= userKeyOf(connection);
    }
    if (failWriteConcern !== undefined && isPlainDocument(failWriteConcern)) {
      reply['writeConcernError'] = failWriteConcern;
    }
    if (!('ok' in reply)) reply['ok'] = new Double(1);
    return { reply };
  }
}

/** mongod's NotPrimaryError and ShutdownError categories (error_codes.yml). */
const topologyErrorCodes: ReadonlySet<number> = new Set([
  ErrorCode.NotWritablePrimary,
  ErrorCode.NotPrimaryNoSecondaryOk,
  ErrorCode.NotPrimaryOrSecondary,
  ErrorCode.InterruptedDueToReplStateChange,
  ErrorCode.PrimarySteppedDown,
  ErrorCode.LegacyNotPrimary,
  ErrorCode.ShutdownInProgress,
  ErrorCode.InterruptedAtShutdown,
]);

/**
 * The appName a connection's first hello declares: failCommand's appName filter applies to that
 * hello already (drivers' pool and SDAM tests fail the handshake of new connections this way).
 */
function handshakeAppName(name: string, body: BsonDocument): string | undefined {
  if (name !== 'hello' && name !== 'isMaster' && name !== 'ismaster') return undefined;
  const client = getOwn(body, 'client');
  if (!isPlainDocument(client)) return undefined;
  const app = getOwn(client, 'application');
  if (!isPlainDocument(app)) return undefined;
  const appName = getOwn(app, 'name');
  return typeof appName === 'string' ? appName : undefined;
}
