// configureFailPoint and waitForFailPoint (test commands only), as mongod's fail_point_cmd:
// the name is checked first (FailPointSetFailed 266 "<name> not found"), then the mode.

import { Int32 } from 'bson';
import { CommandError, ErrorCode } from '../../errors.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import { FailPoints, parseMode } from './failpoints.js';
import { authenticatedOnly } from '../authorization.js';

function failPointName(target: unknown, command: string): string {
  if (typeof target !== 'string')
    throw new CommandError(ErrorCode.TypeMismatch, `${command} takes a failpoint name`);
  return target;
}

export const configureFailPoint = defineCommand({
  name: 'configureFailPoint',
  auth: authenticatedOnly,
  args: { mode: t.any, data: t.document },
  traits: { adminOnly: true, testOnly: true },
  run: ({ services, target, args }) => {
    const name = failPointName(target, 'configureFailPoint');
    FailPoints.assertKnown(name);
    const mode = parseMode(args.mode);
    const count = services.failPoints.configure(name, mode, args.data ?? {});
    return { count: new Int32(count) };
  },
});

/**
 * Waits until the failpoint has been entered `timesEntered` times since the server started
 * (the `count` configureFailPoint answered, plus the entries to wait for). maxTimeMS is
 * required (FailedToParse "Missing maxTimeMS", as mongod); past it, MaxTimeMSExpired (50).
 */
export const waitForFailPoint = defineCommand({
  name: 'waitForFailPoint',
  auth: authenticatedOnly,
  args: { timesEntered: t.int64 },
  traits: { adminOnly: true, testOnly: true },
  run: async ({ services, target, args, op }) => {
    if (op.deadlineMs === undefined)
      throw new CommandError(ErrorCode.FailedToParse, 'Missing maxTimeMS');
    const name = failPointName(target, 'waitForFailPoint');
    if (args.timesEntered === undefined)
      throw new CommandError(
        ErrorCode.Location40414,
        "BSON field 'waitForFailPoint.timesEntered' is missing but a required field",
      );
    await services.failPoints.waitForTimesEntered(name, args.timesEntered, op);
    return {};
  },
});
