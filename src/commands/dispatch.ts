// The way of one command: name → registry → checks (database, test-only, admin-only) →
// failpoints → typed arguments → operation context (deadline, write concern) → run → reply
// envelope (ok, cluster time). Every error becomes MongoDB's error reply; a CommandError
// carries its code, anything else is an InternalError and a log line.

import { Double, Int32, Long, Timestamp } from 'bson';
import { Binary } from 'bson';
import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isPlainDocument, numericValue } from '../bson/types.js';
import { validateDatabaseName } from '../catalog/namespace.js';
import { nestingDepthExceeds } from '../catalog/validate-document.js';
import { CommandError, ErrorCode, isCommandError } from '../errors.js';
import { limits } from '../limits.js';
import { parseArgs } from './args.js';
import type { GenericArgs } from './args.js';
import type { ConnectionState, ServerServices } from './context.js';
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

/** Stable API parameters: version "1" only; apiStrict refuses commands outside API Version 1. */
function checkApiVersion(name: string, def: CommandDefinition, args: GenericArgs): void {
  if (args.apiVersion === undefined) {
    if (args.apiStrict !== undefined || args.apiDeprecationErrors !== undefined) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        'Parameters apiStrict and apiDeprecationErrors require apiVersion to be specified',
      );
    }
    return;
  }
  if (args.apiVersion !== '1')
    throw new CommandError(ErrorCode.APIVersionError, 'API version must be "1"');
  if (args.apiStrict === true && def.traits?.apiVersion1 !== true) {
    throw new CommandError(
      ErrorCode.APIStrictError,
      `Provided apiStrict:true, but the command ${name} is not in API Version 1`,
    );
  }
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
    try {
      const r = await this.run(connection, body, legacyDb, running);
      if (r.closeConnection === true) return r;
      reply = r.reply;
      const wce = reply['writeConcernError'];
      const wcCode = isPlainDocument(wce) ? numericValue(wce['code']) : undefined;
      if (wcCode !== undefined) {
        const labels = errorLabelsFor({ command, txnNumber, autocommit, code: undefined, wcCode });
        if (labels.length > 0) reply['errorLabels'] = labels;
      }
    } catch (e) {
      const err = isCommandError(e) ? e : this.internalError(e, body);
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
    } finally {
      this.services.operations.end(running);
    }
    this.addClusterTime(reply);
    return { reply };
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
    if (def === undefined)
      throw new CommandError(ErrorCode.CommandNotFound, `no such command: '${name}'`);
    const services = this.services;
    services.opcounters[def.traits?.counter ?? 'command']++;

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

    const args = parseArgs(name, body, def.args, name, def.strict ?? true);
    if (services.config.auth) {
      checkPrivileges(this.authInput(connection, dbValue, name, body, args), def);
      if (def.auth.requiresAuth !== false) checkSessionOwner(services, connection, body['lsid']);
    }
    checkApiVersion(name, def, args);
    const wc = parseWriteConcern(args.writeConcern);
    checkWriteConcernAllowed(wc, services.config.replSet);
    const maxTimeMS = parseMaxTimeMS(args.maxTimeMS);
    if (args.$clusterTime !== undefined) {
      const ct = args.$clusterTime['clusterTime'];
      if (ct instanceof Timestamp) services.clock.advanceTo(ct);
    }
    // failCommand acts before the session is checked out, as in mongod: an injected error
    // does not touch the transaction (its labels are still computed from the session fields).
    const fp = services.failPoints.failCommand(name, connection.appName);
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
    const bound = bindSession(services, def, name, body, args, wc);
    running.session = bound.binding?.session;
    const op = makeOperationContext(
      maxTimeMS === undefined ? undefined : Date.now() + maxTimeMS,
      wc,
      args.comment,
      bound.access,
      bound.binding,
      bound.atClusterTime,
      running.signal,
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
