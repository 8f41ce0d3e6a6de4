// $unset: an exclusion of the named paths.

import { isArray } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { parseUnset } from '../projection.js';
import type { StageDefinition } from './types.js';

import { ProjectionStage } from './projection-stage.js';

export const $unset: StageDefinition = {
  name: '$unset',
  parse(arg) {
    const paths = typeof arg === 'string' ? [arg] : isArray(arg) ? arg : undefined;
    if (paths === undefined)
      fail(ErrorCode.Location31002, '$unset specification must be a string or an array');
    if (paths.length === 0)
      fail(
        ErrorCode.Location31119,
        '$unset specification must be a string or an array with at least one field',
      );
    if (!paths.every((p): p is string => typeof p === 'string')) {
      fail(
        ErrorCode.Location31120,
        '$unset specification must be a string or an array containing only string values',
      );
    }
    return new ProjectionStage('$unset', arg, parseUnset(paths));
  },
};
