// $max: set the field to the argument when the argument is larger (or the field is missing).

import { compareModifier } from './compare.js';
import type { ModifierDefinition } from './definition.js';

export const $max: ModifierDefinition = {
  name: '$max',
  parse: (_path, value, env) => compareModifier('$max', value, env.collator),
};
