// Small stages: $count, $replaceRoot / $replaceWith, $sortByCount, $sample, $documents, $redact.

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { ErrorCode, fail } from '../../errors.js';
import { accumulators } from '../accumulators/index.js';
import { expressionContext } from '../context.js';
import { AggCode } from '../error-codes.js';
import { parseFieldPathExpression } from '../expressions/field-path.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression } from '../expressions/types.js';
import { parseSortPattern } from '../sort-pattern.js';
import { formatValue, isNumeric, numberOf, typeName } from '../values.js';
import { BlockingStage, DocumentsStage, MapStage } from './base.js';
import { GroupStage } from './group.js';
import { SortPipelineStage } from './sort.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

// ---- $count ------------------------------------------------------------------------------------

class CountStage implements Stage {
  readonly name = '$count';
  constructor(private readonly field: string) {}
  serialize(): BsonDocument {
    return { $count: this.field };
  }
  attach(input: Parameters<Stage['attach']>[0]): ReturnType<Stage['attach']> {
    const field = this.field;
    return new BlockingStage('$count', input, (docs) => {
      let n = 0;
      for (const _ of docs) n++;
      // Like mongod's {$group: {_id: null, n: {$sum: 1}}} + $project: no input, no output.
      return n === 0 ? [] : [{ [field]: new Int32(n) }];
    });
  }
}

export const $count: StageDefinition = {
  name: '$count',
  parse(arg) {
    if (typeof arg !== 'string') fail(AggCode.Location40156, 'the count field must be a non-empty string');
    if (arg.length === 0) fail(AggCode.Location40157, 'the count field must be a non-empty string');
    if (arg.startsWith('$')) fail(AggCode.Location40158, 'the count field cannot be a $-prefixed path');
    if (arg.includes('.')) fail(AggCode.Location40160, "the count field cannot contain '.'");
    return new CountStage(arg);
  },
};

// ---- $replaceRoot / $replaceWith ----------------------------------------------------------------

class ReplaceRootStage implements Stage {
  constructor(
    readonly name: string,
    private readonly spec: BsonValue,
    private readonly newRoot: Expression,
  ) {}
  serialize(): BsonDocument {
    return { [this.name]: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const frame = rt.frame;
    return new MapStage(this.name, input, (doc) => {
      frame.vars[ROOT_SLOT] = doc;
      const v = this.newRoot.evaluate(frame);
      if (v === MISSING || !isPlainDocument(v)) {
        fail(
          AggCode.Location40228,
          `'newRoot' expression must evaluate to an object, but resulting value was: ${formatValue(v)}. Type of resulting value: '${typeName(v)}'. Input document: ${formatBson(doc)}`,
        );
      }
      return v;
    });
  }
}

export const $replaceRoot: StageDefinition = {
  name: '$replaceRoot',
  parse(arg, ctx) {
    if (!isPlainDocument(arg)) fail(AggCode.Location40229, `expected an object as specification for $replaceRoot stage, got ${typeName(arg)}`);
    let newRoot: BsonValue | undefined;
    let has = false;
    for (const [k, v] of Object.entries(arg)) {
      if (k !== 'newRoot') fail(ErrorCode.Location40415, `BSON field '$replaceRoot.${k}' is an unknown field.`);
      newRoot = v;
      has = true;
    }
    if (!has) fail(ErrorCode.Location40414, "BSON field '$replaceRoot.newRoot' is missing but a required field");
    return new ReplaceRootStage('$replaceRoot', arg, expressionContext(ctx).parse(newRoot ?? null));
  },
};

export const $replaceWith: StageDefinition = {
  name: '$replaceWith',
  parse(arg, ctx) {
    return new ReplaceRootStage('$replaceWith', arg, expressionContext(ctx).parse(arg));
  },
};

// ---- $sortByCount ------------------------------------------------------------------------------------

export const $sortByCount: StageDefinition = {
  name: '$sortByCount',
  parse(arg, ctx) {
    const ectx = expressionContext(ctx);
    let id: Expression;
    if (typeof arg === 'string') {
      if (!arg.startsWith('$')) fail(AggCode.Location40148, `the sortByCount field must be defined as a $-prefixed path or an expression, got ${arg}`);
      id = parseFieldPathExpression(arg, ectx);
    } else if (isPlainDocument(arg) && (Object.keys(arg)[0] ?? '').startsWith('$')) {
      id = ectx.parse(arg);
    } else if (isPlainDocument(arg)) {
      fail(AggCode.Location40147, 'the sortByCount field must be specified as a string or as an object with an operator');
    } else {
      fail(AggCode.Location40149, 'the sortByCount field must be specified as a string or as an object');
    }
    const sum = accumulators.get('$sum');
    if (sum === undefined) fail(ErrorCode.InternalError, '$sum accumulator missing');
    const group = new GroupStage({ _id: arg, count: { $sum: new Int32(1) } }, { id, fields: [{ name: 'count', spec: sum.parse(new Int32(1), ectx) }] });
    return [group, new SortPipelineStage(parseSortPattern({ count: new Int32(-1) }))];
  },
};

// ---- $sample ---------------------------------------------------------------------------------------------

class SampleStage implements Stage {
  readonly name = '$sample';
  constructor(private readonly size: number) {}
  serialize(): BsonDocument {
    return { $sample: { size: new Int32(this.size) } };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const size = this.size;
    return new BlockingStage('$sample', input, (docs) => {
      // Reservoir sampling keeps memory at `size` documents, then a shuffle randomises the order.
      const out: BsonDocument[] = [];
      let seen = 0;
      for (const d of docs) {
        seen++;
        if (out.length < size) out.push(d);
        else {
          const j = Math.floor(Math.random() * seen);
          if (j < size) out[j] = d;
        }
        if ((seen & 1023) === 0) rt.interrupt();
      }
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [out[i], out[j]] = [out[j] as BsonDocument, out[i] as BsonDocument];
      }
      return out;
    });
  }
}

export const $sample: StageDefinition = {
  name: '$sample',
  parse(arg) {
    if (!isPlainDocument(arg)) fail(AggCode.Location28745, 'the $sample stage specification must be an object');
    let size: number | undefined;
    for (const [k, v] of Object.entries(arg)) {
      if (k !== 'size') fail(AggCode.Location28748, `unrecognized option to $sample: ${k}`);
      if (!isNumeric(v)) fail(AggCode.Location28746, 'size argument to $sample must be a number');
      const n = numberOf(v);
      if (n < 0) fail(AggCode.Location28747, 'size argument to $sample must not be negative');
      size = Math.trunc(n);
    }
    if (size === undefined) fail(AggCode.Location28749, '$sample stage must specify a size');
    return new SampleStage(size);
  },
};

// ---- $documents ----------------------------------------------------------------------------------------

class DocumentsSourceStage implements Stage {
  readonly name = '$documents';
  readonly constraints = { first: true, collectionless: true } as const;
  constructor(
    private readonly spec: BsonValue,
    private readonly expr: Expression,
  ) {}
  serialize(): BsonDocument {
    return { $documents: this.spec };
  }
  attach(_input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    rt.frame.vars[ROOT_SLOT] = {};
    const v = this.expr.evaluate(rt.frame);
    if (!isArray(v)) fail(AggCode.Location5858203, 'an array is expected');
    const docs = v.map((d) => {
      if (!isPlainDocument(d)) fail(ErrorCode.TypeMismatch, `$documents expected all elements to be objects, but found ${typeName(d)}`);
      return d;
    });
    return new DocumentsStage(docs, '$documents');
  }
}

export const $documents: StageDefinition = {
  name: '$documents',
  parse(arg, ctx) {
    return new DocumentsSourceStage(arg, expressionContext(ctx).parse(arg));
  },
};

// ---- $redact ----------------------------------------------------------------------------------------------

const DESCEND = 'descend';
const PRUNE = 'prune';
const KEEP = 'keep';

class RedactStage implements Stage {
  readonly name = '$redact';
  constructor(
    private readonly spec: BsonValue,
    private readonly expr: Expression,
  ) {}
  serialize(): BsonDocument {
    return { $redact: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const frame = rt.frame;
    const decide = (doc: BsonDocument): string => {
      frame.vars[ROOT_SLOT] = doc;
      const v = this.expr.evaluate(frame);
      if (v === DESCEND || v === PRUNE || v === KEEP) return v;
      fail(AggCode.Location17053, `$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned ${formatValue(v)}`);
    };
    // mongod evaluates the expression with $$CURRENT bound to each subdocument in turn, while
    // $$ROOT stays the top document; field paths here read $$CURRENT, so each level is
    // evaluated with that subdocument as the root of the expression.
    const redactValue = (v: BsonValue): BsonValue | typeof MISSING => {
      if (isPlainDocument(v)) return redactDoc(v) ?? MISSING;
      if (isArray(v)) {
        const out: BsonValue[] = [];
        for (const el of v) {
          if (isPlainDocument(el)) {
            const r = redactDoc(el);
            if (r !== undefined) out.push(r);
          } else if (isArray(el)) {
            const r = redactValue(el);
            if (r !== MISSING) out.push(r);
          } else out.push(el);
        }
        return out;
      }
      return v;
    };
    const redactDoc = (doc: BsonDocument): BsonDocument | undefined => {
      const d = decide(doc);
      if (d === PRUNE) return undefined;
      if (d === KEEP) return doc;
      const out: BsonDocument = {};
      for (const [k, v] of Object.entries(doc)) {
        const r = redactValue(v);
        if (r !== MISSING) out[k] = r;
      }
      return out;
    };
    return new MapStage('$redact', input, (doc) => redactDoc(doc));
  }
}

export const $redact: StageDefinition = {
  name: '$redact',
  parse(arg, ctx: PipelineContext) {
    // $$DESCEND, $$PRUNE and $$KEEP are the strings the expression returns.
    const scope = { parent: ctx.scope, names: new Map([['DESCEND', { constant: DESCEND }], ['PRUNE', { constant: PRUNE }], ['KEEP', { constant: KEEP }]]) };
    return new RedactStage(arg, expressionContext({ env: ctx.env, scope }).parse(arg));
  },
};

