// $replaceRoot / $replaceWith: the document becomes the value of an expression, which must
// be an object (40228).

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { ErrorCode, fail, missingFieldError } from '../../errors.js';
import { expressionContext } from '../context.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression } from '../expressions/types.js';
import { formatValue, typeName } from '../values.js';
import { MapStage } from './base.js';
import type { Runtime, Stage, StageDefinition } from './types.js';

class ReplaceRootStage implements Stage {
  constructor(
    readonly name: string,
    private readonly spec: BsonValue,
    private readonly newRoot: Expression,
  ) {}
  serialize(): BsonDocument {
    return { [this.name]: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const frame = rt.frame;
    return new MapStage(this.name, input, (doc) => {
      frame.vars[ROOT_SLOT] = doc;
      const v = this.newRoot.evaluate(frame);
      if (v === MISSING || !isPlainDocument(v)) {
        fail(
          ErrorCode.Location40228,
          `'newRoot' expression must evaluate to an object, but resulting value was: ${formatValue(v)}. Type of resulting value: '${typeName(v)}'. Input document: ${formatBson(doc)}`,
        );
      }
      return v;
    });
  }
}

export const $replaceRoot: StageDefinition = {
  name: '$replaceRoot',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.Location40229,
        `expected an object as specification for $replaceRoot stage, got ${typeName(arg)}`,
      );
    let newRoot: BsonValue | undefined;
    let has = false;
    for (const [k, v] of Object.entries(arg)) {
      if (k !== 'newRoot')
        fail(ErrorCode.Location40415, `BSON field '$replaceRoot.${k}' is an unknown field.`);
      newRoot = v;
      has = true;
    }
    if (!has) throw missingFieldError('$replaceRoot.newRoot');
    return new ReplaceRootStage('$replaceRoot', arg, expressionContext(ctx).parse(newRoot ?? null));
  },
};

export const $replaceWith: StageDefinition = {
  name: '$replaceWith',
  parse(arg, ctx) {
    return new ReplaceRootStage('$replaceWith', arg, expressionContext(ctx).parse(arg));
  },
};
