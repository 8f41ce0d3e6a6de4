// Logical session commands. Ending or killing a session aborts its open transaction and
// closes its cursors; killing one also interrupts its running operations.

import { UUID } from 'bson';
import { Int32 } from 'bson';
import type { BsonValue } from '../../bson/types.js';
import { limits } from '../../limits.js';
import { sessionKeyOf } from '../../txn/sessions.js';
import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';

function endListed(services: ServerServices, list: BsonValue): void {
  if (!Array.isArray(list)) return;
  for (const lsid of list) {
    const key = sessionKeyOf(lsid);
    if (key === undefined) continue;
    if (!services.sessions.end(key)) services.cursors.killForSession(key);
  }
}

/** killSessions also interrupts the listed sessions' running operations, as mongod does. */
function killListed(services: ServerServices, list: BsonValue, self: AbortSignal): void {
  if (!Array.isArray(list)) return;
  const keys = new Set(list.map(sessionKeyOf));
  services.operations.killInSessions((key) => keys.has(key), self);
  endListed(services, list);
}

export const startSession = defineCommand({
  name: 'startSession',
  args: {},
  run: () => ({
    id: { id: new UUID() },
    timeoutMinutes: new Int32(limits.logicalSessionTimeoutMinutes),
  }),
});

export const endSessions = defineCommand({
  name: 'endSessions',
  args: {},
  traits: { apiVersion1: true },
  run: ({ services, target }) => {
    endListed(services, target);
    return {};
  },
});

export const killSessionsCommand = defineCommand({
  name: 'killSessions',
  args: {},
  run: ({ services, target, op }) => {
    killListed(services, target, op.signal);
    return {};
  },
});

/** Marks sessions as used so they do not expire. */
export const refreshSessions = defineCommand({
  name: 'refreshSessions',
  args: {},
  traits: { apiVersion1: true },
  run: ({ services, target }) => {
    if (Array.isArray(target))
      for (const lsid of target)
        if (sessionKeyOf(lsid) !== undefined) services.sessions.acquire(lsid);
    return {};
  },
});

function killAll(services: ServerServices, self: AbortSignal): Record<string, never> {
  services.operations.killInSessions(() => true, self);
  services.sessions.endAll();
  for (const c of [...services.cursors.all()]) {
    if (c.options.owner.sessionKey !== undefined) services.cursors.remove(c.id);
  }
  return {};
}

export const killAllSessions = defineCommand({
  name: 'killAllSessions',
  args: {},
  run: ({ services, op }) => killAll(services, op.signal),
});

export const killAllSessionsByPattern = defineCommand({
  name: 'killAllSessionsByPattern',
  args: {},
  run: ({ services, op }) => killAll(services, op.signal),
});

export const sessionCommands: CommandDefinition[] = [
  startSession,
  endSessions,
  killSessionsCommand,
  refreshSessions,
  killAllSessions,
  killAllSessionsByPattern,
];
