// $merge: writes the pipeline's output into a collection, matching existing documents on the
// `on` fields (default `_id`; other fields need a unique index, as in mongod, 51183). For a
// match: replace (default "merge" merges top-level fields), keepExisting, fail, or an update
// pipeline with $$new (and `let` variables) bound to the incoming document; without one:
// insert, discard or fail. Everything happens in one write transaction.

import { Int32 } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { formatBson } from '../../bson/format.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { compareBson } from '../../bson/compare.js';
import { getOwn, hasOwn, setOwn } from '../../bson/document.js';
import { validateCollectionName } from '../../catalog/namespace.js';
import { checkIdValue } from '../../catalog/validate-document.js';
import { insertDocument, updateDocument } from '../../catalog/write-unit.js';
import { ErrorCode, fail, missingFieldError } from '../../errors.js';
import { compileFilter } from '../../query/match/index.js';
import { selectRecords } from '../../query/exec/select-records.js';
import { parseExpression, rootContext } from '../expressions/parse.js';
import { defineVariable, newScope, validateNameForUserWrite } from '../expressions/variables.js';
import { MISSING, ROOT_SLOT } from '../expressions/types.js';
import type { Expression } from '../expressions/types.js';
import { parseDocumentPipeline } from '../document-pipeline.js';
import type { DocumentPipeline } from '../document-pipeline.js';
import { subPipelineParser } from './sub-pipeline.js';
import { typeName } from '../values.js';
import type { PipelineContext, StageDefinition } from './types.js';
import type { WriteStage } from './write.js';

type WhenMatched = 'replace' | 'keepExisting' | 'merge' | 'fail' | 'pipeline';
type WhenNotMatched = 'insert' | 'discard' | 'fail';

interface MergeSpec {
  readonly db: string;
  readonly coll: string;
  readonly on: readonly string[];
  readonly whenMatched: WhenMatched;
  readonly whenNotMatched: WhenNotMatched;
  readonly pipeline: DocumentPipeline | undefined;
  readonly letVars: ReadonlyArray<{ slot: number; expr: Expression }>;
}

class MergeStage implements WriteStage {
  readonly name = '$merge';
  readonly constraints = { last: true, writes: true, notInFacet: true, notInLookup: true } as const;
  constructor(
    private readonly spec: BsonValue,
    private readonly m: MergeSpec,
  ) {}
  serialize(): BsonDocument {
    return { $merge: this.spec };
  }
  attach(): never {
    fail(ErrorCode.InternalError, '$merge runs through executeWrite');
  }
  executeWrite(...[w, docs, rt]: Parameters<WriteStage['executeWrite']>): void {
    const m = this.m;
    const { txn, catalog } = w;
    const onId = m.on.length === 1 && m.on[0] === '_id';
    const target = catalog.get(m.db, m.coll);
    if (!onId) {
      const unique = target?.indexes.some(
        (i) =>
          i.unique &&
          i.fields.length === m.on.length &&
          m.on.every((f) => i.fields.some((x) => x.path === f)),
      );
      if (unique !== true)
        fail(
          ErrorCode.Location51183,
          'Cannot find index to verify that join fields will be unique',
        );
    }
    for (const doc of docs) {
      const filter: BsonDocument = {};
      for (const f of m.on) {
        const v = valueAt(doc, f);
        if (v === MISSING || v === null || v === undefined || isArray(v)) {
          fail(
            ErrorCode.Location51132,
            `$merge write error: 'on' field '${f}' cannot be missing, null, undefined or an array`,
          );
        }
        setOwn(filter, f, { $eq: v });
      }
      const coll = catalog.get(m.db, m.coll);
      const found =
        coll === undefined
          ? []
          : selectRecords(txn, coll, { filter, matcher: compileFilter(filter) });
      const match = found[0]?.record;
      if (match === undefined || coll === undefined) {
        if (m.whenNotMatched === 'discard') continue;
        if (m.whenNotMatched === 'fail')
          fail(
            ErrorCode.Location13113,
            '$merge could not find a matching document in the target collection for at least one document in the source collection',
          );
        insertDocument(w, { db: m.db, name: m.coll }, doc);
        continue;
      }
      if (found.length > 1 && !onId)
        fail(
          ErrorCode.Location51183,
          'Cannot find index to verify that join fields will be unique',
        );
      let after: BsonDocument;
      switch (m.whenMatched) {
        case 'keepExisting':
          continue;
        case 'fail': {
          // The reply carries the key, as a duplicate insert's would (drivers expose it).
          const keyPattern: BsonDocument = {};
          const keyValue: BsonDocument = {};
          for (const f of m.on) {
            setOwn(keyPattern, f, new Int32(1));
            setOwn(keyValue, f, valueAt(doc, f) as BsonValue);
          }
          fail(
            ErrorCode.DuplicateKey,
            `$merge failed due to a DuplicateKey error :: caused by :: E11000 duplicate key error collection: ${m.db}.${m.coll} index: ${m.on.join('_1_')}_1 dup key: ${formatBson(keyValue)}`,
            {
              info: { keyPattern, keyValue },
            },
          );
          break;
        }
        case 'replace':
          after = withId(doc, match.doc);
          break;
        case 'merge': {
          after = { ...match.doc };
          for (const [k, v] of Object.entries(doc)) setOwn(after, k, v);
          after = withId(after, match.doc);
          break;
        }
        case 'pipeline': {
          rt.frame.vars[ROOT_SLOT] = doc;
          for (const v of m.letVars) rt.frame.vars[v.slot] = v.expr.evaluate(rt.frame);
          after = withId((m.pipeline as DocumentPipeline).apply(match.doc), match.doc);
          break;
        }
      }
      updateDocument(w, coll, match, after, undefined);
    }
  }
}

function valueAt(doc: BsonDocument, path: string): BsonValue | typeof MISSING {
  let cur: BsonValue = doc;
  for (const part of path.split('.')) {
    if (!isPlainDocument(cur) || !hasOwn(cur, part)) return MISSING;
    cur = getOwn(cur, part) as BsonValue;
  }
  return cur;
}

/** The updated document keeps the target's `_id`; changing it is ImmutableField, as in mongod. */
function withId(after: BsonDocument, before: BsonDocument): BsonDocument {
  const id = getOwn(before, '_id');
  if (hasOwn(after, '_id')) {
    if (compareBson(getOwn(after, '_id') ?? null, id ?? null) !== 0) {
      fail(
        ErrorCode.ImmutableField,
        "$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: Performing an update on the path '_id' would modify the immutable field '_id'",
      );
    }
    checkIdValue(getOwn(after, '_id') ?? null);
    if (Object.keys(after)[0] === '_id') return after;
  }
  const out: BsonDocument = { _id: id ?? null };
  for (const [k, v] of Object.entries(after)) if (k !== '_id') setOwn(out, k, v);
  return out;
}

/** The whenMatched/whenNotMatched pairs mongod supports (51181 for the others). */
const SUPPORTED_MODES = new Set([
  'replace/insert',
  'replace/discard',
  'replace/fail',
  'merge/insert',
  'merge/discard',
  'merge/fail',
  'keepExisting/insert',
  'fail/insert',
  'pipeline/insert',
  'pipeline/discard',
  'pipeline/fail',
]);
const MATCHED = new Set(['replace', 'keepExisting', 'merge', 'fail']);
const NOT_MATCHED = new Set(['insert', 'discard', 'fail']);

export const $merge: StageDefinition = {
  name: '$merge',
  parse(arg, ctx: PipelineContext) {
    const spec: BsonDocument | undefined =
      typeof arg === 'string' ? { into: arg } : isPlainDocument(arg) ? arg : undefined;
    if (spec === undefined)
      fail(
        ErrorCode.Location51182,
        `$merge only supports a string or object argument, but found ${typeName(arg)}`,
      );
    let db = ctx.db;
    let coll: string | undefined;
    let on: string[] = ['_id'];
    let whenMatched: WhenMatched = 'merge';
    let whenNotMatched: WhenNotMatched = 'insert';
    let pipelineSpec: BsonValue[] | undefined;
    let letSpec: BsonDocument | undefined;
    for (const [k, v] of Object.entries(spec)) {
      if (k === 'into') {
        if (typeof v === 'string') coll = v;
        else if (isPlainDocument(v)) {
          if (typeof v['db'] === 'string') db = v['db'];
          if (typeof v['coll'] !== 'string')
            fail(
              ErrorCode.Location51178,
              `$merge 'into' field must specify a 'coll' that is not empty, null or undefined`,
            );
          coll = v['coll'];
        } else
          fail(
            ErrorCode.Location51178,
            `$merge 'into' field must be either a string or an object, but found ${typeName(v)}`,
          );
      } else if (k === 'on') {
        if (typeof v === 'string') on = [v];
        else if (isArray(v)) {
          if (v.length === 0)
            fail(
              ErrorCode.Location51187,
              "If explicitly specifying $merge 'on', must include at least one field",
            );
          on = v.map((x) => {
            if (typeof x !== 'string')
              fail(
                ErrorCode.Location51134,
                `$merge 'on' array elements must be strings, but found ${typeName(x)}`,
              );
            return x;
          });
        } else
          fail(
            ErrorCode.Location51186,
            `$merge 'on' field must be either a string or an array of strings, but found ${typeName(v)}`,
          );
      } else if (k === 'whenMatched') {
        if (isArray(v)) {
          whenMatched = 'pipeline';
          pipelineSpec = v;
        } else if (typeof v === 'string' && MATCHED.has(v)) whenMatched = v as WhenMatched;
        else
          fail(
            ErrorCode.BadValue,
            `Enumeration value '${String(v)}' for field 'whenMatched' is not a valid value.`,
          );
      } else if (k === 'whenNotMatched') {
        if (typeof v === 'string' && NOT_MATCHED.has(v)) whenNotMatched = v as WhenNotMatched;
        else
          fail(
            ErrorCode.BadValue,
            `Enumeration value '${String(v)}' for field 'whenNotMatched' is not a valid value.`,
          );
      } else if (k === 'let') {
        if (!isPlainDocument(v))
          fail(
            ErrorCode.TypeMismatch,
            `BSON field '$merge.let' is the wrong type '${typeName(v)}', expected type 'object'`,
          );
        letSpec = v;
      } else {
        fail(ErrorCode.Location40415, `BSON field '$merge.${k}' is an unknown field.`);
      }
    }
    if (coll === undefined) throw missingFieldError('$merge.into');
    if (!SUPPORTED_MODES.has(`${whenMatched}/${whenNotMatched}`)) {
      fail(
        ErrorCode.Location51181,
        `Combination of $merge modes 'whenMatched: ${whenMatched}' and 'whenNotMatched: ${whenNotMatched}' is not supported`,
      );
    }
    if (coll.startsWith('system.'))
      fail(ErrorCode.Location31319, `Cannot $merge to special collection: ${coll}`);
    validateCollectionName(db, coll, { allowSystem: false });
    if (letSpec !== undefined && whenMatched !== 'pipeline')
      fail(
        ErrorCode.Location51199,
        `Cannot use 'let' variables with 'whenMatched: ${whenMatched}' mode`,
      );
    if (letSpec?.['new'] !== undefined && letSpec['new'] !== '$$ROOT')
      fail(
        ErrorCode.Location51273,
        "'let' may not define a value for the reserved 'new' variable other than '$$ROOT'",
      );
    // The pipeline sees $$new (the incoming document) and the `let` variables.
    const scope = newScope(ctx.scope);
    const outer = rootContext(ctx.env, ctx.scope);
    const letVars =
      whenMatched !== 'pipeline'
        ? []
        : Object.entries(letSpec ?? { new: '$$ROOT' }).map(([name, s]) => {
            validateNameForUserWrite(name);
            const expr = parseExpression(s, outer);
            return { slot: defineVariable(ctx.env, scope, name), expr };
          });
    const pipeline =
      pipelineSpec === undefined
        ? undefined
        : parseDocumentPipeline(pipelineSpec, { env: ctx.env, scope }, subPipelineParser(ctx));
    return new MergeStage(arg, { db, coll, on, whenMatched, whenNotMatched, pipeline, letVars });
  },
};
