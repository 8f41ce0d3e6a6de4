// $lookup: joins each input document with documents of another collection of the same
// database, stored as an array at `as`. Equality form (localField/foreignField: the local
// values — every value the path reaches, arrays expanded, missing as null — against the
// foreign field with find's equality), pipeline form (`let` variables evaluated on the input
// document, then a sub-pipeline over the foreign collection), or both. A missing foreign
// collection joins nothing.

import { withValueAt } from '../../bson/document.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument, BSONRegExp } from '../../bson/types.js';
import { forEachPathValue } from '../../bson/path.js';
import { ErrorCode, fail } from '../../errors.js';
import { compileFilter } from '../../query/match/index.js';
import { planQuery } from '../../query/planner/planner.js';
import type { ReadView } from '../../storage/engine.js';
import { compileMatch, expressionContext } from '../context.js';
import { defineVariable, newScope, validateNameForUserWrite } from '../expressions/variables.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression } from '../expressions/types.js';
import { parseFieldPath } from '../expressions/field-path.js';
import { buildPipeline } from '../build.js';
import { typeName } from '../values.js';
import { newStats } from './base.js';
import type { PlanStage, Row, StageStats } from '../../query/exec/stages.js';
import { NEED_TIME, runSync, sliceDue } from '../../query/exec/yield.js';
import type { Pull } from '../../query/exec/yield.js';
import { MatchStage } from './match.js';
import { childContext, foreignResolver, parseSubPipeline, pipelineArray } from './sub-pipeline.js';
import type { ForeignSource } from './sub-pipeline.js';
import type { ParsedPipeline, PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

/** Every value a path reaches in a document (find semantics); none reached → [null]. */
export function localValues(doc: BsonDocument, parts: readonly string[]): BsonValue[] {
  const out: BsonValue[] = [];
  forEachPathValue(doc, parts, 'omitArray', (v) => {
    out.push(v === MISSING ? null : v);
    return false;
  });
  return out.length === 0 ? [null] : out;
}

/** The foreign filter matching any of the local values by equality (regexes as values). */
export function equalityFilter(field: string, values: readonly BsonValue[]): BsonDocument {
  if (values.length === 1 && !(values[0] instanceof BSONRegExp))
    return { [field]: { $eq: values[0] ?? null } };
  return { $or: values.map((v) => ({ [field]: { $eq: v } })) };
}

interface LetVariable {
  readonly slot: number;
  readonly expr: Expression;
}

class LookupStage implements Stage {
  readonly name = '$lookup';
  constructor(
    private readonly spec: BsonDocument,
    private readonly from: string | undefined,
    private readonly as: readonly string[],
    private readonly equality: { local: readonly string[]; foreign: string } | undefined,
    private readonly letVars: readonly LetVariable[],
    private readonly pipeline: ParsedPipeline | undefined,
    private readonly ctx: PipelineContext,
  ) {}
  serialize(): BsonDocument {
    return { $lookup: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const foreign = this.from === undefined ? undefined : foreignResolver(rt, this.ctx, this.from);
    return new JoinPlan(input, this.as, (doc, view) => this.join(doc, rt, foreign?.(view)));
  }

  /** What joining `doc` runs: a plan over the foreign side, maybe feeding a second one. */
  private join(
    doc: BsonDocument,
    rt: Runtime,
    foreign: ForeignSource | undefined,
  ): JoinTask | undefined {
    const coll = foreign?.collection;
    rt.frame.vars[ROOT_SLOT] = doc;
    for (const v of this.letVars) rt.frame.vars[v.slot] = v.expr.evaluate(rt.frame);
    if (this.equality !== undefined && this.from === undefined && this.pipeline !== undefined) {
      // No `from`: the sub-pipeline starts with $documents, and the join's equality filters
      // what it produces, right after it.
      const filter = equalityFilter(this.equality.foreign, localValues(doc, this.equality.local));
      const ctx = this.pipeline.ctx;
      const stages = [...this.pipeline.stages];
      stages.splice(1, 0, new MatchStage(filter, compileMatch(filter, ctx), ctx));
      return { plan: buildPipeline({ stages, ctx }, { collection: undefined }, rt).plan };
    }
    if (foreign?.view !== undefined) return this.joinView(doc, rt, foreign.view, coll);
    const pipeline = this.pipeline;
    if (this.equality !== undefined) {
      if (coll === undefined) return undefined;
      const filter = equalityFilter(this.equality.foreign, localValues(doc, this.equality.local));
      // The join compares by the pipeline's collation (mongod: the foreign collection's default does not apply).
      const plan = planQuery(coll, {
        filter,
        matcher: compileFilter(filter, { collator: rt.collator }),
        collator: rt.collator,
        allowDiskUse: rt.allowDiskUse,
      });
      if (pipeline === undefined) return { plan };
      return {
        plan,
        then: (matched) => buildPipeline(pipeline, { documents: matched }, rt).plan,
      };
    }
    if (pipeline === undefined) return undefined;
    return { plan: buildPipeline(pipeline, { collection: coll }, rt).plan };
  }

  /** A join with a view: its pipeline, then the join's equality, then the sub-pipeline. */
  private joinView(
    doc: BsonDocument,
    rt: Runtime,
    onView: ParsedPipeline,
    coll: ForeignSource['collection'],
  ): JoinTask {
    const stages = [...onView.stages];
    if (this.equality !== undefined) {
      const filter = equalityFilter(this.equality.foreign, localValues(doc, this.equality.local));
      stages.push(new MatchStage(filter, compileMatch(filter, onView.ctx), onView.ctx));
    }
    if (this.pipeline !== undefined) stages.push(...this.pipeline.stages);
    return {
      plan: buildPipeline(
        { stages, ctx: this.pipeline?.ctx ?? onView.ctx },
        { collection: coll },
        rt,
      ).plan,
    };
  }
}

/** The foreign side of one join: a plan, and maybe a second plan over what the first found. */
interface JoinTask {
  readonly plan: PlanStage;
  readonly then?: (matched: BsonDocument[]) => PlanStage;
}

/**
 * $lookup's plan: for each input document, the foreign plans run a slice at a time (a join
 * over many foreign documents yields like any scan), and the matches go into `as`.
 */
class JoinPlan implements PlanStage {
  readonly stats: StageStats;
  private outer: BsonDocument | undefined;
  private task: JoinTask | undefined;
  private matched: BsonDocument[] = [];

  constructor(
    private readonly input: PlanStage,
    private readonly as: readonly string[],
    private readonly start: (doc: BsonDocument, view: ReadView) => JoinTask | undefined,
  ) {
    this.stats = newStats('$lookup', [input]);
  }

  next(view: ReadView): Pull {
    for (;;) {
      let outer = this.outer;
      if (outer === undefined) {
        const row = this.input.next(view);
        if (row === undefined || row === NEED_TIME) return row;
        this.stats.works++;
        outer = row.doc;
        const task = runSync(() => this.start(row.doc, view));
        if (task === undefined) return this.emit(row.doc, []);
        this.outer = outer;
        this.task = task;
        this.matched = [];
      }
      const task = this.task as JoinTask;
      const r = task.plan.next(view);
      if (r === NEED_TIME) return r;
      if (r === undefined) {
        const matched = this.matched;
        this.matched = [];
        if (task.then !== undefined) {
          const then = task.then;
          this.task = { plan: runSync(() => then(matched)) };
          continue;
        }
        this.outer = undefined;
        this.task = undefined;
        return this.emit(outer, matched);
      }
      this.matched.push(r.doc);
      if (sliceDue()) return NEED_TIME;
    }
  }

  private emit(doc: BsonDocument, matched: BsonDocument[]): Row {
    this.stats.nReturned++;
    return { doc: withValueAt(doc, this.as, matched) };
  }
}

export const $lookup: StageDefinition = {
  name: '$lookup',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg))
      fail(ErrorCode.FailedToParse, 'the $lookup specification must be an Object');
    let from: string | undefined;
    let as: string | undefined;
    let localField: string | undefined;
    let foreignField: string | undefined;
    let letSpec: BsonDocument | undefined;
    let pipelineSpec: BsonValue[] | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'pipeline') {
        pipelineSpec = pipelineArray(v, "'pipeline' option must be specified as an array");
      } else if (k === 'let') {
        if (!isPlainDocument(v))
          fail(
            ErrorCode.FailedToParse,
            `$lookup argument 'let' must be an object, is type ${typeName(v)}`,
          );
        letSpec = v;
      } else if (k === 'from') {
        if (typeof v === 'string') from = v;
        else if (
          isPlainDocument(v) &&
          typeof v['coll'] === 'string' &&
          (v['db'] === undefined || v['db'] === ctx.db)
        )
          from = v['coll'];
        else
          fail(
            ErrorCode.FailedToParse,
            `$lookup 'from' field must be a string or an object, but found ${typeName(v)}`,
          );
      } else if (k === 'as' || k === 'localField' || k === 'foreignField') {
        if (typeof v !== 'string')
          fail(
            ErrorCode.FailedToParse,
            `$lookup argument '${k}: ${String(v)}' must be a string, found type: ${typeName(v)}`,
          );
        if (k === 'as') as = v;
        else if (k === 'localField') localField = v;
        else foreignField = v;
      } else {
        fail(ErrorCode.FailedToParse, `unknown argument to $lookup: ${k}`);
      }
    }
    if (as === undefined || as.length === 0)
      fail(ErrorCode.FailedToParse, "must specify 'as' field for a $lookup");
    if ((localField === undefined) !== (foreignField === undefined)) {
      fail(
        ErrorCode.FailedToParse,
        pipelineSpec === undefined
          ? "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified"
          : "$lookup requires both or neither of 'localField' and 'foreignField' to be specified",
      );
    }
    if (pipelineSpec === undefined && localField === undefined) {
      fail(
        ErrorCode.FailedToParse,
        "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified",
      );
    }
    if (letSpec !== undefined && pipelineSpec === undefined)
      fail(ErrorCode.FailedToParse, "$lookup with 'let' must also specify 'pipeline'");
    const startsWithDocuments =
      pipelineSpec !== undefined &&
      isPlainDocument(pipelineSpec[0]) &&
      Object.keys(pipelineSpec[0])[0] === '$documents';
    if (from === undefined && pipelineSpec === undefined)
      fail(ErrorCode.FailedToParse, "must specify 'pipeline' when 'from' is empty");
    if (from === undefined && !startsWithDocuments)
      fail(ErrorCode.FailedToParse, "must specify 'from' field for a $lookup");
    const asParts = parseFieldPath(as);
    // The `let` expressions see the outer scope; the sub-pipeline sees them as variables.
    const outer = expressionContext(ctx);
    const scope = newScope(ctx.scope);
    const letVars: LetVariable[] = Object.entries(letSpec ?? {}).map(([name, spec]) => {
      validateNameForUserWrite(name);
      const expr = outer.parse(spec);
      return { slot: defineVariable(ctx.env, scope, name), expr };
    });
    const sub = childContext(ctx, { inLookup: true, collection: from, scope });
    const pipeline = pipelineSpec === undefined ? undefined : parseSubPipeline(pipelineSpec, sub);
    const equality =
      localField === undefined || foreignField === undefined
        ? undefined
        : { local: parseFieldPath(localField), foreign: foreignField };
    if (foreignField !== undefined) parseFieldPath(foreignField);
    return new LookupStage(arg, from, asParts, equality, letVars, pipeline, ctx);
  },
};
