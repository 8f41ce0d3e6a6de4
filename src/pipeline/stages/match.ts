// $match: a query filter (the matcher of src/query/match) applied to each document; `$expr`
// evaluates aggregation expressions with the pipeline's variables. At the head of a pipeline
// consecutive $match stages become the cursor's query (pipeline.ts), where the planner can use
// the _id index.

import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import type { Matcher } from '../../query/match/index.js';
import { compileMatch } from '../context.js';
import { MapStage } from './base.js';
import type { PipelineContext, Stage, StageDefinition } from './types.js';

export class MatchStage implements Stage {
  readonly name = '$match';
  constructor(
    readonly filter: BsonDocument,
    readonly matcher: Matcher,
    private readonly ctx: PipelineContext,
  ) {}
  serialize(): BsonDocument {
    return { $match: this.filter };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    const m = this.matcher;
    return new MapStage('$match', input, (doc) => (m.matches(doc) ? doc : undefined));
  }
  /** $match followed by $match: one $match on {$and: [a, b]} (mongod's optimisation). */
  mergeWith(next: MatchStage): MatchStage {
    const filter = { $and: [this.filter, next.filter] };
    return new MatchStage(filter, compileMatch(filter, this.ctx), this.ctx);
  }
}

export const $match: StageDefinition = {
  name: '$match',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(ErrorCode.Location15959, 'the match filter must be an expression in an object');
    return new MatchStage(arg, compileMatch(arg, ctx), ctx);
  },
};
