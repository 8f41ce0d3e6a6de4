// The integral argument of $limit and $skip, checked as mongod's
// parseIntegerElementToNonNegativeLong (5107201 / 5107200).

import type { BsonValue } from '../../bson/types.js';
import { fail } from '../../errors.js';
import { describeElement } from '../../query/match/describe.js';
import { parseIntegerToLong } from '../../query/match/numbers.js';

export function nonNegative(name: string, arg: BsonValue, code: number): number {
  const r = parseIntegerToLong(name, arg);
  if (!r.ok) fail(code, `invalid argument to ${name} stage: ${r.reason}`);
  if (r.value < 0n)
    fail(
      code,
      `invalid argument to ${name} stage: Expected a non-negative number in: ${describeElement(name, arg)}`,
    );
  return r.value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(r.value);
}
