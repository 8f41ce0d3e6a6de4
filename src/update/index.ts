// The update language of MongoDB 7.0: operator updates, replacements, upserts.
// See compile.ts for the entry point and tree.ts / walk.ts for how updates apply.

export { compileUpdate } from './compile.js';
export { upsertSeed } from './upsert-seed.js';
export type { UpsertSeedOptions } from './upsert-seed.js';
export { binaryEqual, binaryEqualDocuments } from './binary-equal.js';
export { assertUpdatedDocumentSize, assertUpsertDocumentSize } from './finish.js';
export { applyPipelineOutput } from './replacement.js';
export { computeDiff, DiffBuilder } from './diff.js';
export type { DiffPathPart } from './diff.js';
export type {
  ApplyContext,
  CompileUpdateOptions,
  CompiledUpdate,
  FilterCompiler,
  FilterMatcher,
  UpdateResult,
  UpsertContext,
} from './types.js';
