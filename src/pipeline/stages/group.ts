// $group: documents grouped by the value of `_id` (an expression; missing counts as null),
// each output field an accumulator. Groups are compared with the aggregation equality (1 and
// 1.0 are one group; the first key seen is the one output). Output order is first-seen order
// (mongod promises none). Without allowDiskUse the groups' memory is bounded by
// limits.groupMemoryBytesMax (292); with it, we keep grouping in memory.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { setOwn } from '../../bson/document.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { accumulators } from '../accumulators/index.js';
import type { Accumulator, AccumulatorSpec } from '../accumulators/index.js';
import { expressionContext } from '../context.js';
import { AggCode } from '../error-codes.js';
import { approximateValueSize } from '../memory.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression, ParseContext } from '../expressions/types.js';
import { ValueMap } from '../value-map.js';
import { BlockingStage } from './base.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

export interface AccumulatedField {
  readonly name: string;
  readonly spec: AccumulatorSpec;
}

export interface GroupSpec {
  readonly id: Expression;
  readonly fields: readonly AccumulatedField[];
}

/** Parses `{field: {$acc: arg}}` (mongod's AccumulationStatement::parseAccumulationStatement). */
export function parseAccumulatedField(name: string, value: BsonValue, ctx: ParseContext): AccumulatedField {
  // Checked in mongod's order (AccumulationStatement::parseAccumulationStatement).
  if (!isPlainDocument(value) || !(Object.keys(value)[0] ?? '').startsWith('$')) fail(AggCode.Location40234, `The field '${name}' must be an accumulator object`);
  if (name.includes('.')) fail(AggCode.Location40235, `The field name '${name}' cannot contain '.'`);
  if (name.startsWith('$')) fail(AggCode.Location40236, `The field name '${name}' cannot be an operator name`);
  const keys = Object.keys(value);
  if (keys.length !== 1) fail(AggCode.Location40238, `The field '${name}' must specify one accumulator`);
  const accName = keys[0] as string;
  const arg = value[accName] as BsonValue;
  if (isArray(arg)) fail(AggCode.Location40237, `The ${accName} accumulator is a unary operator`);
  const def = accumulators.get(accName);
  if (def === undefined) fail(AggCode.Location15952, `unknown group operator '${accName}'`);
  return { name, spec: def.parse(arg, ctx) };
}

export function parseGroupSpec(arg: BsonValue, ctx: PipelineContext): GroupSpec {
  if (!isPlainDocument(arg)) fail(AggCode.Location15947, 'a group\'s fields must be specified in an object');
  const ectx = expressionContext(ctx);
  let id: Expression | undefined;
  const fields: AccumulatedField[] = [];
  for (const [k, v] of Object.entries(arg)) {
    if (k === '_id') id = ectx.parse(v);
    else fields.push(parseAccumulatedField(k, v, ectx));
  }
  if (id === undefined) fail(AggCode.Location15955, 'a group specification must include an _id');
  return { id, fields };
}

interface GroupState {
  readonly accs: Accumulator[];
}

/** Runs a group over documents: the shared engine of $group, $bucket and $sortByCount. */
export function groupDocuments(docs: Iterable<BsonDocument>, spec: GroupSpec, rt: Runtime, stageName: string): BsonDocument[] {
  const frame = rt.frame;
  const groups = new ValueMap<GroupState>();
  let bytes = 0;
  let n = 0;
  for (const doc of docs) {
    frame.vars[ROOT_SLOT] = doc;
    const k = spec.id.evaluate(frame);
    const key: BsonValue = k === MISSING ? null : k;
    let state = groups.get(key);
    if (state === undefined) {
      state = { accs: spec.fields.map((f) => createAccumulator(f.spec, key, rt)) };
      groups.set(key, state);
      bytes += approximateValueSize(key);
      frame.vars[ROOT_SLOT] = doc;
    }
    for (let i = 0; i < spec.fields.length; i++) {
      const acc = state.accs[i] as Accumulator;
      if (!acc.needsInput) continue;
      const before = acc.bytes;
      acc.process((spec.fields[i] as AccumulatedField).spec.argument.evaluate(frame));
      bytes += acc.bytes - before;
    }
    if (bytes > limits.groupMemoryBytesMax && !rt.allowDiskUse) {
      fail(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed, `Exceeded memory limit for ${stageName}, but didn't allow external sort. Pass allowDiskUse:true to opt in.`);
    }
    if ((++n & 1023) === 0) rt.interrupt();
  }
  return groups.entries().map(({ key, value }) => {
    const out: BsonDocument = { _id: key };
    spec.fields.forEach((f, i) => setOwn(out, f.name, valueOf(value.accs[i] as Accumulator)));
    return out;
  });
}

function valueOf(acc: Accumulator): BsonValue {
  const v = acc.value();
  return v === MISSING ? null : v;
}

/** Creates an accumulator, evaluating its initializer (`n`) against {_id: <group key>}. */
export function createAccumulator(spec: AccumulatorSpec, key: BsonValue, rt: Runtime): Accumulator {
  if (spec.initializer === undefined) return spec.create(null);
  rt.frame.vars[ROOT_SLOT] = { _id: key };
  return spec.create(spec.initializer.evaluate(rt.frame));
}

export class GroupStage implements Stage {
  readonly name = '$group';
  constructor(
    private readonly spec: BsonValue,
    readonly group: GroupSpec,
  ) {}
  serialize(): BsonDocument {
    return { $group: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    return new BlockingStage('$group', input, (docs) => groupDocuments(docs, this.group, rt, '$group'));
  }
}

export const $group: StageDefinition = {
  name: '$group',
  parse(arg, ctx) {
    return new GroupStage(arg, parseGroupSpec(arg, ctx));
  },
};
