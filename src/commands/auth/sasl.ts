// Authentication: saslStart / saslContinue (SCRAM-SHA-1, SCRAM-SHA-256), hello's
// speculativeAuthenticate and saslSupportedMechs, authenticate (MONGODB-X509 only, as in
// mongod 7.0: the client certificate names an `$external` user) and logout.
//
// Every failure of a SCRAM step answers AuthenticationFailed (18) "Authentication failed.",
// whatever the reason (unknown user, wrong password, garbled message): the reason goes to the
// log, never to the client. A connection authenticates as one user; authenticating again as
// the same user is allowed, as another user is refused (mongod's 5626701 / 5626702).

import { Binary, Double, Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { bsonTypeName, isPlainDocument, numericValue } from '../../bson/types.js';
import { CommandError, ErrorCode, missingFieldError } from '../../errors.js';
import { isScramMechanism, ScramError, ScramServer } from '../../auth/scram.js';
import { t } from '../args.js';
import { authenticatedOnly, noAuth } from '../authorization.js';
import type { ConnectionState, ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { x509Mechanism, x509UserName } from './x509.js';

function authenticationFailed(): CommandError {
  return new CommandError(ErrorCode.AuthenticationFailed, 'Authentication failed.');
}

/**
 * Logs why a login failed (id 20249, as mongod) and returns the error the client gets, which
 * never says why.
 */
function loginFailed(
  services: ServerServices,
  connection: ConnectionState,
  attempt: { mechanism: string; speculative: boolean; user: string; db: string; why: string },
): CommandError {
  services.logger.info('ACCESS', 20249, 'Authentication failed', {
    mechanism: attempt.mechanism,
    speculative: attempt.speculative,
    principalName: attempt.user,
    authenticationDatabase: attempt.db,
    remote: connection.remote,
    error: attempt.why,
  });
  return authenticationFailed();
}

/** A SASL payload: BinData, or a base64 string (replied in the same form). */
function payloadOf(command: string, v: BsonValue | undefined): { bytes: Buffer; base64: boolean } {
  if (v === undefined) throw missingFieldError(`${command}.payload`);
  if (v instanceof Binary)
    return { bytes: Buffer.from(v.buffer.subarray(0, v.position)), base64: false };
  if (typeof v === 'string') return { bytes: Buffer.from(v, 'base64'), base64: true };
  throw new CommandError(
    ErrorCode.TypeMismatch,
    `BSON field '${command}.payload' is the wrong type '${bsonTypeName(v)}', expected types '[string, binData]'`,
  );
}

function replyPayload(bytes: Buffer, base64: boolean): BsonValue {
  return base64 ? bytes.toString('base64') : new Binary(bytes, 0);
}

function iterationsFor(services: ServerServices, mechanism: string): number {
  const name = mechanism === 'SCRAM-SHA-1' ? 'scramIterationCount' : 'scramSHA256IterationCount';
  return (
    numericValue(services.parameters.get(name)) ?? (mechanism === 'SCRAM-SHA-1' ? 10000 : 15000)
  );
}

interface StepContext {
  readonly services: ServerServices;
  readonly connection: ConnectionState;
  readonly speculative: boolean;
}

/** One SCRAM step; on success of the proof, the connection is authenticated. */
function step(ctx: StepContext, payload: Buffer): { payload: Buffer; done: boolean } {
  const { services, connection } = ctx;
  const conv = connection.auth.conversation;
  if (conv === undefined)
    throw new CommandError(ErrorCode.ProtocolError, 'No SASL session state found');
  const wasAuthenticated = conv.scram.authenticated;
  let out: Buffer;
  try {
    out = conv.scram.step(payload, (user) =>
      services.auth.credential(conv.db, user, conv.scram.mechanism),
    );
  } catch (e) {
    connection.auth.conversation = undefined;
    if (!(e instanceof ScramError)) throw e;
    throw loginFailed(services, connection, {
      mechanism: conv.scram.mechanism,
      speculative: ctx.speculative,
      user: conv.scram.user ?? '',
      db: conv.db,
      why: e.message,
    });
  }
  if (conv.scram.authenticated && !wasAuthenticated) {
    if (conv.skipEmptyExchange) conv.scram.finishEarly();
    login(
      services,
      connection,
      conv.db,
      conv.scram.user ?? '',
      conv.scram.mechanism,
      ctx.speculative,
    );
  }
  const done = conv.scram.done;
  if (done) connection.auth.conversation = undefined;
  return { payload: out, done };
}

/** addAndAuthorizeUser: one user per connection; its rights computed now. */
function login(
  services: ServerServices,
  connection: ConnectionState,
  db: string,
  user: string,
  mechanism: string,
  speculative: boolean,
): void {
  const previous = connection.auth.user;
  if (previous !== undefined && !(previous.user === user && previous.db === db)) {
    connection.auth.conversation = undefined;
    const name = `${previous.user}@${previous.db}`;
    if (previous.db === db)
      throw new CommandError(
        ErrorCode.Location5626701,
        `Each client connection may only be authenticated once. Previously authenticated as: ${name}`,
      );
    throw new CommandError(
      ErrorCode.Location5626702,
      `Client has attempted to authenticate on multiple databases.Already authenticated as: ${name}`,
    );
  }
  const loaded = services.auth.loadUser(db, user);
  if (loaded === undefined) {
    connection.auth.conversation = undefined;
    throw authenticationFailed();
  }
  connection.auth.user = loaded;
  services.logger.info('ACCESS', 20250, 'Authentication succeeded', {
    mechanism,
    speculative,
    principalName: user,
    authenticationDatabase: db,
    remote: connection.remote,
  });
}

interface StartRequest {
  readonly mechanism: string | undefined;
  readonly payload: BsonValue | undefined;
  readonly db: string;
  readonly options: BsonDocument | undefined;
}

function start(ctx: StepContext, command: string, req: StartRequest): BsonDocument {
  const { services, connection } = ctx;
  if (req.mechanism === undefined) throw missingFieldError(`${command}.mechanism`);
  const payload = payloadOf(command, req.payload);
  const enabled = services.parameters.get('authenticationMechanisms');
  const mechanism = req.mechanism;
  if (
    !isScramMechanism(mechanism) ||
    req.db === '$external' ||
    (Array.isArray(enabled) && !enabled.includes(mechanism))
  ) {
    throw new CommandError(
      ErrorCode.MechanismUnavailable,
      `Unsupported mechanism '${mechanism}' on authentication database '${req.db}'`,
    );
  }
  connection.auth.conversation = {
    db: req.db,
    scram: new ScramServer(mechanism, iterationsFor(services, mechanism), ctx.speculative),
    skipEmptyExchange: req.options?.['skipEmptyExchange'] === true,
  };
  const r = step(ctx, payload.bytes);
  return {
    conversationId: new Int32(1),
    done: r.done,
    payload: replyPayload(r.payload, payload.base64),
  };
}

export const saslStart = defineCommand({
  name: 'saslStart',
  args: { mechanism: t.string, payload: t.any, autoAuthorize: t.any, options: t.document },
  auth: noAuth,
  run: ({ services, connection, args, db }) =>
    start({ services, connection, speculative: false }, 'saslStart', {
      mechanism: args.mechanism,
      payload: args.payload,
      db,
      options: args.options,
    }),
});

export const saslContinue = defineCommand({
  name: 'saslContinue',
  args: { conversationId: t.number, payload: t.any },
  auth: noAuth,
  run: ({ services, connection, args }) => {
    if (connection.auth.conversation === undefined)
      throw new CommandError(ErrorCode.ProtocolError, 'No SASL session state found');
    if (args.conversationId !== 1) {
      connection.auth.conversation = undefined;
      throw new CommandError(ErrorCode.ProtocolError, 'sasl: Mismatched conversation id');
    }
    const payload = payloadOf('saslContinue', args.payload);
    const r = step({ services, connection, speculative: false }, payload.bytes);
    return {
      conversationId: new Int32(1),
      done: r.done,
      payload: replyPayload(r.payload, payload.base64),
    };
  },
});

/**
 * hello's speculativeAuthenticate: a saslStart carried in the handshake ({saslStart, mechanism,
 * payload, db}). Its reply goes into hello's; any failure is as if it had not been sent.
 */
export function speculativeAuthenticate(
  services: ServerServices,
  connection: ConnectionState,
  doc: BsonDocument,
): BsonDocument | undefined {
  if (typeof doc['db'] !== 'string') return undefined;
  if (doc['authenticate'] !== undefined) {
    // The drivers' speculative MONGODB-X509: {authenticate: 1, mechanism, user?, db: '$external'}.
    if (doc['mechanism'] !== x509Mechanism) return undefined;
    const user = doc['user'];
    try {
      return authenticateX509(
        services,
        connection,
        doc['db'],
        typeof user === 'string' ? user : undefined,
        true,
      );
    } catch {
      return undefined;
    }
  }
  if (doc['saslStart'] === undefined) return undefined;
  try {
    const mechanism = doc['mechanism'];
    return start({ services, connection, speculative: true }, 'saslStart', {
      mechanism: typeof mechanism === 'string' ? mechanism : undefined,
      payload: doc['payload'],
      db: doc['db'],
      options: isPlainDocument(doc['options']) ? doc['options'] : undefined,
    });
  } catch {
    connection.auth.conversation = undefined;
    return undefined;
  }
}

/** hello's saslSupportedMechs: "db.user" → the user's mechanisms; undefined (no field) for no such user. */
export function saslSupportedMechs(services: ServerServices, name: string): string[] | undefined {
  const dot = name.indexOf('.');
  if (dot <= 0) return undefined;
  return services.auth.mechanismsOf(name.slice(0, dot), name.slice(dot + 1));
}

/**
 * MONGODB-X509 (mongod's _authenticateX509): the connection's verified client certificate names
 * the `$external` user, which must exist. Failures answer "Authentication failed." (the reason
 * is logged), but for mongod's ProtocolErrors (no TLS, another database).
 */
function authenticateX509(
  services: ServerServices,
  connection: ConnectionState,
  db: string,
  requestedUser: string | undefined,
  speculative: boolean,
): BsonDocument {
  if (connection.tls === undefined)
    throw new CommandError(
      ErrorCode.ProtocolError,
      'SSL support is required for the MONGODB-X509 mechanism.',
    );
  let user: string;
  try {
    user = x509UserName(connection, db, requestedUser);
  } catch (e) {
    if (!(e instanceof CommandError) || e.code !== ErrorCode.AuthenticationFailed) throw e;
    throw loginFailed(services, connection, {
      mechanism: x509Mechanism,
      speculative,
      user: requestedUser ?? connection.tls.subject ?? '',
      db,
      why: e.message,
    });
  }
  if (services.auth.loadUser(db, user) === undefined) {
    throw loginFailed(services, connection, {
      mechanism: x509Mechanism,
      speculative,
      user,
      db,
      why: `Could not find user "${user}" for db "${db}"`,
    });
  }
  login(services, connection, db, user, x509Mechanism, speculative);
  return { dbname: db, user };
}

export const authenticate = defineCommand({
  name: 'authenticate',
  args: { mechanism: t.string, user: t.string, pwd: t.any, key: t.any, nonce: t.any },
  auth: noAuth,
  run: ({ args, services, connection, db }) => {
    if (args.mechanism === undefined || args.mechanism === '')
      throw new CommandError(ErrorCode.BadValue, 'Auth mechanism not specified');
    if (args.mechanism === x509Mechanism) {
      const reply = authenticateX509(services, connection, db, args.user, false);
      return { ...reply, ok: new Double(1) };
    }
    throw new CommandError(ErrorCode.BadValue, `Unsupported mechanism: ${args.mechanism}`);
  },
});

export const logout = defineCommand({
  name: 'logout',
  args: {},
  auth: authenticatedOnly,
  run: ({ services, connection, db }) => {
    const user = connection.auth.user;
    if (user !== undefined && user.db === db) {
      connection.auth.user = undefined;
      services.logger.info('ACCESS', 5626600, 'Logging out on user request', {
        user: { user: user.user, db: user.db },
      });
    }
    return { ok: new Double(1) };
  },
});

export const saslCommands: CommandDefinition[] = [
  saslStart,
  saslContinue,
  authenticate,
  logout,
] as CommandDefinition[];
