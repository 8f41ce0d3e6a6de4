// $currentOp: the operations in progress on this server, one document each, for
// {aggregate: 1} on admin. Options and their checks follow mongod 7.0's
// DocumentSourceCurrentOp: the lite parse refuses a non-object spec and a non-boolean
// allUsers / localOps (TypeMismatch) before the namespace is checked (InvalidNamespace);
// every other option error is FailedToParse. The documents come from the server
// (PipelineContext.server), computed when the cursor is first pulled.

import type { BsonDocument } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { typeName } from '../values.js';
import { ComputedSource } from './computed-source.js';
import type {
  CurrentOpOptions,
  PipelineContext,
  ServerIntrospection,
  Stage,
  StageDefinition,
} from './types.js';

const defaults: CurrentOpOptions = {
  allUsers: false,
  idleConnections: false,
  idleCursors: false,
  idleSessions: true,
  localOps: false,
  truncateOps: false,
  backtrace: false,
};

const isOption = (k: string): k is keyof CurrentOpOptions => Object.hasOwn(defaults, k);

/** Options checked by mongod's lite parse, before the namespace: TypeMismatch. */
const liteParsed = new Set(['allUsers', 'localOps']);

class CurrentOpStage implements Stage {
  readonly name = '$currentOp';
  readonly constraints = {
    first: true,
    collectionless: true,
    notInFacet: true,
    notInTransaction: true,
  } as const;
  constructor(
    private readonly options: CurrentOpOptions,
    private readonly server: ServerIntrospection | undefined,
  ) {}
  serialize(): BsonDocument {
    // As mongod serializes it: only the options that differ from their defaults.
    const spec: BsonDocument = {};
    for (const [k, v] of Object.entries(this.options))
      if (isOption(k) && v !== defaults[k]) spec[k] = v;
    return { $currentOp: spec };
  }
  attach(): PlanStage {
    return new ComputedSource('$currentOp', () => this.server?.currentOps(this.options) ?? []);
  }
}

export const $currentOp: StageDefinition = {
  name: '$currentOp',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.TypeMismatch,
        `$currentOp options must be specified in an object, but found: ${typeName(arg)}`,
      );
    for (const [k, v] of Object.entries(arg)) {
      if (liteParsed.has(k) && typeof v !== 'boolean') {
        fail(
          ErrorCode.TypeMismatch,
          `The '${k}' parameter of the $currentOp stage must be a boolean value, but found: ${typeName(v)}`,
        );
      }
    }
    if (ctx.db !== 'admin' || ctx.collection !== undefined) {
      fail(
        ErrorCode.InvalidNamespace,
        "$currentOp must be run against the 'admin' database with {aggregate: 1}",
      );
    }
    const options: { -readonly [K in keyof CurrentOpOptions]: boolean } = { ...defaults };
    for (const [k, v] of Object.entries(arg)) {
      if (!isOption(k))
        fail(ErrorCode.FailedToParse, `Unrecognized option '${k}' in $currentOp stage.`);
      if (typeof v !== 'boolean')
        fail(
          ErrorCode.FailedToParse,
          `The '${k}' parameter of the $currentOp stage must be a boolean value, but found: ${typeName(v)}`,
        );
      options[k] = v;
    }
    return new CurrentOpStage(options, ctx.server);
  },
};
