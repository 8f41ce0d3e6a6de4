// $limit and $skip: integral arguments checked as mongod's parseIntegerElementToNonNegativeLong
// (5107201 / 5107200), and a positive $limit (15958). Adjacent ones merge at optimisation.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { Long } from 'bson';
import { fail } from '../../errors.js';
import { LimitStage, SkipStage } from '../../query/exec/stages.js';
import { describeElement } from '../../query/match/describe.js';
import { parseIntegerToLong } from '../../query/match/numbers.js';
import { AggCode } from '../error-codes.js';
import type { Stage, StageDefinition } from './types.js';

function nonNegative(name: string, arg: BsonValue, code: number): number {
  const r = parseIntegerToLong(name, arg);
  if (!r.ok) fail(code, `invalid argument to ${name} stage: ${r.reason}`);
  if (r.value < 0n) fail(code, `invalid argument to ${name} stage: Expected a non-negative number in: ${describeElement(name, arg)}`);
  return r.value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(r.value);
}

export class LimitPipelineStage implements Stage {
  readonly name = '$limit';
  constructor(readonly limit: number) {}
  serialize(): BsonDocument {
    return { $limit: Long.fromNumber(this.limit) };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    return new LimitStage(input, this.limit);
  }
}

export class SkipPipelineStage implements Stage {
  readonly name = '$skip';
  constructor(readonly skip: number) {}
  serialize(): BsonDocument {
    return { $skip: Long.fromNumber(this.skip) };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    return new SkipStage(input, this.skip);
  }
}

export const $limit: StageDefinition = {
  name: '$limit',
  parse(arg) {
    const n = nonNegative('$limit', arg, AggCode.Location5107201);
    if (n === 0) fail(AggCode.Location15958, 'the limit must be positive');
    return new LimitPipelineStage(n);
  },
};

export const $skip: StageDefinition = {
  name: '$skip',
  parse(arg) {
    return new SkipPipelineStage(nonNegative('$skip', arg, AggCode.Location5107200));
  },
};
