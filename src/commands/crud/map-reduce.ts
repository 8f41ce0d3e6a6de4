// mapReduce, as mongod 4.4+ runs it: translated to an aggregation over the source collection
// ($match query, $sort, $limit, the map function emitting (key, value) pairs, a $group by key
// whose JavaScript accumulator reduces the values, then finalize), ending in $out (out:
// replace) or $merge (merge, reduce) or returned inline. The user's functions run in the
// command's sandbox (src/js), as $function and $accumulator do; with scripting off the
// command is refused as mongod refuses it (31264 from the first JavaScript operator).
// Reply shapes are mongod 7.0's: {results: [{_id, value}]} inline, {result: "coll"} or
// {result: {db, collection}} for an output collection. jsMode and verbose are accepted and
// change nothing (jsMode is an optimisation in mongod).

import { Code, Int32, Long } from 'bson';
import type { BsonDocument, BsonValue } from '../../bson/types.js';
import { isPlainDocument } from '../../bson/types.js';
import { getOwn } from '../../bson/document.js';
import { bsonSize } from '../../bson/codec.js';
import { CommandError, ErrorCode, fail, missingFieldError } from '../../errors.js';
import { limits } from '../../limits.js';
import { t } from '../args.js';
import { defineCommand } from '../registry.js';
import type { Invocation } from '../registry.js';
import { pipelinePrivileges, privileges } from '../authorization.js';
import { runAggregate } from './aggregate.js';
import type { aggregateArgs } from './aggregate.js';
import { targetCollection } from './target.js';

export const mapReduceArgs = {
  map: t.any,
  reduce: t.any,
  out: t.any,
  query: t.document,
  sort: t.document,
  limit: t.number,
  finalize: t.any,
  scope: t.document,
  collation: t.document,
  bypassDocumentValidation: t.safeBool,
  jsMode: t.bool,
  verbose: t.bool,
  // Accepted as mongod accepts them; nothing here acts on them.
  nonAtomic: t.ignored,
};

type MapReduceInvocation = Invocation<typeof mapReduceArgs>;

type OutMode = 'inline' | 'replace' | 'merge' | 'reduce';
interface OutSpec {
  readonly mode: OutMode;
  readonly coll: string;
  readonly db: string | undefined;
}

function missing(field: string): never {
  throw missingFieldError(`mapReduce.${field}`);
}

/** The source of one of the user's functions (a string or Code), checked as mongod does. */
function functionSource(v: BsonValue | undefined, field: string, required: boolean): string {
  if (v === undefined) {
    if (required) missing(field);
    return '';
  }
  if (typeof v === 'string') return v;
  if (v instanceof Code) return String(v.code);
  fail(
    ErrorCode.TypeMismatch,
    `BSON field 'mapReduce.${field}' is the wrong type, expected types '[string, javascript]'`,
  );
}

function parseOut(out: BsonValue | undefined): OutSpec {
  if (out === undefined) missing('out');
  if (typeof out === 'string') return { mode: 'replace', coll: out, db: undefined };
  if (!isPlainDocument(out)) fail(ErrorCode.Location13606, "'out' has to be a string or an object");
  const spec = out as BsonDocument;
  let mode: OutMode | undefined;
  let coll = '';
  for (const [k, v] of Object.entries(spec)) {
    if (k === 'inline' || k === 'replace' || k === 'merge' || k === 'reduce') {
      if (mode !== undefined)
        fail(ErrorCode.Location13522, 'please specify only one of inline, replace, merge, reduce');
      mode = k;
      if (k !== 'inline') {
        if (typeof v !== 'string' || v === '')
          fail(ErrorCode.BadValue, `'out.${k}' must be a non-empty collection name`);
        coll = v;
      }
    } else if (k !== 'db' && k !== 'sharded' && k !== 'nonAtomic') {
      fail(ErrorCode.Location40415, `BSON field 'mapReduce.out.${k}' is an unknown field.`);
    }
  }
  if (mode === undefined)
    fail(ErrorCode.Location13522, 'please specify one of replace, merge, reduce or inline');
  if (getOwn(spec, 'sharded') === true)
    fail(ErrorCode.InvalidOptions, 'sharded output is not supported: there is no sharding');
  const db = getOwn(spec, 'db');
  if (db !== undefined && typeof db !== 'string')
    fail(ErrorCode.TypeMismatch, "BSON field 'mapReduce.out.db' is the wrong type 'string'");
  return { mode, coll, db: mode === 'inline' ? undefined : db };
}

/** Pairs held per group before they are reduced to one (mongod reduces in batches too). */
const REDUCE_BATCH = 64;

function stripSemicolon(src: string): string {
  return src.trim().replace(/;\s*$/, '');
}

/** The aggregation a mapReduce runs, and where it writes. */
function pipelineOf(inv: Pick<MapReduceInvocation, 'args' | 'db'>): {
  pipeline: BsonDocument[];
  out: OutSpec;
} {
  const { args } = inv;
  const map = stripSemicolon(functionSource(args.map, 'map', true));
  const reduce = stripSemicolon(functionSource(args.reduce, 'reduce', true));
  const finalize =
    args.finalize === undefined || args.finalize === null
      ? undefined
      : stripSemicolon(functionSource(args.finalize, 'finalize', false));
  const out = parseOut(args.out);
  const pipeline: BsonDocument[] = [];
  if (args.query !== undefined) pipeline.push({ $match: args.query });
  if (args.sort !== undefined && Object.keys(args.sort).length > 0)
    pipeline.push({ $sort: args.sort });
  if (args.limit !== undefined && args.limit > 0)
    pipeline.push({ $limit: Long.fromNumber(args.limit) });
  const emitter = `function (doc, scope) {
  if (scope !== null && typeof scope === 'object') for (var k in scope) globalThis[k] = scope[k];
  var out = [];
  var previous = globalThis.emit;
  globalThis.emit = function (key, value) {
    if (arguments.length !== 2) throw new Error('emit takes 2 args');
    out.push({ k: key === undefined ? null : key, v: value });
  };
  try { (${map}\n).call(doc); } finally { globalThis.emit = previous; }
  return out;
}`;
  pipeline.push(
    {
      $project: {
        _id: new Int32(0),
        e: {
          $function: {
            body: new Code(emitter),
            args: ['$$ROOT', { $literal: args.scope ?? null }],
            lang: 'js',
          },
        },
      },
    },
    { $unwind: '$e' },
    {
      $group: {
        _id: '$e.k',
        value: {
          $accumulator: {
            init: new Code('function () { return { k: null, vs: [] }; }'),
            accumulate: new Code(`function (s, k, v) {
  s.k = k;
  s.vs.push(v);
  if (s.vs.length >= ${REDUCE_BATCH}) s.vs = [(${reduce}\n)(k, s.vs)];
  return s;
}`),
            accumulateArgs: ['$e.k', '$e.v'],
            merge: new Code('function (a, b) { a.vs = a.vs.concat(b.vs); return a; }'),
            finalize: new Code(`function (s) {
  var v = s.vs.length === 1 ? s.vs[0] : (${reduce}\n)(s.k, s.vs);
  ${finalize === undefined ? '' : `v = (${finalize}\n)(s.k, v);`}
  return v;
}`),
            lang: 'js',
          },
        },
      },
    },
  );
  const into = { db: out.db ?? inv.db, coll: out.coll };
  switch (out.mode) {
    case 'inline':
      pipeline.push({ $sort: { _id: new Int32(1) } });
      break;
    case 'replace':
      pipeline.push({ $out: into });
      break;
    case 'merge':
      pipeline.push({
        $merge: { into, on: '_id', whenMatched: 'replace', whenNotMatched: 'insert' },
      });
      break;
    case 'reduce':
      pipeline.push({
        $merge: {
          into,
          on: '_id',
          whenMatched: [
            {
              $project: {
                value: {
                  $function: {
                    body: new Code(`function (k, stored, fresh) {
  return (${reduce}\n)(k, [stored, fresh]);
}`),
                    args: ['$_id', '$value', '$$new.value'],
                    lang: 'js',
                  },
                },
              },
            },
          ],
          whenNotMatched: 'insert',
        },
      });
      break;
  }
  return { pipeline, out };
}

/** The aggregate command that does the work, with this command's options. */
function aggregateInvocation(
  inv: MapReduceInvocation,
  pipeline: BsonDocument[],
): Invocation<typeof aggregateArgs> {
  const {
    map: _map,
    reduce: _reduce,
    out: _out,
    query: _query,
    sort: _sort,
    limit: _limit,
    finalize: _finalize,
    scope: _scope,
    jsMode: _jsMode,
    verbose: _verbose,
    nonAtomic: _nonAtomic,
    ...rest
  } = inv.args;
  const coll = targetCollection(inv);
  return {
    ...inv,
    name: 'aggregate',
    target: coll,
    body: { aggregate: coll, pipeline, cursor: {} },
    args: { ...rest, pipeline, cursor: {} },
  };
}

async function inlineResults(
  inv: MapReduceInvocation,
  reply: BsonDocument,
): Promise<BsonDocument[]> {
  const cursorDoc = reply['cursor'] as BsonDocument;
  const results = [...(cursorDoc['firstBatch'] as BsonDocument[])];
  let bytes = results.reduce((n, d) => n + bsonSize(d), 0);
  const id = cursorDoc['id'];
  if (!(id instanceof Long) || id.isZero()) return results;
  const cursor = inv.services.cursors.get(id);
  try {
    while (cursor !== undefined && !cursor.isExhausted) {
      const batch = await cursor.nextBatch(undefined, inv.op);
      for (const d of batch) {
        bytes += bsonSize(d);
        if (bytes > limits.bsonObjectSizeMax)
          throw new CommandError(
            ErrorCode.BSONObjectTooLarge,
            `mapReduce inline results exceed the ${limits.bsonObjectSizeMax}-byte document limit; use an output collection`,
          );
        results.push(d);
      }
    }
  } finally {
    inv.services.cursors.remove(id);
  }
  return results;
}

export const mapReduce = defineCommand({
  name: 'mapReduce',
  aliases: ['mapreduce'],
  auth: privileges<typeof mapReduceArgs>(
    'find on the collection, and the writes of its output',
    (input) => {
      let pipeline: BsonDocument[] = [];
      try {
        pipeline = pipelineOf(input).pipeline;
      } catch {
        // A malformed request is refused by run() with its own error.
      }
      return [
        pipelinePrivileges(
          {
            db: input.db,
            coll: typeof input.target === 'string' ? input.target : undefined,
            bypassDocumentValidation: input.args.bypassDocumentValidation === true,
          },
          pipeline,
        ),
      ];
    },
  ),
  args: mapReduceArgs,
  traits: { apiVersion1: false },
  run: async (inv) => {
    const { pipeline, out } = pipelineOf(inv);
    if (inv.services.scriptEngine === undefined)
      fail(
        ErrorCode.Location31264,
        'Cannot run server-side javascript without the javascript engine enabled',
      );
    const reply = await runAggregate(aggregateInvocation(inv, pipeline), undefined);
    if (out.mode === 'inline') return { results: await inlineResults(inv, reply) };
    const result: BsonValue =
      out.db === undefined ? out.coll : { db: out.db, collection: out.coll };
    const done: BsonDocument = { result };
    const wcError = reply['writeConcernError'];
    if (wcError !== undefined) done['writeConcernError'] = wcError;
    return done;
  },
});
