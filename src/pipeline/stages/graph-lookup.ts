// $graphLookup: a breadth-first search over another collection. From the startWith values,
// documents whose connectToField equals a frontier value (find's equality, arrays matching
// by element) are found, optionally restricted by a filter; their connectFromField values form
// the next frontier, up to maxDepth. Each document is returned once, with its depth in
// depthField if asked. The visited set and frontier are bounded by
// internalDocumentSourceGraphLookupMaxMemoryBytes (40099). The search runs in steps: it yields
// between and within the queries of each depth.

import { withValueAt } from '../../bson/document.js';
import { Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { forEachPathValue } from '../../bson/path.js';
import { formatBson } from '../../bson/format.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { compileFilter, compileRestrictedFilter } from '../../query/match/index.js';
import type { Matcher } from '../../query/match/index.js';
import { planQuery } from '../../query/planner/planner.js';
import type { ReadView } from '../../storage/engine.js';
import { expressionContext } from '../context.js';
import { parseFieldPath } from '../expressions/field-path.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression } from '../expressions/types.js';
import { approximateValueSize } from '../../query/memory.js';
import { buildPipeline } from '../build.js';
import { sliceDue } from '../../query/exec/yield.js';
import { isNumeric, typeName } from '../values.js';
import { toDouble } from '../../bson/numeric.js';
import { ValueMap } from '../../bson/value-map.js';
import { drainSteps, FlatMapStage } from './base.js';
import type { Steps } from './base.js';
import { MatchStage } from './match.js';
import { foreignResolver } from './sub-pipeline.js';
import type { ForeignSource } from './sub-pipeline.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

interface GraphSpec {
  readonly from: string;
  readonly as: readonly string[];
  readonly startWith: Expression;
  readonly connectFrom: readonly string[];
  readonly connectTo: string;
  readonly maxDepth: number | undefined;
  readonly depthField: readonly string[] | undefined;
  readonly restrict: { filter: BsonDocument; matcher: Matcher } | undefined;
}

/**
 * The documents whose connectToField equals a frontier value. A null value matches only a
 * present null, not a missing field (jstests/aggregation/sources/graphLookup/missing_fields.js),
 * unlike find's {$eq: null}.
 */
function frontierFilter(field: string, values: readonly BsonValue[]): BsonDocument {
  const present = values.filter((v) => v !== null && v !== undefined);
  const byValue: BsonDocument = { [field]: { $in: present } };
  if (present.length === values.length) return byValue;
  return { $or: [byValue, { $and: [{ [field]: { $eq: null } }, { [field]: { $exists: true } }] }] };
}

class GraphLookupStage implements Stage {
  readonly name = '$graphLookup';
  constructor(
    private readonly spec: BsonDocument,
    private readonly g: GraphSpec,
    private readonly ctx: PipelineContext,
  ) {}
  serialize(): BsonDocument {
    return { $graphLookup: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const foreign = foreignResolver(rt, this.ctx, this.g.from);
    const bytesMax = rt.memory?.graphLookupBytesMax ?? limits.graphLookupMemoryBytesMax;
    return new FlatMapStage('$graphLookup', input, (doc, view) =>
      this.joined(doc, view, rt, foreign(view), bytesMax),
    );
  }
  private *joined(
    doc: BsonDocument,
    view: ReadView,
    rt: Runtime,
    foreign: ForeignSource,
    bytesMax: number,
  ): Steps<BsonDocument[]> {
    const found = yield* this.search(doc, view, rt, foreign, bytesMax);
    return [withValueAt(doc, this.g.as, found)];
  }
  /** The breadth-first search from one input document, yielding between and within queries. */
  private *search(
    doc: BsonDocument,
    view: ReadView,
    rt: Runtime,
    foreign: ForeignSource,
    bytesMax: number,
  ): Steps<BsonValue[]> {
    const g = this.g;
    rt.frame.vars[ROOT_SLOT] = doc;
    const start = g.startWith.evaluate(rt.frame);
    const coll = foreign.collection;
    if (coll === undefined) return [];
    const onView = foreign.view;
    let frontier: BsonValue[] = start === MISSING ? [] : isArray(start) ? [...start] : [start];
    const queried = new ValueMap<true>();
    const visited = new ValueMap<BsonDocument>();
    let bytes = 0;
    let frontierBytes = 0;
    for (
      let depth = 0;
      frontier.length > 0 && (g.maxDepth === undefined || depth <= g.maxDepth);
      depth++
    ) {
      const values = frontier.filter((v) => queried.get(v) === undefined);
      for (const v of values) queried.set(v, true);
      if (values.length === 0) break;
      const eq = frontierFilter(g.connectTo, values);
      const filter = g.restrict === undefined ? eq : { $and: [eq, g.restrict.filter] };
      // On a view, each step filters what the view's pipeline produces.
      const found = yield* drainSteps(
        onView === undefined
          ? planQuery(coll, {
              filter,
              matcher: compileFilter(filter, { collator: rt.collator }),
              collator: rt.collator,
              allowDiskUse: true,
            })
          : buildPipeline(
              {
                stages: [
                  ...onView.stages,
                  new MatchStage(
                    filter,
                    compileFilter(filter, { collator: rt.collator }),
                    onView.ctx,
                  ),
                ],
                ctx: onView.ctx,
              },
              { collection: coll },
              rt,
            ).plan,
        view,
      );
      frontier = [];
      frontierBytes = 0;
      for (const d of found) {
        const id = d['_id'] ?? null;
        if (visited.get(id) !== undefined) continue;
        const out =
          g.depthField === undefined ? d : withValueAt(d, g.depthField, Long.fromNumber(depth));
        visited.set(id, out);
        bytes += approximateValueSize(id) + approximateValueSize(out);
        forEachPathValue(d, g.connectFrom, 'omitArray', (v) => {
          // A missing connectFromField adds nothing (mongod's extractAllElementsAlongPath).
          if (v !== MISSING) {
            frontier.push(v);
            frontierBytes += approximateValueSize(v);
          }
          return false;
        });
        // mongod's checkMemoryUsage: the visited set and the next frontier together.
        if (bytes + frontierBytes >= bytesMax)
          fail(ErrorCode.Location40099, '$graphLookup reached maximum memory consumption');
        if (sliceDue()) yield;
      }
    }
    return visited.entries().map((e) => e.value);
  }
}

export const $graphLookup: StageDefinition = {
  name: '$graphLookup',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg))
      fail(
        ErrorCode.FailedToParse,
        `the $graphLookup stage specification must be an object, but found ${typeName(arg)}`,
      );
    if (arg['from'] === undefined)
      fail(
        ErrorCode.FailedToParse,
        `missing 'from' option to $graphLookup stage specification: ${formatBson(arg)}`,
      );
    let from: string | undefined;
    let as: string | undefined;
    let startWith: Expression | undefined;
    let connectFromField: string | undefined;
    let connectToField: string | undefined;
    let depthField: string | undefined;
    let maxDepth: number | undefined;
    let restrict: GraphSpec['restrict'];
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'startWith') {
        startWith = expressionContext(ctx).parse(v);
        continue;
      }
      if (k === 'maxDepth') {
        if (!isNumeric(v))
          fail(ErrorCode.Location40100, `maxDepth must be numeric, found type: ${typeName(v)}`);
        const n = Math.trunc(toDouble(v));
        if (n < 0)
          fail(ErrorCode.Location40101, `maxDepth requires a nonnegative argument, found: ${n}`);
        if (n !== toDouble(v))
          fail(ErrorCode.Location40102, `maxDepth could not be represented as a long long: ${n}`);
        maxDepth = n;
        continue;
      }
      if (k === 'restrictSearchWithMatch') {
        if (!isPlainDocument(v))
          fail(
            ErrorCode.Location40185,
            `restrictSearchWithMatch must be an object, found ${typeName(v)}`,
          );
        restrict = { filter: v, matcher: compileRestrictedFilter(v) };
        continue;
      }
      if (k === 'from') {
        // Codes from jstests/aggregation/sources/graphLookup/error.js.
        if (typeof v !== 'string')
          fail(ErrorCode.FailedToParse, `from must be a string, found ${typeName(v)}`);
        if (v === '')
          fail(ErrorCode.InvalidNamespace, `invalid $graphLookup namespace: ${ctx.db}.`);
        from = v;
        continue;
      }
      if (k === 'as' || k === 'connectFromField' || k === 'depthField' || k === 'connectToField') {
        if (typeof v !== 'string')
          fail(
            ErrorCode.Location40103,
            `expected string as argument for ${k}, found: ${formatBson(v)}`,
          );
        if (k === 'as') as = v;
        else if (k === 'connectFromField') connectFromField = v;
        else if (k === 'connectToField') connectToField = v;
        else depthField = v;
        continue;
      }
      fail(ErrorCode.Location40104, `Unknown argument to $graphLookup: ${k}`);
    }
    if (
      from === undefined ||
      as === undefined ||
      startWith === undefined ||
      connectFromField === undefined ||
      connectToField === undefined ||
      from === '' ||
      as === '' ||
      connectFromField === '' ||
      connectToField === ''
    ) {
      fail(
        ErrorCode.Location40105,
        "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified.",
      );
    }
    parseFieldPath(connectToField);
    return new GraphLookupStage(
      arg,
      {
        from,
        as: parseFieldPath(as),
        startWith,
        connectFrom: parseFieldPath(connectFromField),
        connectTo: connectToField,
        maxDepth,
        depthField: depthField === undefined ? undefined : parseFieldPath(depthField),
        restrict,
      },
      ctx,
    );
  },
};
