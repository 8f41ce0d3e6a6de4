// How mongod names an element in its error messages: `name: value`, the value rendered the way
// BSONElement::toString does. Messages only; never parsed back.

import { formatBson } from '../../bson/format.js';
import type { BsonValue } from '../../bson/types.js';

export function describeElement(name: string, value: BsonValue): string {
  return `${name}: ${formatBson(value)}`;
}
