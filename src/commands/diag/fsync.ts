// fsync: flush storage to disk; with {lock: true}, also hold every write until fsyncUnlock
// (commands/fsync-lock.ts). Replies as mongod's.

import { Int32, Long } from 'bson';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import type { CommandDefinition } from '../registry.js';
import { onCluster } from '../authorization.js';
import { errmsgReply } from './log-commands.js';

const fsyncUrl = 'http://dochub.mongodb.org/core/fsynccommand';

export const fsync = defineCommand({
  name: 'fsync',
  auth: onCluster('fsync'),
  args: { lock: t.safeBool, async: t.safeBool, allowFsyncFailure: t.safeBool },
  strict: false,
  traits: { adminOnly: true },
  help: fsyncUrl,
  run: async ({ services, args }) => {
    services.logger.info('COMMAND', 20461, 'CMD fsync', { lock: args.lock === true });
    if (args.lock !== true) {
      await services.engine.flush();
      // This field has had a dummy value since MMAPv1 went away; kept as mongod keeps it.
      return { numFiles: new Int32(1) };
    }
    const lockCount = await services.fsyncLock.lock();
    return {
      info: 'now locked against writes, use db.fsyncUnlock() to unlock',
      lockCount: Long.fromNumber(lockCount),
      seeAlso: fsyncUrl,
    };
  },
});

export const fsyncUnlock = defineCommand({
  name: 'fsyncUnlock',
  auth: onCluster('unlock'),
  args: {},
  strict: false,
  traits: { adminOnly: true },
  run: ({ services }) => {
    services.logger.info('COMMAND', 20465, 'command: unlock requested');
    const lockCount = services.fsyncLock.unlock();
    if (lockCount === undefined) return errmsgReply('fsyncUnlock called when not locked');
    return { info: 'fsyncUnlock completed', lockCount: Long.fromNumber(lockCount) };
  },
});

export const fsyncCommands: CommandDefinition[] = [fsync, fsyncUnlock];
