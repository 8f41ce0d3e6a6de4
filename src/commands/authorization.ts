// Access control in the dispatcher: the helpers commands use to declare what they need, the
// check made before a command runs, and mongod's Unauthorized messages.
//
// The order is mongod's: before the arguments are parsed, a command that requires
// authentication is refused to an unauthenticated client ("command X requires
// authentication"); once parsed, the privileges the command declares for this request must be
// held by the authenticated user ("not authorized on <db> to execute command { … }"). With
// access control off nothing here runs.

import type { BsonDocument, BsonValue } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import { formatDocument } from '../bson/format.js';
import type { ActionType } from '../auth/actions.js';
import type { Privilege } from '../auth/privileges.js';
import { privilege, PrivilegeSet } from '../auth/privileges.js';
import type { ResourcePattern } from '../auth/resource.js';
import {
  anyNormalResource,
  clusterResource,
  databaseResource,
  namespaceResource,
} from '../auth/resource.js';
import { Long } from 'bson';
import { CommandError, ErrorCode } from '../errors.js';
import { limits } from '../limits.js';
import type { ServerCursor } from '../query/exec/cursor.js';
import { sessionKeyOf } from '../txn/sessions.js';
import type { ArgSpec } from './args.js';
import type { ConnectionState, ServerServices } from './context.js';
import { redactCommand } from './operations.js';
import type { AuthInput, CommandAuth, CommandDefinition, Requirement } from './registry.js';

/** Allowed before authentication (hello, ping, saslStart, ...). */
export const noAuth = { requiresAuth: false } as const;

/** Any authenticated user; the command itself limits what it shows or touches (own cursors, sessions). */
export const authenticatedOnly: CommandAuth = {
  required: () => [[]],
  summary: 'any authenticated user',
};

/** The command's own collection (`find: "c"` → db.c); the database when it names none. */
export function targetResource(input: {
  readonly db: string;
  readonly target: BsonValue | undefined;
}): ResourcePattern {
  return typeof input.target === 'string' && input.target !== ''
    ? namespaceResource(input.db, input.target)
    : databaseResource(input.db);
}

export function onCollection<S extends ArgSpec = ArgSpec>(
  ...actions: ActionType[]
): CommandAuth<S> {
  return {
    required: (input) => [[privilege(targetResource(input), ...actions)]],
    summary: `${actions.join(', ')} on the collection`,
  };
}

export function onDatabase<S extends ArgSpec = ArgSpec>(...actions: ActionType[]): CommandAuth<S> {
  return {
    required: (input) => [[privilege(databaseResource(input.db), ...actions)]],
    summary: `${actions.join(', ')} on the database`,
  };
}

export function onCluster<S extends ArgSpec = ArgSpec>(...actions: ActionType[]): CommandAuth<S> {
  return {
    required: () => [[privilege(clusterResource, ...actions)]],
    summary: `${actions.join(', ')} on the cluster`,
  };
}

/** A declaration computed from the request. */
export function privileges<S extends ArgSpec = ArgSpec>(
  summary: string,
  required: (input: AuthInput<S>) => Requirement,
): CommandAuth<S> {
  return { required, summary };
}

/** The user a connection acts as, in mongod's "user@db" form; undefined when none. */
export function userKeyOf(connection: ConnectionState): string | undefined {
  const u = connection.auth.user;
  return u === undefined ? undefined : `${u.user}@${u.db}`;
}

/** mongod's message for a refused command: the command as received, secrets replaced. */
export function unauthorized(db: string, body: BsonDocument): CommandError {
  let text = formatDocument(redactCommand(body));
  if (text.length > limits.unauthorizedCommandTextMax)
    text = `${text.slice(0, limits.unauthorizedCommandTextMax - 3)}...`;
  return new CommandError(
    ErrorCode.Unauthorized,
    `not authorized on ${db} to execute command ${text}`,
  );
}

/**
 * The privileges a connection holds now: its user's (refreshed when users or roles changed), or,
 * under the localhost exception, the few that let a local client create the first user.
 */
export function currentPrivileges(
  services: ServerServices,
  connection: ConnectionState,
): PrivilegeSet | undefined {
  const auth = services.auth;
  auth.refresh(connection);
  if (connection.auth.user !== undefined) return connection.auth.user.privileges;
  return auth.localhostBypass(connection) ? localhostPrivileges : undefined;
}

/** mongod's default privileges under the localhost exception (AuthorizationSession::getDefaultPrivileges). */
const localhostPrivileges = new PrivilegeSet();
localhostPrivileges.addAll([
  privilege(databaseResource('admin'), 'createUser', 'grantRole'),
  privilege(databaseResource('$external'), 'createUser'),
  privilege(clusterResource, 'addShard', 'replSetConfigure', 'replSetGetStatus'),
]);

/** Whether `held` meets one of the requirement's alternatives. */
export function meets(held: PrivilegeSet | undefined, requirement: Requirement): boolean {
  if (held === undefined) return false;
  return requirement.some((all) => held.covers(all));
}

/** Before parsing: an unauthenticated client may run only the allowlist. */
export function checkAuthenticated(
  services: ServerServices,
  connection: ConnectionState,
  def: CommandDefinition,
  name: string,
): void {
  if (def.auth.requiresAuth === false) return;
  services.auth.refresh(connection);
  if (connection.auth.user !== undefined || services.auth.localhostBypass(connection)) return;
  throw new CommandError(ErrorCode.Unauthorized, `command ${name} requires authentication`);
}

/** After parsing: the declared privileges, held by the connection. */
export function checkPrivileges(input: AuthInput, def: CommandDefinition): void {
  if (def.auth.requiresAuth === false) return;
  const held = currentPrivileges(input.services, input.connection);
  if (!meets(held, def.auth.required(input))) throw unauthorized(input.db, input.body);
}

/** Whether the connection may act on `resource` with `actions` (for checks commands make while running). */
export function allowed(
  services: ServerServices,
  connection: ConnectionState,
  resource: ResourcePattern,
  ...actions: ActionType[]
): boolean {
  if (!services.config.auth) return true;
  return meets(currentPrivileges(services, connection), [[privilege(resource, ...actions)]]);
}

/**
 * A reply that opened a cursor: the cursor belongs to the connection's user (mongod checks
 * getMore and killCursors against it).
 */
export function claimCursor(
  services: ServerServices,
  connection: ConnectionState,
  reply: BsonDocument,
): void {
  const cursor = reply['cursor'];
  if (!isPlainDocument(cursor)) return;
  const id = cursor['id'];
  if (!(id instanceof Long) || id.isZero()) return;
  const c = services.cursors.get(id);
  if (c !== undefined) c.authenticatedUser ??= userKeyOf(connection);
}

/** mongod's getMore check: only the user who opened a cursor may continue it. */
export function checkCursorOwner(
  services: ServerServices,
  connection: ConnectionState,
  cursor: ServerCursor,
): void {
  if (!services.config.auth) return;
  if (cursor.authenticatedUser !== userKeyOf(connection))
    throw new CommandError(
      ErrorCode.Unauthorized,
      `cursor id ${cursor.id.toString()} was not created by the authenticated user`,
    );
}

/** killCursors: one's own cursor, or any with killAnyCursor on its namespace. */
export function mayKillCursor(
  services: ServerServices,
  connection: ConnectionState,
  cursor: ServerCursor,
): boolean {
  if (!services.config.auth || cursor.authenticatedUser === userKeyOf(connection)) return true;
  const dot = cursor.ns.indexOf('.');
  const resource = namespaceResource(cursor.ns.slice(0, dot), cursor.ns.slice(dot + 1));
  return allowed(services, connection, resource, 'killAnyCursor');
}

/** A logical session is its creator's: another user naming its lsid is refused. */
export function checkSessionOwner(
  services: ServerServices,
  connection: ConnectionState,
  lsid: BsonValue | undefined,
): void {
  if (lsid === undefined) return;
  const key = sessionKeyOf(lsid);
  const owner = key === undefined ? undefined : services.sessions.peek(key)?.owner;
  if (owner !== undefined && owner !== userKeyOf(connection))
    throw new CommandError(
      ErrorCode.Unauthorized,
      'Cannot use a logical session that another user started',
    );
}

/** Whether a session may be ended or killed by this connection (its own, or with killAnySession). */
export function mayTouchSession(
  services: ServerServices,
  connection: ConnectionState,
  owner: string | undefined,
): boolean {
  if (!services.config.auth || owner === undefined || owner === userKeyOf(connection)) return true;
  return allowed(services, connection, clusterResource, 'killAnySession');
}

// --- Aggregation pipelines -------------------------------------------------------------------

/** Stages that produce their own documents: the pipeline does not read its collection. */
const initialSources = new Set([
  '$changeStream',
  '$collStats',
  '$indexStats',
  '$currentOp',
  '$listSessions',
  '$listLocalSessions',
  '$documents',
  '$planCacheStats',
  '$listSearchIndexes',
  '$listCatalog',
  '$queryStats',
]);

function stageOf(v: BsonValue): [string, BsonValue] | undefined {
  if (!isPlainDocument(v)) return undefined;
  const keys = Object.keys(v);
  const name = keys[0];
  return keys.length === 1 && name !== undefined ? [name, v[name] ?? null] : undefined;
}

function foreign(db: string, v: BsonValue | undefined): ResourcePattern | undefined {
  if (typeof v === 'string') return namespaceResource(db, v);
  if (isPlainDocument(v) && typeof v['coll'] === 'string') {
    const d = typeof v['db'] === 'string' ? v['db'] : db;
    return namespaceResource(d, v['coll']);
  }
  return undefined;
}

export interface PipelineSource {
  readonly db: string;
  /** The collection or view read; undefined for {aggregate: 1}. */
  readonly coll: string | undefined;
  readonly bypassDocumentValidation: boolean;
  /** $changeStream with allChangesForCluster reads every database. */
}

/**
 * The privileges a pipeline needs (mongod's LiteParsedPipeline::requiredPrivileges): find on the
 * collection unless the first stage is a source of its own, plus what each stage needs —
 * find on the collections $lookup, $graphLookup and $unionWith read (sub-pipelines included),
 * insert/remove ($out) or insert/update ($merge) on the collection written, changeStream and
 * find for $changeStream, collStats, indexStats, inprog and listSessions for those stages.
 * Malformed stages add nothing: the parser refuses them before anything runs.
 */
export function pipelinePrivileges(source: PipelineSource, pipeline: BsonValue): Privilege[] {
  const out: Privilege[] = [];
  const stages = Array.isArray(pipeline) ? pipeline : [];
  const first = stages.length > 0 ? stageOf(stages[0] ?? null) : undefined;
  const own =
    source.coll === undefined
      ? databaseResource(source.db)
      : namespaceResource(source.db, source.coll);
  if (source.coll !== undefined && (first === undefined || !initialSources.has(first[0])))
    out.push(privilege(own, 'find'));
  addStagePrivileges(source, own, stages, out, 0);
  return out;
}

function addStagePrivileges(
  source: PipelineSource,
  own: ResourcePattern,
  stages: readonly BsonValue[],
  out: Privilege[],
  depth: number,
): void {
  if (depth > limits.subPipelineDepthMax) return;
  const { db } = source;
  const sub = (coll: ResourcePattern | undefined, pipeline: BsonValue | undefined): void => {
    if (coll !== undefined) out.push(privilege(coll, 'find'));
    if (Array.isArray(pipeline)) {
      const inner = coll ?? own;
      addStagePrivileges(source, inner, pipeline, out, depth + 1);
    }
  };
  for (const raw of stages) {
    const stage = stageOf(raw);
    if (stage === undefined) continue;
    const [name, spec] = stage;
    const s = isPlainDocument(spec) ? spec : {};
    switch (name) {
      case '$lookup':
        sub(foreign(db, s['from']), s['pipeline']);
        break;
      case '$graphLookup':
        sub(foreign(db, s['from']), undefined);
        break;
      case '$unionWith':
        if (typeof spec === 'string') sub(namespaceResource(db, spec), undefined);
        else sub(foreign(db, s['coll']), s['pipeline']);
        break;
      case '$facet':
        for (const p of Object.values(s)) if (Array.isArray(p)) sub(undefined, p);
        break;
      case '$out': {
        const target =
          typeof spec === 'string'
            ? namespaceResource(db, spec)
            : foreign(
                db,
                s['coll'] === undefined ? undefined : { db: s['db'] ?? db, coll: s['coll'] },
              );
        if (target !== undefined) out.push(writePrivilege(target, ['insert', 'remove'], source));
        break;
      }
      case '$merge': {
        const into = typeof spec === 'string' ? spec : s['into'];
        const target = foreign(db, into);
        const actions: ActionType[] = ['insert'];
        if (s['whenMatched'] !== 'fail') actions.push('update');
        if (target !== undefined) out.push(writePrivilege(target, actions, source));
        break;
      }
      case '$changeStream': {
        const cluster = s['allChangesForCluster'] === true;
        out.push(privilege(cluster ? anyNormalResource : own, 'changeStream', 'find'));
        break;
      }
      case '$collStats':
        out.push(privilege(own, 'collStats'));
        break;
      case '$indexStats':
        out.push(privilege(own, 'indexStats'));
        break;
      case '$currentOp':
        if (s['allUsers'] === true) out.push(privilege(clusterResource, 'inprog'));
        break;
      case '$listSessions':
      case '$listLocalSessions':
        if (s['allUsers'] === true) out.push(privilege(clusterResource, 'listSessions'));
        break;
      case '$planCacheStats':
        out.push(privilege(own, 'planCacheRead'));
        break;
      default:
        break;
    }
  }
}

function writePrivilege(
  target: ResourcePattern,
  actions: ActionType[],
  source: PipelineSource,
): Privilege {
  return privilege(
    target,
    ...actions,
    ...(source.bypassDocumentValidation ? (['bypassDocumentValidation'] as const) : []),
  );
}
