// top: time spent per collection, by kind of operation, in microseconds (mongod's Top). Counted
// by the dispatcher as each operation ends (commands/metrics.ts).

import { Long } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { onCluster } from '../authorization.js';
import type { TopCounter, TopEntry } from '../metrics.js';

const fields = [
  'total',
  'readLock',
  'writeLock',
  'queries',
  'getmore',
  'insert',
  'update',
  'remove',
  'commands',
] as const satisfies ReadonlyArray<keyof TopEntry>;

function counter(c: TopCounter): BsonDocument {
  return { time: Long.fromNumber(c.time), count: Long.fromNumber(c.count) };
}

export const top = defineCommand({
  name: 'top',
  auth: onCluster('top'),
  args: {},
  traits: { adminOnly: true },
  help: 'usage by collection, in micros',
  run: ({ services }) => {
    const totals: BsonDocument = { note: 'all times in microseconds' };
    for (const ns of [...services.metrics.top.keys()].sort()) {
      const e = services.metrics.top.get(ns);
      if (e === undefined) continue;
      const doc: BsonDocument = {};
      for (const f of fields) doc[f] = counter(e[f]);
      totals[ns] = doc;
    }
    return { totals };
  },
});

export const topCommands: CommandDefinition[] = [top];
