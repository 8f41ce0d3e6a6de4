// Logical session commands. Sessions own cursors: ending or killing a session closes them.
// (Transactions and retryable writes come with the replica-set issue.)

import { Binary, Int32 } from 'bson';
import { UUID } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { limits } from '../../limits.js';

import type { ServerServices } from '../context.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';

/** The key a session is known by: the hex of its lsid.id UUID. */
export function sessionKeyOf(lsid: BsonValue | undefined): string | undefined {
  if (!isPlainDocument(lsid)) return undefined;
  const id = lsid['id'];
  if (!(id instanceof Binary)) return undefined;
  return Buffer.from(id.buffer.subarray(0, id.position)).toString('hex');
}

function killSessions(services: ServerServices, list: readonly BsonValue[]): void {
  for (const lsid of list) {
    const key = sessionKeyOf(lsid);
    if (key !== undefined) services.cursors.killForSession(key);
  }
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
    if (Array.isArray(target)) killSessions(services, target);
    return {};
  },
});

export const killSessionsCommand = defineCommand({
  name: 'killSessions',
  args: {},
  run: ({ services, target }) => {
    if (Array.isArray(target)) killSessions(services, target);
    return {};
  },
});

export const refreshSessions = defineCommand({
  name: 'refreshSessions',
  args: {},
  traits: { apiVersion1: true },
  run: () => ({}),
});

function killAll(services: ServerServices): BsonDocument {
  for (const c of [...services.cursors.all()]) {
    if (c.options.owner.sessionKey !== undefined) services.cursors.remove(c.id);
  }
  return {};
}

export const killAllSessions = defineCommand({
  name: 'killAllSessions',
  args: {},
  run: ({ services }) => killAll(services),
});

export const killAllSessionsByPattern = defineCommand({
  name: 'killAllSessionsByPattern',
  args: {},
  run: ({ services }) => killAll(services),
});

export const sessionCommands: CommandDefinition[] = [
  startSession,
  endSessions,
  killSessionsCommand,
  refreshSessions,
  killAllSessions,
  killAllSessionsByPattern,
];
