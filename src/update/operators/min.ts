// $min: set the field to the argument when the argument is smaller (or the field is missing).

import { compareModifier } from './compare.js';
import type { ModifierDefinition } from './definition.js';

export const $min: ModifierDefinition = {
  name: '$min',
  parse: (_path, value, env) => compareModifier('$min', value, env.collator),
};
