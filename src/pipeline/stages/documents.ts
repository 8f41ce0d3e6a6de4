// $documents: a source stage producing the documents of an array expression, for
// {aggregate: 1} and sub-pipelines.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { expressionContext } from '../context.js';
import { ROOT_SLOT } from '../expressions/types.js';
import type { Expression } from '../expressions/types.js';
import { formatValue, typeName } from '../values.js';
import { DocumentsStage } from './base.js';
import type { Runtime, Stage, StageDefinition } from './types.js';

class DocumentsSourceStage implements Stage {
  readonly name = '$documents';
  readonly constraints = { first: true, collectionless: true, noCollection: true } as const;
  constructor(
    private readonly spec: BsonValue,
    private readonly expr: Expression,
  ) {}
  serialize(): BsonDocument {
    return { $documents: this.spec };
  }
  attach(_input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    rt.frame.vars[ROOT_SLOT] = {};
    const v = this.expr.evaluate(rt.frame);
    if (!isArray(v)) fail(ErrorCode.Location5858203, 'an array is expected');
    // mongod turns $documents into $project + $unwind + $replaceRoot, whence 40228.
    const docs = v.map((d) => {
      if (!isPlainDocument(d))
        fail(
          ErrorCode.Location40228,
          `'newRoot' expression must evaluate to an object, but resulting value was: ${formatValue(d)}. Type of resulting value: '${typeName(d)}'.`,
        );
      return d;
    });
    return new DocumentsStage(docs, '$documents');
  }
}

export const $documents: StageDefinition = {
  name: '$documents',
  parse(arg, ctx) {
    return new DocumentsSourceStage(arg, expressionContext(ctx).parse(arg));
  },
};
