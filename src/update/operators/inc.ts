// $inc: add the argument to the field (a missing field counts as 0).

import { arithmeticModifier } from './arithmetic.js';
import type { ModifierDefinition } from './definition.js';

export const $inc: ModifierDefinition = {
  name: '$inc',
  parse: (path, value) => arithmeticModifier('$inc', 'increment', path, value),
};
