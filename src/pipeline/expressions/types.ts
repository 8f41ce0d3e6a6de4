// The shapes of the aggregation expression language: a parsed expression is a small object
// whose `evaluate` closure was built once at parse time; evaluation then only walks closures.
//
// Values: an expression yields a BSON value or MISSING (mongod's "missing" Value, what a field
// path that reaches nothing produces). MISSING is not null: `$project` omits a missing field,
// `$type` answers "missing", `$ifNull` treats both as null.

import type { Collator } from '../../bson/collation.js';
import type { ScriptHost } from '../../js/engine.js';
import type { BsonValue } from '../../bson/types.js';
import { MISSING } from '../../bson/path.js';
import type { Missing } from '../../bson/path.js';

export { MISSING };
export type { Missing };

/** What an expression produces. */
export type Value = BsonValue | Missing;

/**
 * The run-time variable frame of one command: slot 0 is $$ROOT (the document being
 * evaluated), later slots hold user variables ($let, $map's `as`, $lookup's `let`, ...).
 * Slots are numbered at parse time, as mongod's Variables ids are, so a variable read is an
 * array index. Evaluation is synchronous and never re-enters the same binding, so one frame
 * serves a whole command, sub-pipelines included.
 */
export interface Frame {
  readonly vars: Value[];
}

export const ROOT_SLOT = 0;

/** Kinds of parsed expression, for the few callers that look inside one. */
export type ExpressionKind =
  'constant' | 'fieldPath' | 'variable' | 'operator' | 'object' | 'array';

export interface Expression {
  readonly kind: ExpressionKind;
  /** The operator name for kind 'operator' ('$add'). */
  readonly op?: string | undefined;
  /** For kind 'constant': the value (folded expressions become constants too). */
  readonly value?: Value;
  /**
   * For a field path on $$CURRENT/$$ROOT: the dotted path below the root ("a.b"); stages use
   * it to recognise plain field references.
   */
  readonly path?: string | undefined;
  readonly evaluate: (frame: Frame) => Value;
}

/** How a variable name is bound at parse time: to a frame slot, or to a value known now. */
export type Binding = { readonly slot: number } | { readonly constant: Value };

/**
 * A lexical scope of variables at parse time. Child scopes shadow parents ($let inside $let),
 * as mongod's VariablesParseState copies do.
 */
export interface VariableScope {
  readonly parent: VariableScope | undefined;
  readonly names: Map<string, Binding>;
}

/**
 * Everything fixed for one command: the time ($$NOW), the cluster time, and the frame the
 * compiled closures read (it grows as slots are allocated).
 */
export interface ExpressionEnv {
  /** $$NOW: one instant for the whole command. */
  readonly now: Date;
  /** $$CLUSTER_TIME; undefined on a standalone, where mongod refuses the variable. */
  readonly clusterTime: BsonValue | undefined;
  readonly frame: Frame;
  /** Next free variable slot (slot 0 is $$ROOT). */
  nextSlot: number;
  /** True while parsing a collection validator or other context where $rand is refused. */
  readonly forbidRandom?: boolean;
  /** The operation's collation: comparing expressions capture it when parsed. */
  readonly collator?: Collator | undefined;
  /** Server-side JavaScript ($function, $accumulator, $where); undefined when it is off. */
  readonly scripting?: ScriptHost | undefined;
}

export interface ParseContext {
  readonly env: ExpressionEnv;
  readonly scope: VariableScope;
  /** Nesting depth of the expression being parsed (limits.expressionDepthMax). */
  readonly depth: number;
  /** Parses a nested expression in this context (injected to keep operator files acyclic). */
  parse(spec: BsonValue, ctx?: ParseContext): Expression;
}

/** One operator ($add, $map, ...): parses its argument into an Expression. */
export interface OperatorDefinition {
  readonly name: string;
  parse(arg: BsonValue, ctx: ParseContext): Expression;
}
