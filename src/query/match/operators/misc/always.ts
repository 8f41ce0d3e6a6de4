import { ErrorCode, fail } from '../../../../errors.js';
import { integerOrFail, parseIntegerToLong } from '../../numbers.js';
import type { TopLevelOperator } from '../registry.js';

function always(name: '$alwaysTrue' | '$alwaysFalse'): TopLevelOperator {
  return {
    name,
    parse(arg) {
      if (integerOrFail(parseIntegerToLong(name, arg)) !== 1n)
        fail(ErrorCode.FailedToParse, `${name} must be an integer value of 1`);
      return { kind: name === '$alwaysTrue' ? 'alwaysTrue' : 'alwaysFalse' };
    },
  };
}

/** {$alwaysTrue: 1} / {$alwaysFalse: 1}: constant predicates mongod accepts in filters. */
export const $alwaysTrue = always('$alwaysTrue');
export const $alwaysFalse = always('$alwaysFalse');
