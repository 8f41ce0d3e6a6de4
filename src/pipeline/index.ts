// The aggregation layer's public surface: pipelines for the aggregate command, the `$expr`
// hook for find filters, and pipeline-style updates.

export {
  buildPipeline,
  parsePipeline,
  optimize,
  runToArray,
  searchIndexesNotEnabledMessage,
} from './pipeline.js';
export { checkPipelineInApiV1 } from './stages/index.js';
export type { BuiltPipeline, ParsedPipeline } from './pipeline.js';
export { exprCompiler, compileMatch, defineLetVariables, queryExpressions } from './context.js';
export type { QueryExpressions, QueryVariablesOptions } from './context.js';
export { compileUpdatePipeline } from './update.js';
export type { UpdatePipelineOptions } from './update.js';
export {
  newEnv,
  newScope,
  defineConstant,
  parseExpression,
  rootContext,
  evaluateOn,
  validateNameForUserWrite,
} from './expressions/index.js';
export type {
  Expression,
  ExpressionEnv,
  Frame,
  Value,
  VariableScope,
} from './expressions/index.js';
export type {
  CurrentOpOptions,
  PipelineContext,
  Runtime,
  ServerIntrospection,
  SessionRecord,
  Stage,
  StageConstraints,
} from './stages/types.js';
