// $currentDate: set the field to the current date, or to a new cluster timestamp with
// {$type: "timestamp"}. It always counts as a change, even when the value is the same.

import { bsonTypeName, isPlainDocument } from '../../bson/types.js';
import type { BsonValue } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { defineModifier, updated } from '../modifier.js';
import type { ApplyState } from '../state.js';
import type { ModifierDefinition } from './definition.js';

function parseType(value: BsonValue): 'date' | 'timestamp' {
  if (typeof value === 'boolean') return 'date';
  if (!isPlainDocument(value)) {
    fail(
      ErrorCode.BadValue,
      `${bsonTypeName(value)} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).`,
    );
  }
  let type: 'date' | 'timestamp' | undefined;
  for (const [key, v] of Object.entries(value)) {
    if (key !== '$type') fail(ErrorCode.BadValue, `Unrecognized $currentDate option: ${key}`);
    if (v === 'date' || v === 'timestamp') type = v;
  }
  if (type === undefined) {
    fail(
      ErrorCode.BadValue,
      "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}",
    );
  }
  return type;
}

export const $currentDate: ModifierDefinition = {
  name: '$currentDate',
  parse(_path, value) {
    const type = parseType(value);
    const current = (state: ApplyState): BsonValue =>
      type === 'date' ? new Date(state.options.now.getTime()) : state.nextTimestamp();
    return defineModifier({
      name: '$currentDate',
      updateExisting(target) {
        target.state.setAt(target.loc, current(target.state));
        return updated;
      },
      valueForNew: current,
    });
  },
};
