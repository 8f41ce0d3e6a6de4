// Writing stages: $out and $merge (every whenMatched / whenNotMatched mode, `on` fields and
// their unique index, `let`), with the target's contents compared afterwards.

import type { Document } from 'mongodb';
import { manual, mongodSource } from './types.js';
import type { StageCase } from './types.js';

const source: Document[] = [
  { _id: 1, a: 10, c: 3 },
  { _id: 3, a: 30 },
];
const target: Document[] = [
  { _id: 1, a: 1, b: 1 },
  { _id: 2, a: 2 },
];

const out: StageCase[] = [
  {
    name: '$out replaces the target collection',
    source: manual('operator/aggregation/out'),
    docs: [
      { _id: 8751, title: 'The Banquet', author: 'Dante', copies: 2 },
      { _id: 8752, title: 'Divine Comedy', author: 'Dante', copies: 1 },
      { _id: 7000, title: 'The Odyssey', author: 'Homer', copies: 10 },
    ],
    collections: { authors: [{ _id: 'Old', books: [] }] },
    pipeline: [{ $group: { _id: '$author', books: { $push: '$title' } } }, { $out: 'authors' }],
    expected: [],
    after: {
      collection: 'authors',
      docs: [
        { _id: 'Dante', books: ['The Banquet', 'Divine Comedy'] },
        { _id: 'Homer', books: ['The Odyssey'] },
      ],
    },
  },
  {
    name: '$out onto the source collection',
    source:
      manual('operator/aggregation/out') + ' (the output collection can be the input collection)',
    docs: [
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ],
    pipeline: [{ $match: { a: 2 } }, { $out: 'input' }],
    expected: [],
    after: { collection: 'input', docs: [{ _id: 2, a: 2 }] },
  },
  {
    name: '$out with duplicate _ids fails and leaves the target as it was',
    source:
      manual('operator/aggregation/out') +
      ' (the operation fails if documents violate a unique index)',
    docs: [
      { _id: 1, k: 'x' },
      { _id: 2, k: 'x' },
    ],
    collections: { t: [{ _id: 'keep' }] },
    pipeline: [{ $project: { _id: '$k' } }, { $out: 't' }],
    error: 11000,
    after: { collection: 't', docs: [{ _id: 'keep' }] },
  },
  {
    name: '$out not last',
    source: mongodSource('pipeline/pipeline.cpp') + ' (40601)',
    docs: [{ _id: 1 }],
    pipeline: [{ $out: 'x' }, { $match: {} }],
    error: 40601,
  },
  {
    name: '$out argument of another type',
    source: mongodSource('pipeline/document_source_out.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $out: 1 }],
    error: 16990,
  },
  {
    name: '$out to a system collection',
    source: mongodSource('pipeline/document_source_out.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $out: 'system.x' }],
    error: 17385,
  },
  {
    name: '$out object without coll',
    source: mongodSource('pipeline/document_source_out.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $out: { db: 'x' } }],
    error: 40414,
  },
];

const specDocs: Document[] = [
  { _id: 1, x: 11 },
  { _id: 2, x: 22 },
  { _id: 3, x: 33 },
];

const fromCrudSpec: StageCase[] = [
  {
    name: '$out after $sort and $match',
    source: 'crud spec unified/crud/aggregate-out.json (Aggregate with $out)',
    docs: specDocs,
    pipeline: [
      { $sort: { x: 1 } },
      { $match: { _id: { $gt: 1 } } },
      { $out: 'other_test_collection' },
    ],
    expected: [],
    after: {
      collection: 'other_test_collection',
      docs: [specDocs[1] as Document, specDocs[2] as Document],
    },
  },
  {
    name: '$merge after $sort and $match',
    source: 'crud spec unified/crud/aggregate-merge.json (Aggregate with $merge)',
    docs: specDocs,
    pipeline: [
      { $sort: { x: 1 } },
      { $match: { _id: { $gt: 1 } } },
      { $merge: { into: 'other_test_collection' } },
    ],
    expected: [],
    after: {
      collection: 'other_test_collection',
      docs: [specDocs[1] as Document, specDocs[2] as Document],
    },
  },
  {
    name: '$merge of $documents with whenMatched fail: DuplicateKey',
    source: 'crud spec unified/crud/aggregate-merge-errorResponse.json',
    collections: {
      test: [
        { _id: 1, x: 1 },
        { _id: 2, x: 1 },
      ],
    },
    pipeline: [
      { $documents: [{ _id: 2, x: 1 }] },
      { $merge: { into: 'test', whenMatched: 'fail' } },
    ],
    error: 11000,
    after: {
      collection: 'test',
      docs: [
        { _id: 1, x: 1 },
        { _id: 2, x: 1 },
      ],
    },
  },
];

const merge: StageCase[] = [
  {
    name: '$merge default: merge matched documents, insert the others',
    source: manual('operator/aggregation/merge') + ' (whenMatched: merge, whenNotMatched: insert)',
    docs: source,
    collections: { t: target },
    pipeline: [{ $merge: { into: 't' } }],
    expected: [],
    after: {
      collection: 't',
      docs: [
        { _id: 1, a: 10, b: 1, c: 3 },
        { _id: 2, a: 2 },
        { _id: 3, a: 30 },
      ],
    },
  },
  {
    name: '$merge string form into a new collection',
    source: manual('operator/aggregation/merge') + ' (into: <collection>; creates the collection)',
    docs: source,
    pipeline: [{ $merge: 'fresh' }],
    expected: [],
    after: { collection: 'fresh', docs: source },
  },
  {
    name: '$merge whenMatched replace',
    source: manual('operator/aggregation/merge') + ' (whenMatched: replace)',
    docs: source,
    collections: { t: target },
    pipeline: [{ $merge: { into: 't', whenMatched: 'replace' } }],
    after: {
      collection: 't',
      docs: [
        { _id: 1, a: 10, c: 3 },
        { _id: 2, a: 2 },
        { _id: 3, a: 30 },
      ],
    },
  },
  {
    name: '$merge whenMatched keepExisting',
    source: manual('operator/aggregation/merge') + ' (whenMatched: keepExisting)',
    docs: source,
    collections: { t: target },
    pipeline: [{ $merge: { into: 't', whenMatched: 'keepExisting' } }],
    after: {
      collection: 't',
      docs: [
        { _id: 1, a: 1, b: 1 },
        { _id: 2, a: 2 },
        { _id: 3, a: 30 },
      ],
    },
  },
  {
    name: '$merge whenMatched fail',
    source: manual('operator/aggregation/merge') + ' (whenMatched: fail)',
    docs: [source[0] as Document],
    collections: { t: target },
    pipeline: [{ $merge: { into: 't', whenMatched: 'fail' } }],
    error: 11000,
    after: { collection: 't', docs: target },
  },
  {
    name: '$merge whenNotMatched discard',
    source: manual('operator/aggregation/merge') + ' (whenNotMatched: discard)',
    docs: source,
    collections: { t: target },
    pipeline: [{ $merge: { into: 't', whenMatched: 'replace', whenNotMatched: 'discard' } }],
    after: {
      collection: 't',
      docs: [
        { _id: 1, a: 10, c: 3 },
        { _id: 2, a: 2 },
      ],
    },
  },
  {
    name: '$merge whenNotMatched fail',
    source: manual('operator/aggregation/merge') + ' (whenNotMatched: fail)',
    docs: [source[1] as Document],
    collections: { t: target },
    pipeline: [{ $merge: { into: 't', whenMatched: 'merge', whenNotMatched: 'fail' } }],
    error: 13113,
    after: { collection: 't', docs: target },
  },
  {
    name: '$merge whenMatched pipeline with $$new',
    source: manual('operator/aggregation/merge') + ' (whenMatched: [pipeline], $$new)',
    docs: source,
    collections: { t: target },
    pipeline: [
      { $merge: { into: 't', whenMatched: [{ $addFields: { a: { $add: ['$a', '$$new.a'] } } }] } },
    ],
    after: {
      collection: 't',
      docs: [
        { _id: 1, a: 11, b: 1 },
        { _id: 2, a: 2 },
        { _id: 3, a: 30 },
      ],
    },
  },
  {
    name: '$merge whenMatched pipeline with let variables, whenNotMatched discard',
    source: manual('operator/aggregation/merge') + ' (Use Variables to Customize the Merge)',
    docs: source,
    collections: { t: target },
    pipeline: [
      {
        $merge: {
          into: 't',
          let: { year: 2020, incoming: '$a' },
          whenMatched: [{ $set: { year: '$$year', a: '$$incoming' } }],
          whenNotMatched: 'discard',
        },
      },
    ],
    after: {
      collection: 't',
      docs: [
        { _id: 1, a: 10, b: 1, year: 2020 },
        { _id: 2, a: 2 },
      ],
    },
  },
  {
    name: '$merge on a field with a unique index',
    source: manual('operator/aggregation/merge') + " ('on' requires a unique index on the fields)",
    docs: [
      { _id: 10, k: 'x', v: 1 },
      { _id: 11, k: 'z', v: 3 },
    ],
    collections: {
      t: [
        { _id: 1, k: 'x', v: 0 },
        { _id: 2, k: 'y', v: 0 },
      ],
    },
    indexes: [{ collection: 't', key: { k: 1 }, unique: true }],
    pipeline: [
      { $project: { _id: 0 } },
      { $merge: { into: 't', on: 'k', whenMatched: 'merge', whenNotMatched: 'discard' } },
    ],
    after: {
      collection: 't',
      docs: [
        { _id: 1, k: 'x', v: 1 },
        { _id: 2, k: 'y', v: 0 },
      ],
    },
  },
  {
    name: '$merge on fields without a unique index',
    source:
      manual('operator/aggregation/merge') +
      " ('on' field requirements); " +
      mongodSource('pipeline/process_interface/common_mongod_process_interface.cpp'),
    docs: [{ _id: 1, k: 'x' }],
    collections: { t: [{ _id: 1, k: 'x' }] },
    pipeline: [{ $merge: { into: 't', on: 'k' } }],
    error: 51183,
  },
  {
    name: '$merge on fields of a missing collection',
    source:
      mongodSource('pipeline/process_interface/common_mongod_process_interface.cpp') +
      ' (no index can support the fields)',
    docs: [{ _id: 1, k: 'x' }],
    pipeline: [{ $merge: { into: 'none', on: ['k', '_id'] } }],
    error: 51183,
  },
  {
    name: '$merge: an on field missing from a result document',
    source: mongodSource('pipeline/merge_processor.cpp') + ' (51132)',
    docs: [{ _id: 1 }],
    collections: { t: [{ _id: 1, k: 'x' }] },
    indexes: [{ collection: 't', key: { k: 1 }, unique: true }],
    pipeline: [{ $merge: { into: 't', on: 'k' } }],
    error: 51132,
  },
  ...(
    [
      ['keepExisting', 'fail'],
      ['keepExisting', 'discard'],
      ['fail', 'fail'],
      ['fail', 'discard'],
    ] as const
  ).map(([m, n]) => ({
    name: `$merge modes whenMatched ${m} with whenNotMatched ${n} are not supported`,
    source: mongodSource('pipeline/document_source_merge.cpp') + ' (51181, isSupportedMergeMode)',
    docs: [{ _id: 1 }],
    pipeline: [{ $merge: { into: 't', whenMatched: m, whenNotMatched: n } }],
    error: 51181,
  })),
  {
    name: "$merge let with another 'new'",
    source: mongodSource('pipeline/document_source_merge.cpp') + ' (51273)',
    docs: [{ _id: 1 }],
    pipeline: [{ $merge: { into: 't', let: { new: '$a' }, whenMatched: [{ $set: { a: 1 } }] } }],
    error: 51273,
  },
  {
    name: '$merge let without a pipeline',
    source: mongodSource('pipeline/document_source_merge.cpp') + ' (51199)',
    docs: [{ _id: 1 }],
    pipeline: [{ $merge: { into: 't', let: { x: 1 }, whenMatched: 'merge' } }],
    error: 51199,
  },
  {
    name: '$merge argument of another type',
    source: mongodSource('pipeline/document_source_merge.cpp') + ' (51182)',
    docs: [{ _id: 1 }],
    pipeline: [{ $merge: 1 }],
    error: 51182,
  },
  {
    name: '$merge unknown whenMatched mode',
    source: mongodSource('pipeline/document_source_merge.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $merge: { into: 't', whenMatched: 'x' } }],
    error: 2,
  },
  {
    name: '$merge unknown field',
    source: mongodSource('pipeline/document_source_merge.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $merge: { into: 't', x: 1 } }],
    error: 40415,
  },
  {
    name: '$merge without into',
    source: mongodSource('pipeline/document_source_merge.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $merge: { on: '_id' } }],
    error: 40414,
  },
  {
    name: '$merge to a system collection',
    source: mongodSource('pipeline/document_source_merge.cpp') + ' (31319)',
    docs: [{ _id: 1 }],
    pipeline: [{ $merge: 'system.x' }],
    error: 31319,
  },
  {
    name: '$merge not last',
    source: mongodSource('pipeline/pipeline.cpp') + ' (40601)',
    docs: [{ _id: 1 }],
    pipeline: [{ $merge: 'x' }, { $match: {} }],
    error: 40601,
  },
];

export const writeCases: readonly StageCase[] = [...out, ...merge, ...fromCrudSpec];
