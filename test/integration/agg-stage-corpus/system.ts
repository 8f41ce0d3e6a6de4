// Source stages reporting on the server ($collStats $indexStats $listLocalSessions, the parse
// and namespace errors of $currentOp and $listSessions — their output is checked on admin and
// config by test/integration/current-op.test.ts — and the refused stages), $changeStream's
// parse errors, and the rules of a pipeline as a whole: stage shape, unknown names, length,
// positions, nesting.

import * as assert from 'node:assert/strict';
import { Timestamp } from 'bson';
import type { Document } from 'mongodb';
import { date, jstest, manual, mongodSource } from './types.js';
import type { StageCase } from './types.js';

const five: Document[] = [1, 2, 3, 4, 5].map((n) => ({ _id: n, a: n }));

const collStats: StageCase[] = [
  {
    name: '$collStats count',
    source: manual('operator/aggregation/collStats') + ' (count Field)',
    docs: five,
    pipeline: [{ $collStats: { count: {} } }],
    check: (out) => {
      assert.equal(out.length, 1);
      assert.equal(Number(out[0]?.['count']), 5);
      assert.equal(typeof out[0]?.['ns'], 'string');
      assert.ok(out[0]?.['localTime'] instanceof Date);
    },
  },
  {
    name: '$collStats storageStats',
    source: manual('operator/aggregation/collStats') + ' (storageStats Document)',
    docs: five,
    pipeline: [{ $collStats: { storageStats: {} } }],
    check: (out) => {
      assert.equal(out.length, 1);
      const s = out[0]?.['storageStats'] as Document;
      assert.equal(Number(s['count']), 5);
      assert.equal(Number(s['nindexes']), 1);
    },
  },
  {
    name: '$collStats count of a missing collection',
    source: jstest('aggregation/sources/collStats/count.js'),
    collections: { other: [{ _id: 1 }] },
    pipeline: [{ $collStats: { count: {} } }],
    error: 73,
  },
  {
    name: '$collStats not an object',
    source: mongodSource('pipeline/document_source_coll_stats.cpp'),
    docs: five,
    pipeline: [{ $collStats: 1 }],
    error: 5447000,
  },
  {
    name: '$collStats unknown field',
    source: mongodSource('pipeline/document_source_coll_stats.idl'),
    docs: five,
    pipeline: [{ $collStats: { x: {} } }],
    error: 40415,
  },
  {
    name: '$collStats not first',
    source:
      mongodSource('pipeline/document_source_coll_stats.h') + ' (PositionRequirement::kFirst)',
    docs: five,
    pipeline: [{ $match: {} }, { $collStats: {} }],
    error: 40602,
  },
];

const indexStats: StageCase[] = [
  {
    name: '$indexStats lists every index',
    source: manual('operator/aggregation/indexStats'),
    docs: five,
    indexes: [{ collection: 'input', key: { a: 1 } }],
    pipeline: [
      { $indexStats: {} },
      { $project: { _id: 0, name: 1, key: 1 } },
      { $sort: { name: 1 } },
    ],
    expected: [
      { name: '_id_', key: { _id: 1 } },
      { name: 'a_1', key: { a: 1 } },
    ],
  },
  {
    name: '$indexStats with an argument',
    source: mongodSource('pipeline/document_source_index_stats.cpp'),
    docs: five,
    pipeline: [{ $indexStats: { a: 1 } }],
    error: 28803,
  },
  {
    name: '$indexStats not first',
    source:
      mongodSource('pipeline/document_source_index_stats.h') + ' (PositionRequirement::kFirst)',
    docs: five,
    pipeline: [{ $match: {} }, { $indexStats: {} }],
    error: 40602,
  },
];

const sessions: StageCase[] = [
  {
    name: '$listLocalSessions lists the sessions in use',
    source: 'crud spec unified/crud/db-aggregate.json (Aggregate with $listLocalSessions)',
    pipeline: [
      { $listLocalSessions: {} },
      { $limit: 1 },
      { $addFields: { dummy: 'dummy field' } },
      { $project: { _id: 0, dummy: 1 } },
    ],
    expected: [{ dummy: 'dummy field' }],
  },
  {
    name: '$listLocalSessions session documents',
    source:
      manual('operator/aggregation/listLocalSessions') + ' (output: _id.id, _id.uid, lastUse)',
    pipeline: [{ $listLocalSessions: {} }],
    check: (out) => {
      assert.ok(out.length >= 1, 'the session of the command itself is listed');
      for (const s of out)
        assert.ok(
          (s['_id'] as Document | undefined)?.['id'] !== undefined && s['lastUse'] instanceof Date,
          'a session document has _id.id and lastUse',
        );
    },
  },
  {
    name: '$listLocalSessions not an object',
    source: mongodSource('pipeline/document_source_list_local_sessions.cpp'),
    pipeline: [{ $listLocalSessions: 1 }],
    error: 14,
  },
  {
    name: '$listLocalSessions unknown field',
    source: mongodSource('db/list_sessions.idl'),
    pipeline: [{ $listLocalSessions: { x: 1 } }],
    error: 40415,
  },
  {
    name: '$listLocalSessions allUsers of another type',
    source: mongodSource('pipeline/document_source_list_sessions.idl'),
    pipeline: [{ $listLocalSessions: { allUsers: 1 } }],
    error: 14,
  },
  {
    name: '$listLocalSessions users not an array',
    source: mongodSource('pipeline/document_source_list_sessions.idl'),
    pipeline: [{ $listLocalSessions: { users: {} } }],
    error: 14,
  },
  {
    name: '$listLocalSessions a user without db',
    source:
      mongodSource('pipeline/document_source_list_sessions.idl') +
      ' (ListSessionsUser: user, db required)',
    pipeline: [{ $listLocalSessions: { users: [{ user: 'u' }] } }],
    error: 40414,
  },
  {
    name: '$listLocalSessions a user with an unknown field',
    source:
      mongodSource('pipeline/document_source_list_sessions.idl') + ' (ListSessionsUser is strict)',
    pipeline: [{ $listLocalSessions: { users: [{ user: 'u', db: 'd', x: 1 }] } }],
    error: 40415,
  },
  {
    name: '$listLocalSessions allUsers with users',
    source:
      mongodSource('pipeline/document_source_list_local_sessions.cpp') +
      ' (listSessionsParseSpec: UnsupportedFormat)',
    pipeline: [{ $listLocalSessions: { allUsers: true, users: [{ user: 'u', db: 'd' }] } }],
    error: 12,
  },
  {
    name: '$listLocalSessions allUsers with an empty users list',
    source:
      mongodSource('pipeline/document_source_list_local_sessions.cpp') +
      ' (listSessionsParseSpec refuses allUsers with a non-empty users list only)',
    pipeline: [
      { $listLocalSessions: { allUsers: true, users: [] } },
      { $limit: 1 },
      { $project: { _id: 0, seen: { $literal: true } } },
    ],
    expected: [{ seen: true }],
  },
  {
    name: '$listLocalSessions for a user who has no session',
    source:
      mongodSource('pipeline/document_source_list_local_sessions.cpp') +
      ' (the users filter keeps the sessions whose uid is the digest of one of the users; the unauthenticated client is none of them)',
    pipeline: [{ $listLocalSessions: { users: [{ user: 'nobody', db: 'admin' }] } }],
    expected: [],
  },
  {
    name: '$listLocalSessions not first',
    source:
      mongodSource('pipeline/document_source_list_local_sessions.h') +
      ' (PositionRequirement::kFirst)',
    docs: five,
    pipeline: [{ $match: {} }, { $listLocalSessions: {} }],
    error: 40602,
  },
  {
    name: '$listSessions outside config.system.sessions',
    source: mongodSource('pipeline/document_source_list_sessions.cpp') + ' (InvalidNamespace)',
    pipeline: [{ $listSessions: {} }],
    error: 73,
  },
  {
    name: '$listSessions on a collection',
    source: mongodSource('pipeline/document_source_list_sessions.cpp') + ' (InvalidNamespace)',
    docs: five,
    pipeline: [{ $listSessions: {} }],
    error: 73,
  },
  {
    name: '$listSessions not an object',
    source:
      mongodSource('pipeline/document_source_list_sessions.cpp') +
      ' (the lite parse checks the spec before the namespace)',
    pipeline: [{ $listSessions: 1 }],
    error: 14,
  },
  {
    name: '$listSessions unknown field',
    source:
      mongodSource('pipeline/document_source_list_sessions.idl') +
      ' (the lite parse checks the spec before the namespace)',
    pipeline: [{ $listSessions: { x: 1 } }],
    error: 40415,
  },
  {
    name: '$listSessions allUsers with users',
    source:
      mongodSource('pipeline/document_source_list_local_sessions.cpp') +
      ' (listSessionsParseSpec: UnsupportedFormat)',
    pipeline: [{ $listSessions: { allUsers: true, users: [{ user: 'u', db: 'd' }] } }],
    error: 12,
  },
  {
    name: '$currentOp outside admin',
    source: mongodSource('pipeline/document_source_current_op.cpp') + ' (InvalidNamespace)',
    pipeline: [{ $currentOp: {} }],
    error: 73,
  },
  {
    name: '$currentOp on a collection',
    source: mongodSource('pipeline/document_source_current_op.cpp') + ' (InvalidNamespace)',
    docs: five,
    pipeline: [{ $currentOp: {} }],
    error: 73,
  },
  {
    name: '$currentOp not an object',
    source:
      mongodSource('pipeline/document_source_current_op.cpp') +
      ' (LiteParsed::parse: TypeMismatch)',
    pipeline: [{ $currentOp: 1 }],
    error: 14,
  },
  {
    name: '$currentOp allUsers of another type',
    source:
      mongodSource('pipeline/document_source_current_op.cpp') +
      ' (LiteParsed::parse checks allUsers before the namespace)',
    pipeline: [{ $currentOp: { allUsers: 1 } }],
    error: 14,
  },
  {
    name: '$currentOp other options after the namespace',
    source:
      mongodSource('pipeline/document_source_current_op.cpp') +
      ' (createFromBson checks the namespace first)',
    pipeline: [{ $currentOp: { idleConnections: 1 } }],
    error: 73,
  },
];

/** $geoNear without its required `near` (test/integration/geo.test.ts has the rest). */
const geoNear: StageCase[] = [
  {
    name: '$geoNear without near',
    source: mongodSource('pipeline/document_source_geo_near.cpp') + ' (parseOptions)',
    docs: five,
    pipeline: [{ $geoNear: {} }],
    error: 5860400,
  },
];

/** Stages of mongod this server refuses, as docs/compatibility.md lists them. */
const refused: StageCase[] = [
  '$planCacheStats',
  '$listSampledQueries',
  '$shardedDataDistribution',
  '$queryStats',
].map((name) => ({
  name: `${name} is refused`,
  source: 'docs/compatibility.md (Aggregation: refused stages answer NotImplemented)',
  docs: five,
  pipeline: [{ [name]: {} }],
  error: 238,
}));

/**
 * Atlas Search stages, refused as a community mongod 8.0 (the version the corpus server reports)
 * refuses them without mongot: SearchNotEnabled (7.0's 6047401 is in atlas-search.test.ts).
 */
const atlasSearch: StageCase[] = [
  '$listSearchIndexes',
  '$search',
  '$searchMeta',
  '$vectorSearch',
].map((name) => ({
  name: `${name} needs Atlas Search`,
  source: 'src/mongo/db/query/search/search_helpers (community mongod 8.0, SearchNotEnabled)',
  docs: five,
  pipeline: [{ [name]: {} }],
  error: 31082,
}));

const changeStream: StageCase[] = [
  {
    name: '$changeStreamSplitLargeEvent outside a change stream',
    source: mongodSource('pipeline/document_source_change_stream_split_large_event.cpp'),
    docs: five,
    pipeline: [{ $changeStreamSplitLargeEvent: {} }],
    error: 20,
  },
  {
    name: '$changeStream unknown option',
    source: mongodSource('pipeline/document_source_change_stream.idl'),
    docs: five,
    pipeline: [{ $changeStream: { bogus: 1 } }],
    error: 40415,
  },
  {
    name: '$changeStream fullDocument of another type',
    source: mongodSource('pipeline/document_source_change_stream.idl'),
    docs: five,
    pipeline: [{ $changeStream: { fullDocument: 1 } }],
    error: 14,
  },
  {
    name: '$changeStream unknown fullDocument mode',
    source: mongodSource('pipeline/document_source_change_stream.idl'),
    docs: five,
    pipeline: [{ $changeStream: { fullDocument: 'x' } }],
    error: 2,
  },
  {
    name: '$changeStream not first',
    source: jstest('aggregation/sources/changeStream/required_as_first_stage.js'),
    docs: five,
    pipeline: [{ $match: {} }, { $changeStream: {} }],
    error: 40602,
  },
  {
    name: '$changeStream in $facet',
    source: jstest('aggregation/sources/changeStream/required_as_first_stage.js'),
    docs: five,
    pipeline: [{ $facet: { a: [{ $changeStream: {} }] } }],
    error: 40600,
  },
  {
    name: '$changeStream in a $lookup pipeline',
    source: jstest('aggregation/sources/changeStream/required_as_first_stage.js'),
    docs: five,
    pipeline: [{ $lookup: { from: 'x', as: 'y', pipeline: [{ $changeStream: {} }] } }],
    error: 51047,
  },
  {
    name: '$changeStream two resume options',
    source: mongodSource('pipeline/document_source_change_stream.cpp') + ' (40674)',
    docs: five,
    pipeline: [
      {
        $changeStream: {
          resumeAfter: { _data: 'x' },
          startAtOperationTime: new Timestamp({ t: 1, i: 1 }),
        },
      },
    ],
    error: 40674,
  },
];

const pipelineRules: StageCase[] = [
  {
    name: 'an empty pipeline returns the collection',
    source: manual('command/aggregate'),
    docs: five,
    pipeline: [],
    expected: five,
  },
  {
    name: '1000 stages are allowed',
    source: mongodSource('query/query_knobs.idl') + ' (internalPipelineLengthLimit 1000)',
    docs: five,
    pipeline: Array.from({ length: 1000 }, () => ({ $skip: 0 })),
    expected: five,
  },
  {
    name: '1001 stages are too many',
    source: mongodSource('pipeline/pipeline.cpp') + ' (7749501, 7.0)',
    docs: five,
    pipeline: Array.from({ length: 1001 }, () => ({ $skip: 0 })),
    error: 7749501,
  },
  {
    name: 'a stage with two names',
    source: mongodSource('pipeline/document_source.cpp') + ' (40323)',
    docs: five,
    pipeline: [{ $match: {}, $skip: 1 }],
    error: 40323,
  },
  {
    name: 'an empty stage document',
    source: mongodSource('pipeline/document_source.cpp') + ' (40323)',
    docs: five,
    pipeline: [{}],
    error: 40323,
  },
  {
    name: 'an unknown stage name',
    source: mongodSource('pipeline/document_source.cpp') + ' (40324)',
    docs: five,
    pipeline: [{ $foo: {} }],
    error: 40324,
  },
  {
    name: 'a stage name without $',
    source: mongodSource('pipeline/document_source.cpp') + ' (40324)',
    docs: five,
    pipeline: [{ match: {} }],
    error: 40324,
  },
  {
    name: 'an undefined variable',
    source: mongodSource('pipeline/variables.cpp') + ' (17276)',
    docs: five,
    pipeline: [{ $project: { v: '$$nope' } }],
    error: 17276,
  },
  {
    name: '{aggregate: 1} with a collection stage first',
    source: jstest('aggregation/sources/documents.js'),
    pipeline: [{ $match: {} }],
    error: 73,
  },
  {
    name: 'stages inside $facet may read its input twice',
    source: manual('operator/aggregation/facet') + ' (each sub-pipeline receives the same input)',
    docs: five,
    pipeline: [{ $facet: { a: [{ $count: 'n' }], b: [{ $count: 'n' }] } }],
    expected: [{ a: [{ n: 5 }], b: [{ n: 5 }] }],
  },
];

const unpackBucket: StageCase[] = [
  {
    name: '$_internalUnpackBucket unpacks a bucket: time, meta, then the columns',
    source: mongodSource(
      'pipeline/document_source_internal_unpack_bucket_test/unpack_bucket_exec_test.cpp',
    ),
    docs: [
      {
        _id: 1,
        control: {
          version: 1,
          min: { _id: 1, time: date('2021-01-01T00:00:00Z') },
          max: { _id: 2, time: date('2021-01-01T00:00:02Z') },
        },
        meta: { m1: 999 },
        data: {
          _id: { '0': 1, '1': 2 },
          time: { '0': date('2021-01-01T00:00:01Z'), '1': date('2021-01-01T00:00:02Z') },
          a: { '0': 1 },
        },
      },
    ],
    pipeline: [
      {
        $_internalUnpackBucket: {
          timeField: 'time',
          metaField: 'myMeta',
          bucketMaxSpanSeconds: 3600,
        },
      },
    ],
    expected: [
      { time: date('2021-01-01T00:00:01Z'), myMeta: { m1: 999 }, _id: 1, a: 1 },
      { time: date('2021-01-01T00:00:02Z'), myMeta: { m1: 999 }, _id: 2 },
    ],
  },
  {
    name: '$_internalUnpackBucket without timeField',
    source: mongodSource('pipeline/document_source_internal_unpack_bucket.cpp'),
    docs: five,
    pipeline: [{ $_internalUnpackBucket: { bucketMaxSpanSeconds: 3600 } }],
    error: 5346500,
  },
  {
    name: '$_internalUnpackBucket with an unknown parameter',
    source: mongodSource('pipeline/document_source_internal_unpack_bucket.cpp'),
    docs: five,
    pipeline: [{ $_internalUnpackBucket: { timeField: 't', bucketMaxSpanSeconds: 3600, x: 1 } }],
    error: 5346506,
  },
];

export const systemCases: readonly StageCase[] = [
  ...collStats,
  ...indexStats,
  ...sessions,
  ...geoNear,
  ...refused,
  ...atlasSearch,
  ...changeStream,
  ...pipelineRules,
  ...unpackBucket,
];
