// The shapes of pipeline stages. A stage is parsed and validated once (parse), may be merged
// with its neighbours (pipeline.ts optimises), and then attached on top of its input as a
// pull-based PlanStage (the exec layer's operator interface), so a pipeline is a PlanStage
// tree that a ServerCursor drives batch by batch, each batch on its own storage snapshot.

import type { Collator } from '../../bson/collation.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { Collection } from '../../catalog/collection.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { invariant } from '../../errors.js';
import type { ExpressionEnv, Frame, VariableScope } from '../expressions/types.js';
import type { MemoryPolicy } from '../../query/memory.js';
import type { TextParams, TextSearch } from '../../text/query.js';

/** Where a stage may stand (mongod's StageConstraints::PositionRequirement and friends). */
export interface StageConstraints {
  /** Must be the first stage ($documents, $collStats, $indexStats, $changeStream...). */
  readonly first?: boolean;
  /** Must be the last stage ($out, $merge). */
  readonly last?: boolean;
  /** Writes to a collection: runs to completion in the command, then writes. */
  readonly writes?: boolean;
  /** Allowed in {aggregate: 1} without a collection ($documents, $currentOp, ...). */
  readonly collectionless?: boolean;
  /** Refused at the head of a collection's pipeline (InvalidNamespace): $documents. */
  readonly noCollection?: boolean;
  /** Refused inside $facet (40600). */
  readonly notInFacet?: boolean;
  /** Refused inside $lookup (51047) and $unionWith (31441) sub-pipelines. */
  readonly notInLookup?: boolean;
  /** Refused in a multi-document transaction (263): $currentOp, $listLocalSessions. */
  readonly notInTransaction?: boolean;
}

/** Run-time services of one command: the catalog for foreign reads, the frame, interruption. */
export interface Runtime {
  /** Absent where a pipeline only reshapes documents (pipeline-style updates). */
  readonly catalog: Catalog | undefined;
  readonly db: string;
  readonly frame: Frame;
  readonly allowDiskUse: boolean;
  /** Memory limits of blocking stages and where they spill (default: limits.ts, no spilling). */
  readonly memory?: MemoryPolicy | undefined;
  /** Throws MaxTimeMSExpired (or similar) when the operation must stop; called in long loops. */
  interrupt: () => void;
  /** The operation's collation: $sort, $group keys and the collection query compare strings by it. */
  readonly collator?: Collator | undefined;
}

/** Parse-time context of a pipeline (the command's, or a sub-pipeline's). */
export interface PipelineContext {
  readonly env: ExpressionEnv;
  /** Variables visible to expressions: the command's `let`, a $lookup's `let`. */
  readonly scope: VariableScope;
  readonly db: string;
  /** The collection the pipeline reads; undefined for {aggregate: 1}. */
  readonly collection: string | undefined;
  readonly allowDiskUse: boolean;
  /** The operation's collation: $match filters compare strings by it. */
  readonly collator?: Collator | undefined;
  /** Compiles $text against the collection's text index (the command's pipeline only). */
  readonly textSearch?: ((params: TextParams) => TextSearch) | undefined;
  /** 0 for the command's pipeline; +1 inside each $lookup/$facet/$unionWith. */
  readonly subPipelineDepth: number;
  readonly inFacet: boolean;
  readonly inLookup: boolean;
  /** Inside a $unionWith sub-pipeline (its own code, 31441, for refused stages). */
  readonly inUnionWith?: boolean;
  /** Set while parsing a pipeline-style update (only a few stages are allowed). */
  readonly forUpdate?: boolean;
  /** The command runs in a multi-document transaction (stages with notInTransaction refuse). */
  readonly inTransaction?: boolean;
  /** The command's logical session id ({id: UUID}), for $listLocalSessions. */
  readonly session?: BsonDocument | undefined;
  /** What the server reports about itself ($currentOp, $listSessions); absent outside commands. */
  readonly server?: ServerIntrospection | undefined;
  /**
   * How the Atlas Search stages are refused, by the version the server reports: 8.0's
   * SearchNotEnabled (31082) when set, else 7.0's 6047401.
   */
  readonly searchNotEnabled?: boolean;
  /**
   * Parses a sub-pipeline ($lookup, $facet, $unionWith, views, $merge's update) with the stage
   * registry. parsePipeline sets it on the context its stages get: a stage cannot import the
   * registry, which imports every stage.
   */
  readonly parseSubPipeline?: (
    pipeline: readonly BsonValue[],
    ctx: PipelineContext,
  ) => ParsedPipeline;
}

/** A pipeline parsed in a context (the context its stages were parsed in). */
export interface ParsedPipeline {
  readonly stages: readonly Stage[];
  readonly ctx: PipelineContext;
}

/** $currentOp's options, defaults applied (mongod's DocumentSourceCurrentOp modes). */
export interface CurrentOpOptions {
  readonly allUsers: boolean;
  readonly idleConnections: boolean;
  readonly idleCursors: boolean;
  readonly idleSessions: boolean;
  readonly localOps: boolean;
  /** Commands over 1000 bytes shown as {$truncated: "..."} (the currentOp command's form). */
  readonly truncateOps: boolean;
  readonly backtrace: boolean;
}

/** A logical session in the server's cache. */
export interface SessionRecord {
  /** The lsid ({id: UUID}). */
  readonly lsid: BsonDocument;
  readonly lastUse: Date;
}

/** The server's view of itself, for the stages that report on it. */
export interface ServerIntrospection {
  /** One document per operation in progress (and idle connection / cursor / session, as asked). */
  currentOps(options: CurrentOpOptions): BsonDocument[];
  /** The logical sessions the server knows. */
  sessions(): SessionRecord[];
  /** $collStats latencyStats: microseconds and operations of a namespace, by kind. */
  latencyStats?(ns: string): LatencyStats | undefined;
}

export interface LatencyStats {
  readonly reads: { readonly latency: number; readonly ops: number };
  readonly writes: { readonly latency: number; readonly ops: number };
  readonly commands: { readonly latency: number; readonly ops: number };
}

export interface Stage {
  /** The stage name as written ("$match"). */
  readonly name: string;
  readonly constraints?: StageConstraints;
  /** The stage as explain shows it ({$match: {...}}). */
  serialize(): BsonDocument;
  /** Builds the runnable operator on top of `input`. */
  attach(input: PlanStage, rt: Runtime): PlanStage;
}

export interface StageDefinition {
  readonly name: string;
  /** Parses and validates the stage's argument; may expand into several stages ($sortByCount). */
  parse(arg: BsonValue, ctx: PipelineContext): Stage | Stage[];
}

/** The catalog, for stages that read or write other collections. */
export function catalogOf(rt: Runtime): Catalog {
  invariant(rt.catalog !== undefined, 'a stage that reads collections ran without a catalog');
  return rt.catalog;
}

/** Resolves a collection at run time (undefined if absent). */
export function collectionOf(
  rt: Runtime,
  name: string,
  db: string = rt.db,
): Collection | undefined {
  return catalogOf(rt).get(db, name);
}
