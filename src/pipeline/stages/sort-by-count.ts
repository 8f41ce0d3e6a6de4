// $sortByCount: groups by an expression and counts, most frequent first (mongod rewrites it
// into $group + $sort, and so does this parser).

import { Int32 } from 'bson';
import { isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { accumulators } from '../accumulators/index.js';
import { expressionContext } from '../context.js';
import { parseFieldPathExpression } from '../expressions/field-path.js';
import type { Expression } from '../expressions/types.js';
import { parseSortPattern } from '../sort-pattern.js';
import { GroupStage } from './group.js';
import { SortPipelineStage } from './sort.js';
import type { StageDefinition } from './types.js';

export const $sortByCount: StageDefinition = {
  name: '$sortByCount',
  parse(arg, ctx) {
    const ectx = expressionContext(ctx);
    let id: Expression;
    if (typeof arg === 'string') {
      if (!arg.startsWith('$'))
        fail(
          ErrorCode.Location40148,
          `the sortByCount field must be defined as a $-prefixed path or an expression, got ${arg}`,
        );
      id = parseFieldPathExpression(arg, ectx);
    } else if (isPlainDocument(arg) && (Object.keys(arg)[0] ?? '').startsWith('$')) {
      id = ectx.parse(arg);
    } else if (isPlainDocument(arg)) {
      fail(
        ErrorCode.Location40147,
        'the sortByCount field must be specified as a string or as an object with an operator',
      );
    } else {
      fail(
        ErrorCode.Location40149,
        'the sortByCount field must be specified as a string or as an object',
      );
    }
    const sum = accumulators.get('$sum');
    if (sum === undefined) fail(ErrorCode.InternalError, '$sum accumulator missing');
    const group = new GroupStage(
      { _id: arg, count: { $sum: new Int32(1) } },
      { id, fields: [{ name: 'count', spec: sum.parse(new Int32(1), ectx) }] },
    );
    return [group, new SortPipelineStage(parseSortPattern({ count: new Int32(-1) }))];
  },
};
