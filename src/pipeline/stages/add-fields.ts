// $addFields and its alias $set: computed fields added to (or replacing fields of) the document.

import { isPlainDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { expressionContext } from '../context.js';
import { parseAddFields } from '../projection.js';
import { typeName } from '../values.js';
import type { StageDefinition } from './types.js';

import { ProjectionStage } from './projection-stage.js';

function addFields(name: string): StageDefinition {
  return {
    name,
    parse(arg, ctx) {
      if (!isPlainDocument(arg))
        fail(
          ErrorCode.Location40272,
          `${name} specification stage must be an object, got ${typeName(arg)}`,
        );
      return new ProjectionStage(name, arg, parseAddFields(arg, expressionContext(ctx), name));
    },
  };
}

export const $addFields = addFields('$addFields');
export const $set = addFields('$set');
