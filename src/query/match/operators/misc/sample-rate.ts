import { isNumeric } from '../../../../bson/numeric.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { toJsNumber } from '../../numbers.js';
import type { TopLevelOperator } from '../registry.js';

/**
 * {$sampleRate: p}: each document matches with probability p in [0, 1] (mongod rewrites it
 * to {$expr: {$lt: [{$rand: {}}, p]}}; 0 and 1 are constants).
 */
export const $sampleRate: TopLevelOperator = {
  name: '$sampleRate',
  parse(arg, ctx) {
    if (ctx.level === 'subDocument')
      fail(ErrorCode.BadValue, '$sampleRate can only be applied to the top-level document');
    if (!isNumeric(arg)) fail(ErrorCode.BadValue, 'argument to $sampleRate must be a numeric type');
    const rate = toJsNumber(arg);
    // Written so that NaN fails too.
    if (!(rate >= 0 && rate <= 1))
      fail(ErrorCode.BadValue, 'numeric argument to $sampleRate must be in [0, 1]');
    if (rate === 0) return { kind: 'alwaysFalse' };
    if (rate === 1) return { kind: 'alwaysTrue' };
    return { kind: 'sampleRate', rate, test: () => Math.random() < rate };
  },
};
