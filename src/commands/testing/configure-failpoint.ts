// configureFailPoint (test commands only).

import { Int32 } from 'bson';
import { isPlainDocument } from '../../bson/types.js';
import { CommandError, ErrorCode } from '../../errors.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import { parseMode } from './failpoints.js';
import { authenticatedOnly } from '../authorization.js';

export const configureFailPoint = defineCommand({
  name: 'configureFailPoint',
  auth: authenticatedOnly,
  args: { mode: t.any, data: t.document },
  traits: { adminOnly: true, testOnly: true },
  run: ({ services, target, args }) => {
    if (typeof target !== 'string')
      throw new CommandError(ErrorCode.TypeMismatch, 'configureFailPoint takes a failpoint name');
    if (args.mode === undefined) throw new CommandError(ErrorCode.BadValue, "missing 'mode' field");
    const mode = parseMode(args.mode);
    const data = args.data ?? {};
    if (!isPlainDocument(data))
      throw new CommandError(ErrorCode.TypeMismatch, "'data' must be an object");
    const count = services.failPoints.configure(target, mode, data);
    return { count: new Int32(count) };
  },
});
