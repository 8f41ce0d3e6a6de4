// $changeStreamSplitLargeEvent: the last stage of a change stream pipeline. Parsing checks
// its place; the cutting of events into fragments happens where events become the cursor's
// batch (src/repl/split-event.ts, the change stream cursor), since it needs their sizes as
// sent and resumes from a fragment's token.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import type { Stage, StageDefinition } from './types.js';

export const splitLargeEventName = '$changeStreamSplitLargeEvent';

export class SplitLargeEventStage implements Stage {
  readonly name = splitLargeEventName;
  serialize(): BsonDocument {
    return { [splitLargeEventName]: {} };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    return input;
  }
}

/** mongod's refusal of the stage anywhere but a change stream pipeline. */
export function notInChangeStream(): never {
  fail(
    ErrorCode.IllegalOperation,
    `${splitLargeEventName} can only be used in a $changeStream pipeline.`,
  );
}

export const $changeStreamSplitLargeEvent: StageDefinition = {
  name: splitLargeEventName,
  parse(arg: BsonValue, ctx) {
    if (!isPlainDocument(arg) || Object.keys(arg).length > 0)
      fail(ErrorCode.Location7182800, `${splitLargeEventName} spec should be an empty object`);
    if (ctx.subPipelineDepth > 0 || ctx.inFacet) notInChangeStream();
    return new SplitLargeEventStage();
  },
};
