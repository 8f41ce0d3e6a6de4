// $setOnInsert: $set that applies only when the update builds an upsert's new document.

import { setModifier } from './set.js';
import type { ModifierDefinition } from './definition.js';

export const $setOnInsert: ModifierDefinition = {
  name: '$setOnInsert',
  parse: (_path, value) => setModifier('$setOnInsert', value, true),
};
