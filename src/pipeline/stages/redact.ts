// $redact: prunes subdocuments by an expression returning $$DESCEND, $$PRUNE or $$KEEP.

import { setOwn } from '../../bson/document.js';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { fail, ErrorCode } from '../../errors.js';
import { expressionContext } from '../context.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression } from '../expressions/types.js';
import { formatValue } from '../values.js';
import { MapStage } from './base.js';
import type { PipelineContext, Runtime, Stage, StageDefinition } from './types.js';

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
      fail(
        ErrorCode.Location17053,
        `$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned ${formatValue(v)}`,
      );
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
        if (r !== MISSING) setOwn(out, k, r);
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
    const scope = {
      parent: ctx.scope,
      names: new Map([
        ['DESCEND', { constant: DESCEND }],
        ['PRUNE', { constant: PRUNE }],
        ['KEEP', { constant: KEEP }],
      ]),
    };
    return new RedactStage(arg, expressionContext({ env: ctx.env, scope }).parse(arg));
  },
};
