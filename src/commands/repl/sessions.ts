// Logical session commands. Ending or killing a session aborts its open transaction and
// closes its cursors; killing one also interrupts its running operations.

import { UUID } from 'bson';
import { Int32 } from 'bson';
import type { BsonValue } from '../../bson/types.js';
import { limits } from '../../limits.js';
import { sessionKeyOf } from '../../txn/sessions.js';
import type { ConnectionState, ServerServices } from '../context.js';
import { isPlainDocument } from '../../bson/types.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { authenticatedOnly, mayTouchSession, privileges, userKeyOf } from '../authorization.js';
import { privilege } from '../../auth/privileges.js';
import { clusterResource } from '../../auth/resource.js';

function endListed(services: ServerServices, list: BsonValue, connection: ConnectionState): void {
  if (!Array.isArray(list)) return;
  for (const lsid of list) {
    const key = sessionKeyOf(lsid);
    if (key === undefined) continue;
    // Another user's session is left alone, as mongod's sessions are per user.
    if (!mayTouchSession(services, connection, services.sessions.peek(key)?.owner)) continue;
    if (!services.sessions.end(key)) services.cursors.killForSession(key);
  }
}

/** killSessions also interrupts the listed sessions' running operations, as mongod does. */
function killListed(
  services: ServerServices,
  list: BsonValue,
  self: AbortSignal,
  connection: ConnectionState,
): void {
  if (!Array.isArray(list)) return;
  const keys = new Set(list.map(sessionKeyOf));
  services.operations.killInSessions(
    (key) =>
      keys.has(key) && mayTouchSession(services, connection, services.sessions.peek(key)?.owner),
    self,
  );
  endListed(services, list, connection);
}

export const startSession = defineCommand({
  name: 'startSession',
  auth: authenticatedOnly,
  args: {},
  run: () => ({
    id: { id: new UUID() },
    timeoutMinutes: new Int32(limits.logicalSessionTimeoutMinutes),
  }),
});

export const endSessions = defineCommand({
  name: 'endSessions',
  auth: authenticatedOnly,
  args: {},
  traits: { apiVersion1: true },
  run: ({ services, target, connection }) => {
    endListed(services, target, connection);
    return {};
  },
});

export const killSessionsCommand = defineCommand({
  name: 'killSessions',
  auth: authenticatedOnly,
  args: {},
  run: ({ services, target, op, connection }) => {
    killListed(services, target, op.signal, connection);
    return {};
  },
});

/** Marks sessions as used so they do not expire. */
export const refreshSessions = defineCommand({
  name: 'refreshSessions',
  auth: authenticatedOnly,
  args: {},
  traits: { apiVersion1: true },
  run: ({ services, target }) => {
    if (Array.isArray(target))
      for (const lsid of target)
        if (sessionKeyOf(lsid) !== undefined) services.sessions.acquire(lsid);
    return {};
  },
});

function killAll(
  services: ServerServices,
  self: AbortSignal,
  connection: ConnectionState,
): Record<string, never> {
  if (!mayTouchSession(services, connection, '')) {
    // Without killAnySession: the caller's own sessions only.
    const own = [...services.sessions.all()].filter((s) => s.owner === userKeyOf(connection));
    killListed(
      services,
      own.map((s) => s.lsid),
      self,
      connection,
    );
    return {};
  }
  services.operations.killInSessions(() => true, self);
  services.sessions.endAll();
  for (const c of [...services.cursors.all()]) {
    if (c.options.owner.sessionKey !== undefined) services.cursors.remove(c.id);
  }
  return {};
}

/** The users a killAllSessions names: every one of them the caller needs no privilege for. */
function namesOnlySelf(list: BsonValue | undefined, self: string | undefined): boolean {
  if (!Array.isArray(list) || list.length === 0 || self === undefined) return false;
  return list.every((u) => {
    if (!isPlainDocument(u)) return false;
    const user = isPlainDocument(u['users']) ? undefined : u;
    return user !== undefined && `${String(user['user'])}@${String(user['db'])}` === self;
  });
}

const killAllAuth = privileges(
  "killAnySession on the cluster, unless only one's own user is named",
  (input) =>
    namesOnlySelf(input.target, userKeyOf(input.connection))
      ? [[]]
      : [[privilege(clusterResource, 'killAnySession')]],
);

export const killAllSessions = defineCommand({
  name: 'killAllSessions',
  auth: killAllAuth,
  args: {},
  run: ({ services, op, connection }) => killAll(services, op.signal, connection),
});

export const killAllSessionsByPattern = defineCommand({
  name: 'killAllSessionsByPattern',
  auth: killAllAuth,
  args: {},
  run: ({ services, op, connection }) => killAll(services, op.signal, connection),
});

export const sessionCommands: CommandDefinition[] = [
  startSession,
  endSessions,
  killSessionsCommand,
  refreshSessions,
  killAllSessions,
  killAllSessionsByPattern,
];
