// What an operator file exports: how to parse its argument for one path into a Modifier.

import type { BsonValue } from '../../bson/types.js';
import type { Modifier } from '../modifier.js';
import type { FilterCompiler } from '../types.js';

export interface ParseEnv {
  /** The injected matcher, for $pull conditions. */
  readonly compileFilter: FilterCompiler | undefined;
}

export interface ModifierDefinition {
  readonly name: string;
  /** Validate the argument given for `path` (mongod's init) and build the modifier. */
  parse(path: string, value: BsonValue, env: ParseEnv): Modifier;
}
