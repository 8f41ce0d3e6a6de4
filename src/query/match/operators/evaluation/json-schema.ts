import { isPlainDocument } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { compileJsonSchema } from '../../json-schema/compile.js';
import type { TopLevelOperator } from '../registry.js';

/** {$jsonSchema: {...}}: the (sub)document must satisfy the schema (MongoDB's JSON Schema draft 4 subset). */
export const $jsonSchema: TopLevelOperator = {
  name: '$jsonSchema',
  parse(arg, ctx) {
    if (ctx.banSpecialFeatures)
      fail(ErrorCode.QueryFeatureNotAllowed, '$jsonSchema is not allowed in this context');
    if (!isPlainDocument(arg)) fail(ErrorCode.TypeMismatch, '$jsonSchema must be an object');
    const check = compileJsonSchema(arg);
    return { kind: 'jsonSchema', schema: arg, test: (doc) => check(doc) };
  },
};
