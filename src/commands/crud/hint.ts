// A command's `hint` checked against the collection's indexes (a key pattern or an index name;
// {$natural: ±1} is a scan direction). Apart from common.ts so that the write path
// (write-exec.ts), which the profiler uses, reaches it without the command context.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import type { Collection } from '../../catalog/collection.js';
import { CommandError, ErrorCode } from '../../errors.js';

/** hint: a key pattern document or an index name; `$natural` is handled by callers. */
export function resolveHint(
  coll: Collection | undefined,
  hint: BsonValue | undefined,
): { natural?: 1 | -1 } {
  if (hint === undefined || hint === null) return {};
  if (isPlainDocument(hint)) {
    const keys = Object.keys(hint);
    if (keys.length === 0) return {};
    if (keys[0] === '$natural') {
      const v = hint['$natural'];
      const n =
        typeof v === 'object' && v !== null && 'valueOf' in v ? Number(v.valueOf()) : Number(v);
      return { natural: n < 0 ? -1 : 1 };
    }
    if (coll === undefined) return {};
    const match = coll.indexes.find((i) => sameKeyPattern(i.meta.key, hint));
    if (match === undefined)
      throw new CommandError(
        ErrorCode.BadValue,
        'error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index',
      );
    return {};
  }
  if (typeof hint === 'string') {
    if (coll === undefined) return {};
    if (coll.index(hint) === undefined)
      throw new CommandError(
        ErrorCode.BadValue,
        'error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index',
      );
    return {};
  }
  throw new CommandError(ErrorCode.FailedToParse, 'hint must be a string or an object');
}

function sameKeyPattern(a: BsonDocument, b: BsonDocument): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k, i) => k === kb[i] && Number(String(a[k])) === Number(String(b[k])));
}
