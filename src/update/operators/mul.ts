// $mul: multiply the field by the argument (a missing field becomes a zero of the argument's type).

import { arithmeticModifier } from './arithmetic.js';
import type { ModifierDefinition } from './definition.js';

export const $mul: ModifierDefinition = {
  name: '$mul',
  parse: (path, value) => arithmeticModifier('$mul', 'multiply', path, value),
};
