// $count: the number of input documents, as {<field>: n}; no input, no output (mongod
// rewrites it into $group + $project).

import { Int32 } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { BlockingStage } from './base.js';
import type { Stage, StageDefinition } from './types.js';

class CountStage implements Stage {
  readonly name = '$count';
  constructor(private readonly field: string) {}
  serialize(): BsonDocument {
    return { $count: this.field };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    const field = this.field;
    return new BlockingStage('$count', input, () => {
      let n = 0;
      return {
        add: () => {
          n++;
        },
        // Like mongod's {$group: {_id: null, n: {$sum: 1}}} + $project: no input, no output.
        finish: () => (n === 0 ? [] : [{ [field]: new Int32(n) }]),
      };
    });
  }
}

export const $count: StageDefinition = {
  name: '$count',
  parse(arg) {
    if (typeof arg !== 'string')
      fail(ErrorCode.Location40156, 'the count field must be a non-empty string');
    if (arg.length === 0)
      fail(ErrorCode.Location40157, 'the count field must be a non-empty string');
    if (arg.startsWith('$'))
      fail(ErrorCode.Location40158, 'the count field cannot be a $-prefixed path');
    if (arg.includes('.')) fail(ErrorCode.Location40160, "the count field cannot contain '.'");
    return new CountStage(arg);
  },
};
