// $group: documents grouped by the value of `_id` (an expression; missing counts as null),
// each output field an accumulator. Groups are compared with the aggregation equality (1 and
// 1.0 are one group; the first key seen is the one output). Output order is first-seen order
// (mongod promises none). The groups' memory is bounded by internalDocumentSourceGroupMaxMemoryBytes:
// past it a group spills to disk (see groupStream) or, without disk use, fails with 292.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { getOwn, setOwn } from '../../bson/document.js';
import { ErrorCode, fail } from '../../errors.js';
import { limits } from '../../limits.js';
import { accumulators } from '../accumulators/index.js';
import type { Accumulator, AccumulatorSpec } from '../accumulators/index.js';
import { expressionContext } from '../context.js';
import { approximateValueSize } from '../../query/memory.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression, ParseContext, Value } from '../expressions/types.js';
import { ValueMap } from '../../bson/value-map.js';
import { StreamingBlockingStage } from '../spill/stream-stage.js';
import { ExternalSorter } from '../../query/spill/sorter.js';
import type { RecordCodec, SortedStream } from '../../query/spill/sorter.js';
import type { SpillScope } from '../../query/spill/area.js';
import { decodeDocument, encodeDocument } from '../../bson/codec.js';
import { compareBson } from '../../bson/compare.js';
import { Int32, Long } from 'bson';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';
import type { BlockingComputation } from './base.js';

export interface AccumulatedField {
  readonly name: string;
  readonly spec: AccumulatorSpec;
}

export interface GroupSpec {
  readonly id: Expression;
  readonly fields: readonly AccumulatedField[];
}

/** Parses `{field: {$acc: arg}}` (mongod's AccumulationStatement::parseAccumulationStatement). */
export function parseAccumulatedField(
  name: string,
  value: BsonValue,
  ctx: ParseContext,
): AccumulatedField {
  // Checked in mongod's order (AccumulationStatement::parseAccumulationStatement).
  if (!isPlainDocument(value) || !(Object.keys(value)[0] ?? '').startsWith('$'))
    fail(ErrorCode.Location40234, `The field '${name}' must be an accumulator object`);
  if (name.includes('.'))
    fail(ErrorCode.Location40235, `The field name '${name}' cannot contain '.'`);
  if (name.startsWith('$'))
    fail(ErrorCode.Location40236, `The field name '${name}' cannot be an operator name`);
  const keys = Object.keys(value);
  if (keys.length !== 1)
    fail(ErrorCode.Location40238, `The field '${name}' must specify one accumulator`);
  const accName = keys[0] as string;
  const arg = value[accName] as BsonValue;
  if (isArray(arg)) fail(ErrorCode.Location40237, `The ${accName} accumulator is a unary operator`);
  const def = accumulators.get(accName);
  if (def === undefined) fail(ErrorCode.Location15952, `unknown group operator '${accName}'`);
  return { name, spec: def.parse(arg, ctx) };
}

export function parseGroupSpec(arg: BsonValue, ctx: PipelineContext): GroupSpec {
  if (!isPlainDocument(arg))
    fail(ErrorCode.Location15947, "a group's fields must be specified in an object");
  const ectx = expressionContext(ctx);
  let id: Expression | undefined;
  const fields: AccumulatedField[] = [];
  for (const [k, v] of Object.entries(arg)) {
    if (k === '_id') id = ectx.parse(v);
    else fields.push(parseAccumulatedField(k, v, ectx));
  }
  if (id === undefined) fail(ErrorCode.Location15955, 'a group specification must include an _id');
  return { id, fields };
}

interface GroupState {
  readonly accs: Accumulator[];
}

/** One input spilled by a $group that ran out of memory: its group key and accumulator arguments. */
interface GroupInput {
  readonly key: BsonValue;
  readonly args: Value[];
}

/** Spill records: {k: key, n: number of arguments, a: {<i>: argument}}, a missing argument left out. */
const groupInputCodec: RecordCodec<GroupInput> = {
  encode(input) {
    const a: BsonDocument = {};
    input.args.forEach((v, i) => {
      if (v !== MISSING) a[String(i)] = v;
    });
    return encodeDocument({ k: input.key, n: new Int32(input.args.length), a });
  },
  decode(bytes) {
    const rec = decodeDocument(bytes);
    const a = rec['a'] as BsonDocument;
    const args: Value[] = [];
    for (let i = 0; i < Number(rec['n']); i++) args.push(getOwn(a, String(i)) ?? MISSING);
    return { key: rec['k'] as BsonValue, args };
  },
};

/**
 * A group over documents, fed one at a time: the shared engine of $group, $bucket and
 * $sortByCount.
 *
 * Groups are kept in memory until they pass the group memory limit. Then, if disk use is
 * allowed, the groups held so far are frozen and every later input goes, as its group key and
 * accumulator arguments, into an external sort by group key (../spill/sorter.ts). The output
 * merges the frozen groups, in key order, with the sorted inputs: each group's accumulators see
 * its inputs in their original order, so $first, $push and $sum give what they give in memory.
 * A group that spilled comes out in group-key order; otherwise in first-seen order.
 */
export class GroupComputation implements BlockingComputation<SortedStream<BsonDocument>> {
  private readonly groups: ValueMap<GroupState>;
  private readonly bytesMax: number;
  private sorter: ExternalSorter<GroupInput> | undefined;
  private bytes = 0;

  constructor(
    private readonly spec: GroupSpec,
    private readonly rt: Runtime,
    private readonly stageName: string,
    private readonly stats: { usedDisk: boolean; spills: number } = { usedDisk: false, spills: 0 },
  ) {
    this.groups = new ValueMap<GroupState>(rt.collator);
    this.bytesMax = rt.memory?.groupBytesMax ?? limits.groupMemoryBytesMax;
  }

  add(doc: BsonDocument): void {
    const { spec, rt } = this;
    const frame = rt.frame;
    frame.vars[ROOT_SLOT] = doc;
    const k = spec.id.evaluate(frame);
    const key: BsonValue = k === MISSING ? null : k;
    if (this.sorter !== undefined) {
      frame.vars[ROOT_SLOT] = doc;
      this.sorter.add({ key, args: spec.fields.map((f) => f.spec.argument.evaluate(frame)) });
      return;
    }
    let state = this.groups.get(key);
    if (state === undefined) {
      state = { accs: spec.fields.map((f) => createAccumulator(f.spec, key, rt)) };
      this.groups.set(key, state);
      this.bytes += groupOverheadBytes + approximateValueSize(key);
      frame.vars[ROOT_SLOT] = doc;
    }
    for (let i = 0; i < spec.fields.length; i++) {
      const acc = state.accs[i] as Accumulator;
      if (!acc.needsInput) continue;
      const before = acc.bytes;
      acc.process((spec.fields[i] as AccumulatedField).spec.argument.evaluate(frame));
      this.bytes += acc.bytes - before;
    }
    if (this.bytes > this.bytesMax) {
      if (!rt.allowDiskUse) {
        fail(
          ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed,
          `Exceeded memory limit for ${this.stageName}, but didn't allow external sort. Pass allowDiskUse:true to opt in.`,
        );
      }
      const spill = rt.memory?.spill;
      if (spill !== undefined) this.sorter = groupInputSorter(this.bytesMax, spill, rt);
    }
  }

  finish(): SortedStream<BsonDocument> {
    const { spec, rt, groups, sorter, stats } = this;
    const output = (key: BsonValue, state: GroupState): BsonDocument => {
      const out: BsonDocument = { _id: key };
      spec.fields.forEach((f, i) => setOwn(out, f.name, valueOf(state.accs[i] as Accumulator)));
      return out;
    };
    if (sorter === undefined) {
      const entries = groups.entries();
      let i = 0;
      return {
        next: () => {
          const e = entries[i++];
          return e === undefined ? undefined : output(e.key, e.value);
        },
        close: () => {
          i = entries.length;
        },
      };
    }
    const frozen = [...groups.entries()].sort((a, b) => compareBson(a.key, b.key, rt.collator));
    const inputs = sorter.finish();
    stats.usedDisk = sorter.usedDisk;
    stats.spills = sorter.stats.spills;
    let i = 0;
    let head = inputs.next();
    return {
      next: () => {
        const held = frozen[i];
        if (held === undefined && head === undefined) return undefined;
        let key: BsonValue;
        let state: GroupState;
        if (
          held !== undefined &&
          (head === undefined || compareBson(held.key, head.key, rt.collator) <= 0)
        ) {
          key = held.key;
          state = held.value;
          i++;
        } else {
          key = (head as GroupInput).key;
          state = { accs: spec.fields.map((f) => createAccumulator(f.spec, key, rt)) };
        }
        let m = 0;
        for (
          ;
          head !== undefined && compareBson(head.key, key, rt.collator) === 0;
          head = inputs.next()
        ) {
          const args = head.args;
          state.accs.forEach((acc, j) => {
            if (acc.needsInput) acc.process(args[j] as Value);
          });
          if ((++m & 1023) === 0) rt.interrupt();
        }
        return output(key, state);
      },
      close: () => {
        i = frozen.length;
        head = undefined;
        inputs.close();
      },
    };
  }
}

/**
 * What one group costs beyond its key and accumulators: the map entry, the state object and
 * its accumulator array, and the accumulator objects (measured on V8: ~200 bytes for one
 * group with two accumulators).
 */
const groupOverheadBytes = 200;

/** The external sort of a spilling group's inputs, by group key (stable: input order within a key). */
function groupInputSorter(
  bytesMax: number,
  spill: SpillScope,
  rt: Runtime,
): ExternalSorter<GroupInput> {
  return new ExternalSorter<GroupInput>({
    compare: (a, b) => compareBson(a.key, b.key, rt.collator),
    sizeOf: (input) =>
      input.args.reduce<number>(
        (n, v) => n + approximateValueSize(v),
        approximateValueSize(input.key),
      ),
    codec: groupInputCodec,
    memoryBytesMax: bytesMax,
    allowDiskUse: true,
    spill,
    interrupt: () => rt.interrupt(),
    exceeded: () => fail(ErrorCode.InternalError, 'a spilling $group ran out of memory'),
  });
}

/** Every document of a stream. */
export function streamToArray(stream: SortedStream<BsonDocument>): BsonDocument[] {
  const out: BsonDocument[] = [];
  for (let d = stream.next(); d !== undefined; d = stream.next()) out.push(d);
  return out;
}

function valueOf(acc: Accumulator): BsonValue {
  const v = acc.value();
  return v === MISSING ? null : v;
}

/**
 * Creates an accumulator, evaluating its initializer (`n`) against the group key when the key
 * is a document (`_id: {g: "$g"}` makes `$g` visible), else against an empty document
 * (mongod's GroupProcessorBase::findOrCreateGroup).
 */
export function createAccumulator(spec: AccumulatorSpec, key: BsonValue, rt: Runtime): Accumulator {
  if (spec.initializer === undefined) return spec.create(null, rt.collator);
  rt.frame.vars[ROOT_SLOT] = isPlainDocument(key) ? key : {};
  return spec.create(spec.initializer.evaluate(rt.frame), rt.collator);
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
    const stats = { usedDisk: false, spills: 0 };
    const explain = (): Record<string, BsonValue> => ({
      usedDisk: stats.usedDisk,
      spills: Long.fromNumber(stats.spills),
    });
    return new StreamingBlockingStage(
      '$group',
      input,
      () => new GroupComputation(this.group, rt, '$group', stats),
      explain,
    );
  }
}

export const $group: StageDefinition = {
  name: '$group',
  parse(arg, ctx) {
    return new GroupStage(arg, parseGroupSpec(arg, ctx));
  },
};
