// Accumulators: the running state behind $group's fields, $setWindowFields' window functions and
// the array forms of $sum/$avg/$min/... as expressions (mongod's AccumulatorState).

import type { Expression, ParseContext, Value } from '../expressions/types.js';
import type { Collator } from '../../bson/collation.js';

export interface Accumulator {
  /** Adds one input value (MISSING included: each accumulator decides what it ignores). */
  process(value: Value): void;
  /** The current result (mongod's getValue(false)). */
  value(): Value;
  /** Approximate bytes held, for the $group memory limit. */
  readonly bytes: number;
  /** False once more input cannot change the result ($first, $firstN when full). */
  readonly needsInput: boolean;
}

/** A parsed accumulator of a $group field: `{total: {$sum: "$x"}}`. */
export interface AccumulatorSpec {
  readonly name: string;
  /** Evaluated once per group against {_id: <group key>} (the `n` of $firstN, $topN, ...). */
  readonly initializer?: Expression | undefined;
  /** Evaluated per input document; its value is what `process` receives. */
  readonly argument: Expression;
  /** A fresh state; `collator` is the operation's collation ($addToSet, $min, $max compare by it). */
  create(initial: Value, collator?: Collator): Accumulator;
}

export interface AccumulatorDefinition {
  readonly name: string;
  parse(arg: Parameters<ParseContext['parse']>[0], ctx: ParseContext): AccumulatorSpec;
}

/** A fixed size for scalar state (mongod counts sizeof(*this) and the values held). */
export const SCALAR_STATE_BYTES = 64;
