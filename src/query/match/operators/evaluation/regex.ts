import { BSONRegExp } from '../../../../bson/types.js';
import { ErrorCode, fail } from '../../../../errors.js';
import { regexNode } from '../../nodes.js';
import type { PathOperator } from '../registry.js';

/**
 * {a: {$regex: 'p', $options: 'i'}} (or a BSON regex as $regex). Options may come from the
 * regex or from $options, not both: which error depends on which came first, as in mongod.
 */
export const $regex: PathOperator = {
  name: '$regex',
  parse({ path, operatorDoc }) {
    let pattern = '';
    let options = '';
    for (const [key, v] of Object.entries(operatorDoc)) {
      if (key === '$regex') {
        if (typeof v === 'string') {
          pattern = v;
        } else if (v instanceof BSONRegExp) {
          pattern = v.pattern;
          if (v.options !== '') {
            if (options !== '')
              fail(ErrorCode.Location51074, 'options set in both $regex and $options');
            options = v.options;
          }
        } else {
          fail(ErrorCode.BadValue, '$regex has to be a string');
        }
      } else if (key === '$options') {
        if (typeof v !== 'string') fail(ErrorCode.BadValue, '$options has to be a string');
        if (options !== '')
          fail(ErrorCode.Location51075, 'options set in both $regex and $options');
        options = v;
      }
    }
    return regexNode(path, pattern, options);
  },
};
