// The modifier table (mongod's modifier_table.cpp): every update operator MongoDB 7.0 knows.
// Adding an operator is one file plus one line here.

import { $addToSet } from './add-to-set.js';
import { $bit } from './bit.js';
import { $currentDate } from './current-date.js';
import type { ModifierDefinition } from './definition.js';
import { $inc } from './inc.js';
import { $max } from './max.js';
import { $min } from './min.js';
import { $mul } from './mul.js';
import { $pop } from './pop.js';
import { $pull } from './pull.js';
import { $pullAll } from './pull-all.js';
import { $push } from './push.js';
import { $rename } from './rename.js';
import { $set } from './set.js';
import { $setOnInsert } from './set-on-insert.js';
import { $unset } from './unset.js';

export const modifierTable: ReadonlyMap<string, ModifierDefinition> = new Map(
  [
    $addToSet,
    $bit,
    $currentDate,
    $inc,
    $max,
    $min,
    $mul,
    $pop,
    $pull,
    $pullAll,
    $push,
    $rename,
    $set,
    $setOnInsert,
    $unset,
  ].map((d) => [d.name, d] as const),
);

export type { ModifierDefinition, ParseEnv } from './definition.js';
export { renameSourcePlaceholder } from './rename.js';
