// $geoNear: the collection's documents in order of distance from a point, each with its distance
// (and, with includeLocs, the location it was measured to). As in mongod
// (DocumentSourceGeoNear::asNearQuery), the stage is the query {...query, <key>: {$near |
// $nearSphere: near, $minDistance, $maxDistance}} run by the planner's GEO_NEAR plans; `key` is
// the geo index's field, found when there is exactly one 2d (else one 2dsphere) index. Units:
// meters from a GeoJSON point, radians from a legacy pair with spherical, else the flat units of
// a 2d index; distanceMultiplier scales the distance written to distanceField.

import { Double } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument, numericValue } from '../../bson/types.js';
import { withValueAt } from '../../bson/document.js';
import type { Collection } from '../../catalog/collection.js';
import { CommandError, ErrorCode, fail } from '../../errors.js';
import { copyMetadata, metadataOf } from '../../query/exec/metadata.js';
import { RowsStage } from '../../query/exec/stages.js';
import type { PlanStage } from '../../query/exec/stages.js';
import { NEED_TIME } from '../../query/exec/yield.js';
import type { Pull } from '../../query/exec/yield.js';
import { planQuery } from '../../query/planner/planner.js';
import type { ReadView } from '../../storage/engine.js';
import { compileMatch } from '../context.js';
import { newStats } from './base.js';
import { collectionOf } from './types.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

interface GeoNearSpec {
  readonly near: BsonValue;
  readonly distanceField: string;
  readonly spherical: boolean;
  readonly minDistance?: number;
  readonly maxDistance?: number;
  readonly distanceMultiplier?: number;
  readonly query: BsonDocument;
  readonly includeLocs?: string;
  readonly key?: string;
}

function numberOption(options: BsonDocument, name: string): number | undefined {
  const v = options[name];
  if (v === undefined) return undefined;
  const n = numericValue(v);
  if (n === undefined) fail(ErrorCode.TypeMismatch, `${name} must be a number`);
  if (!(n >= 0)) fail(ErrorCode.BadValue, `${name} must be nonnegative`);
  return n;
}

function parseSpec(options: BsonDocument): GeoNearSpec {
  if (options['collation'] !== undefined)
    fail(
      ErrorCode.Location40227,
      "$geoNear does not accept the 'collation' parameter. Instead, specify a collation for the entire aggregation command.",
    );
  if (options['limit'] !== undefined)
    fail(
      ErrorCode.Location50858,
      "$geoNear no longer supports the 'limit' parameter. Use a $limit stage instead.",
    );
  if (options['num'] !== undefined)
    fail(
      ErrorCode.Location50857,
      "$geoNear no longer supports the 'num' parameter. Use a $limit stage instead.",
    );
  if (options['start'] !== undefined)
    fail(ErrorCode.Location50856, "$geoNear no longer supports the 'start' argument.");
  const near = options['near'];
  if (near === undefined) fail(ErrorCode.Location5860400, "$geoNear requires a 'near' argument");
  if (!isArray(near) && !isPlainDocument(near))
    fail(
      ErrorCode.Location5860401,
      '$geoNear requires near argument to be a GeoJSON object or a legacy point(array)',
    );
  const distanceField = options['distanceField'];
  if (typeof distanceField !== 'string')
    fail(ErrorCode.Location16606, "$geoNear requires a 'distanceField' option as a String");
  const query = options['query'];
  if (query !== undefined && !isPlainDocument(query))
    fail(ErrorCode.TypeMismatch, 'query must be an object');
  const includeLocs = options['includeLocs'];
  if (includeLocs !== undefined && typeof includeLocs !== 'string')
    fail(ErrorCode.Location16607, "$geoNear requires that 'includeLocs' option is a String");
  const key = options['key'];
  if (key !== undefined && typeof key !== 'string')
    fail(ErrorCode.TypeMismatch, "$geoNear parameter 'key' must be of type string");
  if (key === '') fail(ErrorCode.BadValue, "$geoNear parameter 'key' cannot be the empty string");
  const spherical = options['spherical'];
  const minDistance = numberOption(options, 'minDistance');
  const maxDistance = numberOption(options, 'maxDistance');
  const distanceMultiplier = numberOption(options, 'distanceMultiplier');
  return {
    near,
    distanceField,
    spherical:
      spherical !== undefined &&
      spherical !== null &&
      spherical !== false &&
      numericValue(spherical) !== 0,
    query: (query as BsonDocument | undefined) ?? {},
    ...(minDistance === undefined ? {} : { minDistance }),
    ...(maxDistance === undefined ? {} : { maxDistance }),
    ...(distanceMultiplier === undefined ? {} : { distanceMultiplier }),
    ...(includeLocs === undefined ? {} : { includeLocs }),
    ...(key === undefined ? {} : { key }),
  };
}

/** mongod's extractGeoNearFieldFromIndexes: the field of the one 2d (else 2dsphere) index. */
function geoKeyOf(coll: Collection): string {
  for (const kind of ['2d', '2dsphere'] as const) {
    const found = coll.indexes.filter((i) => i.kind === kind);
    if (found.length > 1) {
      throw new CommandError(
        ErrorCode.IndexNotFound,
        `There is more than one ${kind} index on ${coll.ns}; unsure which to use for $geoNear`,
      );
    }
    const field = found[0]?.fields.find((f) => f.plugin === kind);
    if (field !== undefined) return field.path;
  }
  throw new CommandError(
    ErrorCode.IndexNotFound,
    '$geoNear requires a 2d or 2dsphere index, but none were found',
  );
}

class GeoNearSource implements PlanStage {
  readonly stats;
  private plan: PlanStage | undefined;

  constructor(
    private readonly spec: GeoNearSpec,
    private readonly ctx: PipelineContext,
    private readonly rt: Runtime,
  ) {
    this.stats = newStats('$geoNear', []);
  }

  private build(): PlanStage {
    const { spec, ctx, rt } = this;
    const coll = collectionOf(rt, ctx.collection ?? '', ctx.db);
    if (coll === undefined) return new RowsStage([], 'EOF');
    const key = spec.key ?? geoKeyOf(coll);
    const nearOp: BsonDocument = { [spec.spherical ? '$nearSphere' : '$near']: spec.near };
    if (spec.minDistance !== undefined) nearOp['$minDistance'] = new Double(spec.minDistance);
    if (spec.maxDistance !== undefined) nearOp['$maxDistance'] = new Double(spec.maxDistance);
    const filter: BsonDocument = { ...spec.query, [key]: nearOp };
    const plan = planQuery(coll, {
      filter,
      matcher: compileMatch(filter, ctx),
      collator: rt.collator,
      allowDiskUse: rt.allowDiskUse,
      memory: rt.memory,
      interrupt: () => rt.interrupt(),
    });
    this.stats.children.push(plan.stats);
    return plan;
  }

  next(view: ReadView): Pull {
    this.plan ??= this.build();
    const row = this.plan.next(view);
    if (row === undefined || row === NEED_TIME) return row;
    const meta = metadataOf(row.doc);
    const distance = (meta?.geoNearDistance ?? 0) * (this.spec.distanceMultiplier ?? 1);
    let out = withValueAt(row.doc, this.spec.distanceField.split('.'), new Double(distance));
    if (this.spec.includeLocs !== undefined && meta?.geoNearPoint !== undefined)
      out = withValueAt(out, this.spec.includeLocs.split('.'), meta.geoNearPoint);
    copyMetadata(row.doc, out);
    this.stats.works++;
    this.stats.nReturned++;
    return { doc: out };
  }
}

class GeoNearStage implements Stage {
  readonly name = '$geoNear';
  readonly constraints = { first: true, notInFacet: true } as const;
  constructor(
    private readonly raw: BsonDocument,
    private readonly spec: GeoNearSpec,
    private readonly ctx: PipelineContext,
  ) {}
  serialize(): BsonDocument {
    return { $geoNear: this.raw };
  }
  attach(_input: PlanStage, rt: Runtime): PlanStage {
    return new GeoNearSource(this.spec, this.ctx, rt);
  }
}

export const $geoNear: StageDefinition = {
  name: '$geoNear',
  parse(arg, ctx) {
    if (!isPlainDocument(arg))
      fail(ErrorCode.Location10065, 'invalid parameter: expected an object ($geoNear)');
    return new GeoNearStage(arg, parseSpec(arg), ctx);
  },
};
