// $sample: `size` documents chosen at random (reservoir sampling, then a shuffle).

import { Int32 } from 'bson';
import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { isNumeric } from '../values.js';
import { toDouble } from '../../bson/numeric.js';
import { BlockingStage } from './base.js';
import type { Stage, StageDefinition } from './types.js';

class SampleStage implements Stage {
  readonly name = '$sample';
  constructor(private readonly size: number) {}
  serialize(): BsonDocument {
    return { $sample: { size: new Int32(this.size) } };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    const size = this.size;
    return new BlockingStage('$sample', input, () => {
      // Reservoir sampling keeps memory at `size` documents, then a shuffle randomises the order.
      const out: BsonDocument[] = [];
      let seen = 0;
      const add = (d: BsonDocument): void => {
        seen++;
        if (out.length < size) out.push(d);
        else {
          const j = Math.floor(Math.random() * seen);
          if (j < size) out[j] = d;
        }
      };
      return { add, finish: () => shuffle(out) };
    });
  }
}

function shuffle(out: BsonDocument[]): BsonDocument[] {
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as BsonDocument, out[i] as BsonDocument];
  }
  return out;
}

export const $sample: StageDefinition = {
  name: '$sample',
  parse(arg) {
    if (!isPlainDocument(arg))
      fail(ErrorCode.Location28745, 'the $sample stage specification must be an object');
    let size: number | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k !== 'size') fail(ErrorCode.Location28748, `unrecognized option to $sample: ${k}`);
      if (!isNumeric(v)) fail(ErrorCode.Location28746, 'size argument to $sample must be a number');
      const n = toDouble(v);
      if (n < 0) fail(ErrorCode.Location28747, 'size argument to $sample must not be negative');
      size = Math.trunc(n);
    }
    if (size === undefined) fail(ErrorCode.Location28749, '$sample stage must specify a size');
    return new SampleStage(size);
  },
};
