// $unset: remove the field (its argument is ignored). Inside an array the element is set to
// null instead, so that the positions of the others do not move. A missing path, even one
// that could not exist (through a scalar), is a no-op.

import { defineModifier, updated } from '../modifier.js';
import type { ModifierDefinition } from './definition.js';

const unset = defineModifier({
  name: '$unset',
  allowCreation: false,
  allowNonViablePath: true,
  validatesStorage: false,
  updateExisting(target) {
    if (Array.isArray(target.loc.container)) {
      target.state.setAt(target.loc, null);
      return updated;
    }
    target.state.removeAt(target.loc);
    return { kind: 'removed' };
  },
});

export const $unset: ModifierDefinition = {
  name: '$unset',
  parse: () => unset,
};
