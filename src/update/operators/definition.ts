// What an operator file exports: how to parse its argument for one path into a Modifier.

import type { BsonValue } from '../../bson/types.js';
import type { Modifier } from '../modifier.js';
import type { FilterCompiler } from '../types.js';
import type { Collator } from '../../bson/collation.js';

export interface ParseEnv {
  /** The injected matcher, for $pull conditions. */
  readonly compileFilter: FilterCompiler | undefined;
  /** The operation's collation: $addToSet, $pull, $pullAll, $min, $max and $push's $sort compare strings by it. */
  readonly collator?: Collator | undefined;
}

export interface ModifierDefinition {
  readonly name: string;
  /** Validate the argument given for `path` (mongod's init) and build the modifier. */
  parse(path: string, value: BsonValue, env: ParseEnv): Modifier;
}
