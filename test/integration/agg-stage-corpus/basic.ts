// Document-at-a-time and simple stages: $match $project $addFields $set $unset $sort $limit
// $skip $count $sortByCount $replaceRoot $replaceWith $sample $redact $documents $unwind.

import * as assert from 'node:assert/strict';
import type { Document } from 'mongodb';
import { d, date, dec, jstest, l, manual, mongodSource } from './types.js';
import type { StageCase } from './types.js';

const articles: Document[] = [
  { _id: 1, author: 'dave', score: 80, views: 100 },
  { _id: 2, author: 'dave', score: 85, views: 521 },
  { _id: 3, author: 'ahn', score: 60, views: 1000 },
  { _id: 4, author: 'li', score: 55, views: 5000 },
  { _id: 5, author: 'annT', score: 60, views: 50 },
  { _id: 6, author: 'li', score: 94, views: 999 },
  { _id: 7, author: 'ty', score: 95, views: 1000 },
];

const books: Document[] = [
  {
    _id: 1,
    title: 'abc123',
    isbn: '0001122223334',
    author: { last: 'zzz', first: 'aaa' },
    copies: 5,
    lastModified: '2016-07-28',
  },
  {
    _id: 2,
    title: 'Baked Goods',
    isbn: '9999999999999',
    author: { last: 'xyz', first: 'abc', middle: '' },
    copies: 2,
    lastModified: '2017-07-21',
  },
  {
    _id: 3,
    title: 'Ice Cream Cakes',
    isbn: '8888888888888',
    author: { last: 'xyz', first: 'abc', middle: 'mmm' },
    copies: 5,
    lastModified: '2017-07-22',
  },
];

const match: StageCase[] = [
  {
    name: '$match equality',
    source: manual('operator/aggregation/match'),
    docs: articles,
    pipeline: [{ $match: { author: 'dave' } }],
    expected: [articles[0] as Document, articles[1] as Document],
  },
  {
    name: '$match $or then $group count',
    source: manual('operator/aggregation/match'),
    docs: articles,
    pipeline: [
      { $match: { $or: [{ score: { $gt: 70, $lt: 90 } }, { views: { $gte: 1000 } }] } },
      { $group: { _id: null, count: { $sum: 1 } } },
    ],
    expected: [{ _id: null, count: 5 }],
  },
  {
    name: '$match $expr with command let',
    source: manual('command/aggregate') + ' (let)',
    docs: articles,
    options: { let: { minScore: 90 } },
    pipeline: [{ $match: { $expr: { $gte: ['$score', '$$minScore'] } } }, { $project: { _id: 1 } }],
    expected: [{ _id: 6 }, { _id: 7 }],
  },
  {
    name: '$match after $sort and $match merge keep the sort',
    source: manual('operator/aggregation/match') + ' (pipeline optimization)',
    docs: articles,
    pipeline: [
      { $sort: { score: -1 } },
      { $match: { views: { $gte: 999 } } },
      { $match: { author: { $ne: 'ty' } } },
      { $project: { _id: 1 } },
    ],
    expected: [{ _id: 6 }, { _id: 3 }, { _id: 4 }],
  },
  {
    name: '$match on a missing collection returns nothing',
    source: manual('command/aggregate'),
    collections: { other: [{ _id: 1 }] },
    docs: [],
    pipeline: [{ $match: {} }],
    expected: [],
  },
  {
    name: '$match not an object',
    source: mongodSource('pipeline/document_source_match.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $match: 1 }],
    error: 15959,
  },
  {
    name: '$match bad operator',
    source: mongodSource('matcher/expression_parser.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $match: { a: { $foo: 1 } } }],
    error: 2,
  },
];

const project: StageCase[] = [
  {
    name: '$project includes fields in document order',
    source: manual('operator/aggregation/project'),
    docs: [books[0] as Document],
    pipeline: [{ $project: { author: 1, title: 1 } }],
    expected: [{ _id: 1, title: 'abc123', author: { last: 'zzz', first: 'aaa' } }],
  },
  {
    name: '$project suppresses _id',
    source: manual('operator/aggregation/project'),
    docs: [books[0] as Document],
    pipeline: [{ $project: { _id: 0, title: 1, author: 1 } }],
    expected: [{ title: 'abc123', author: { last: 'zzz', first: 'aaa' } }],
  },
  {
    name: '$project excludes fields, embedded included',
    source: manual('operator/aggregation/project'),
    docs: [books[0] as Document],
    pipeline: [{ $project: { 'author.first': 0, lastModified: 0 } }],
    expected: [
      { _id: 1, title: 'abc123', isbn: '0001122223334', author: { last: 'zzz' }, copies: 5 },
    ],
  },
  {
    name: '$project conditionally excludes with $$REMOVE',
    source: manual('operator/aggregation/project'),
    docs: books,
    pipeline: [
      {
        $project: {
          title: 1,
          'author.first': 1,
          'author.last': 1,
          'author.middle': {
            $cond: {
              if: { $eq: ['', '$author.middle'] },
              then: '$$REMOVE',
              else: '$author.middle',
            },
          },
        },
      },
    ],
    expected: [
      { _id: 1, title: 'abc123', author: { last: 'zzz', first: 'aaa' } },
      { _id: 2, title: 'Baked Goods', author: { last: 'xyz', first: 'abc' } },
      { _id: 3, title: 'Ice Cream Cakes', author: { last: 'xyz', first: 'abc', middle: 'mmm' } },
    ],
  },
  {
    name: '$project computed fields come after included ones',
    source:
      manual('operator/aggregation/project') +
      '; ' +
      mongodSource('exec/inclusion_projection_executor.cpp'),
    docs: [books[0] as Document],
    pipeline: [
      {
        $project: {
          title: 1,
          isbn: { prefix: { $substr: ['$isbn', 0, 3] }, group: { $substr: ['$isbn', 3, 2] } },
          lastName: '$author.last',
          copiesSold: '$copies',
        },
      },
    ],
    expected: [
      {
        _id: 1,
        title: 'abc123',
        isbn: { prefix: '000', group: '11' },
        lastName: 'zzz',
        copiesSold: 5,
      },
    ],
  },
  {
    name: '$project new array fields, missing field as null',
    source: manual('operator/aggregation/project') + ' (Project New Array Fields)',
    docs: [{ _id: 1, x: 1, y: 1 }],
    pipeline: [{ $project: { myArray: ['$x', '$y'], other: ['$x', '$someField'] } }],
    expected: [{ _id: 1, myArray: [1, 1], other: [1, null] }],
  },
  {
    name: '$project embedded field in subdocuments and arrays of subdocuments',
    source:
      manual('operator/aggregation/project') + ' (Include Specific Fields from Embedded Documents)',
    docs: [
      { _id: 1, user: '1234', stop: { title: 'book1', author: 'xyz', page: 32 } },
      {
        _id: 2,
        user: '7890',
        stop: [
          { title: 'book2', author: 'abc', page: 5 },
          { title: 'book3', author: 'ijk', page: 100 },
        ],
      },
    ],
    pipeline: [{ $project: { 'stop.title': 1 } }],
    expected: [
      { _id: 1, stop: { title: 'book1' } },
      { _id: 2, stop: [{ title: 'book2' }, { title: 'book3' }] },
    ],
  },
  {
    name: '$project literal values and booleans',
    source:
      manual('operator/aggregation/project') +
      ' (4.4: non-zero numbers include, other literals set)',
    docs: [{ _id: 1, a: 1, b: 2, c: 3 }],
    pipeline: [{ $project: { a: true, b: 5, s: 'text', z: { $literal: 1 } } }],
    expected: [{ _id: 1, a: 1, b: 2, s: 'text', z: 1 }],
  },
  {
    name: '$project empty',
    source: mongodSource('query/projection_parser.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $project: {} }],
    error: 51272,
  },
  {
    name: '$project exclusion in inclusion',
    source: mongodSource('query/projection_parser.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $project: { a: 1, b: 0 } }],
    error: 31254,
  },
  {
    name: '$project inclusion in exclusion',
    source: mongodSource('query/projection_parser.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $project: { a: 0, b: 1 } }],
    error: 31253,
  },
  {
    name: '$project computed in exclusion',
    source: mongodSource('query/projection_parser.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $project: { a: 0, b: { $add: ['$x', 1] } } }],
    error: 31252,
  },
  {
    name: '$project field path in exclusion',
    source: mongodSource('query/projection_parser.cpp (parseLiteral)'),
    docs: [{ _id: 1 }],
    pipeline: [{ $project: { a: 0, b: '$x' } }],
    error: 31310,
  },
  {
    name: '$project path collision',
    source: mongodSource('query/projection_parser.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $project: { a: 1, 'a.b': 1 } }],
    error: 31249,
  },
  {
    name: '$project not an object',
    source: mongodSource('pipeline/document_source_project.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $project: 1 }],
    error: 15969,
  },
  {
    name: '$project unknown expression',
    source: mongodSource(
      'query/projection_parser.cpp (parseSubObject: neither an expression nor a field name)',
    ),
    docs: [{ _id: 1 }],
    pipeline: [{ $project: { a: { $foo: 1 } } }],
    error: 31325,
  },
  {
    name: '$project positional',
    source: mongodSource('query/projection_parser.cpp (parseElement)'),
    docs: [{ _id: 1, a: [1] }],
    pipeline: [{ $project: { 'a.$': 1 } }],
    error: 31324,
  },
  {
    name: '$project $elemMatch',
    source: mongodSource('query/projection_parser.cpp (parseSubObjectAsExpression)'),
    docs: [{ _id: 1, a: [1] }],
    pipeline: [{ $project: { a: { $elemMatch: { $gt: 0 } } } }],
    error: 168,
  },
];

const scores: Document[] = [
  { _id: 1, student: 'Maya', homework: [10, 5, 10], quiz: [10, 8], extraCredit: 0 },
  { _id: 2, student: 'Ryan', homework: [5, 6, 5], quiz: [8, 8], extraCredit: 8 },
];

const addFields: StageCase[] = [
  {
    name: '$addFields twice, sums of arrays',
    source: manual('operator/aggregation/addFields'),
    docs: scores,
    pipeline: [
      { $addFields: { totalHomework: { $sum: '$homework' }, totalQuiz: { $sum: '$quiz' } } },
      { $addFields: { totalScore: { $add: ['$totalHomework', '$totalQuiz', '$extraCredit'] } } },
    ],
    expected: [
      {
        _id: 1,
        student: 'Maya',
        homework: [10, 5, 10],
        quiz: [10, 8],
        extraCredit: 0,
        totalHomework: 25,
        totalQuiz: 18,
        totalScore: 43,
      },
      {
        _id: 2,
        student: 'Ryan',
        homework: [5, 6, 5],
        quiz: [8, 8],
        extraCredit: 8,
        totalHomework: 16,
        totalQuiz: 16,
        totalScore: 40,
      },
    ],
  },
  {
    name: '$addFields overwrites a field in place',
    source: manual('operator/aggregation/addFields') + ' (Overwriting an existing field)',
    docs: [{ _id: 1, dogs: 10, cats: 15 }],
    pipeline: [{ $addFields: { cats: 20 } }],
    expected: [{ _id: 1, dogs: 10, cats: 20 }],
  },
  {
    name: '$addFields replaces _id with another field',
    source: manual('operator/aggregation/addFields'),
    docs: [{ _id: 1, item: 'tangerine', type: 'citrus' }],
    pipeline: [{ $addFields: { _id: '$item', item: 'fruit' } }],
    expected: [{ _id: 'tangerine', item: 'fruit', type: 'citrus' }],
  },
  {
    name: '$addFields appends to an array',
    source: manual('operator/aggregation/addFields') + ' (Add Element to an Array)',
    docs: scores,
    pipeline: [
      { $match: { _id: 1 } },
      { $addFields: { homework: { $concatArrays: ['$homework', [7]] } } },
    ],
    expected: [
      { _id: 1, student: 'Maya', homework: [10, 5, 10, 7], quiz: [10, 8], extraCredit: 0 },
    ],
  },
  {
    name: '$addFields removes a field with $$REMOVE',
    source: manual('operator/aggregation/addFields') + ' (Remove Fields)',
    docs: [{ _id: 1, dogs: 10, cats: 15 }],
    pipeline: [{ $addFields: { dogs: '$$REMOVE' } }],
    expected: [{ _id: 1, cats: 15 }],
  },
  {
    name: '$set on a dotted path creates the subdocument',
    source: manual('operator/aggregation/set') + ' (Adding Fields to an Embedded Document)',
    docs: [
      { _id: 1, type: 'car', specs: { doors: 4, wheels: 4 } },
      { _id: 3, type: 'jet ski' },
    ],
    pipeline: [{ $set: { 'specs.fuel_type': 'unleaded' } }],
    expected: [
      { _id: 1, type: 'car', specs: { doors: 4, wheels: 4, fuel_type: 'unleaded' } },
      { _id: 3, type: 'jet ski', specs: { fuel_type: 'unleaded' } },
    ],
  },
  {
    name: '$set on a dotted path through an array sets every element',
    source: jstest('aggregation/sources/addFields/dotted_paths.js'),
    docs: [{ _id: 1, arr: [1, { x: 1 }, [2]] }],
    pipeline: [{ $set: { 'arr.y': 2 } }],
    expected: [{ _id: 1, arr: [{ y: 2 }, { x: 1, y: 2 }, [{ y: 2 }]] }],
  },
  {
    name: '$addFields not an object',
    source: mongodSource('pipeline/document_source_add_fields.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $addFields: 'a' }],
    error: 40272,
  },
  {
    name: '$set not an object',
    source: mongodSource('pipeline/document_source_add_fields.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $set: [1] }],
    error: 40272,
  },
];

const unsetBooks: Document[] = [
  {
    _id: 1,
    title: 'Antelope Antics',
    isbn: '0001122223334',
    author: { last: 'An', first: 'Auntie' },
    copies: [
      { warehouse: 'A', qty: 5 },
      { warehouse: 'B', qty: 15 },
    ],
  },
];

const unset: StageCase[] = [
  {
    name: '$unset one field',
    source: manual('operator/aggregation/unset'),
    docs: unsetBooks,
    pipeline: [{ $unset: 'copies' }],
    expected: [
      {
        _id: 1,
        title: 'Antelope Antics',
        isbn: '0001122223334',
        author: { last: 'An', first: 'Auntie' },
      },
    ],
  },
  {
    name: '$unset embedded fields, through arrays',
    source: manual('operator/aggregation/unset'),
    docs: unsetBooks,
    pipeline: [{ $unset: ['isbn', 'author.first', 'copies.warehouse'] }],
    expected: [
      {
        _id: 1,
        title: 'Antelope Antics',
        author: { last: 'An' },
        copies: [{ qty: 5 }, { qty: 15 }],
      },
    ],
  },
  {
    name: '$unset not a string or array',
    source: mongodSource('pipeline/document_source_project.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unset: 1 }],
    error: 31002,
  },
  {
    name: '$unset empty array',
    source: mongodSource('pipeline/document_source_project.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unset: [] }],
    error: 31119,
  },
  {
    name: '$unset array with a non-string',
    source: mongodSource('pipeline/document_source_project.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unset: ['a', 1] }],
    error: 31120,
  },
];

const sort: StageCase[] = [
  {
    name: '$sort ascending and descending on two fields',
    source: manual('operator/aggregation/sort'),
    docs: [
      { _id: 1, age: 30, posts: 3 },
      { _id: 2, age: 25, posts: 10 },
      { _id: 3, age: 30, posts: 7 },
      { _id: 4, age: 25, posts: 1 },
    ],
    pipeline: [{ $sort: { age: -1, posts: 1 } }],
    expected: [
      { _id: 1, age: 30, posts: 3 },
      { _id: 3, age: 30, posts: 7 },
      { _id: 4, age: 25, posts: 1 },
      { _id: 2, age: 25, posts: 10 },
    ],
  },
  {
    name: '$sort across BSON types (missing and null first, numbers by value)',
    source: manual('bson-type-comparison-order'),
    docs: [
      { _id: 1, v: 'a' },
      { _id: 2, v: d(2.5) },
      { _id: 3 },
      { _id: 4, v: l(2) },
      { _id: 5, v: { x: 1 } },
      { _id: 6, v: null },
      { _id: 7, v: true },
      { _id: 8, v: date('2020-01-01T00:00:00Z') },
      { _id: 9, v: dec('3') },
    ],
    pipeline: [{ $sort: { v: 1, _id: 1 } }, { $project: { _id: 1 } }],
    expected: [
      { _id: 3 },
      { _id: 6 },
      { _id: 4 },
      { _id: 2 },
      { _id: 9 },
      { _id: 1 },
      { _id: 5 },
      { _id: 7 },
      { _id: 8 },
    ],
  },
  {
    name: '$sort on an array field uses the smallest element ascending, largest descending',
    source: manual('method/cursor.sort') + ' (Sort by an Array Field)',
    docs: [
      { _id: 1, a: [1, 10] },
      { _id: 2, a: [5, 6] },
      { _id: 3, a: 3 },
    ],
    pipeline: [{ $sort: { a: -1 } }, { $project: { _id: 1 } }],
    expected: [{ _id: 1 }, { _id: 2 }, { _id: 3 }],
  },
  {
    name: '$sort then $limit keeps the top documents',
    source: manual('operator/aggregation/sort') + ' ($sort + $limit Memory Optimization)',
    docs: articles,
    pipeline: [{ $sort: { views: -1, _id: 1 } }, { $limit: 3 }, { $project: { _id: 1 } }],
    expected: [{ _id: 4 }, { _id: 3 }, { _id: 7 }],
  },
  {
    name: '$sort not an object',
    source: mongodSource('pipeline/document_source_sort.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sort: 1 }],
    error: 15973,
  },
  {
    name: '$sort empty',
    source: mongodSource('pipeline/document_source_sort.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sort: {} }],
    error: 15976,
  },
  {
    name: '$sort order not a number',
    source: mongodSource('query/sort_pattern.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sort: { a: 'asc' } }],
    error: 15974,
  },
  {
    name: '$sort order not 1 or -1',
    source: mongodSource('query/sort_pattern.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sort: { a: 2 } }],
    error: 15975,
  },
];

const limitSkip: StageCase[] = [
  {
    name: '$skip then $limit',
    source: manual('operator/aggregation/skip'),
    docs: articles,
    pipeline: [{ $sort: { _id: 1 } }, { $skip: 2 }, { $limit: 2 }, { $project: { _id: 1 } }],
    expected: [{ _id: 3 }, { _id: 4 }],
  },
  {
    name: '$limit then $skip',
    source: manual('operator/aggregation/limit'),
    docs: articles,
    pipeline: [{ $sort: { _id: 1 } }, { $limit: 3 }, { $skip: 1 }, { $project: { _id: 1 } }],
    expected: [{ _id: 2 }, { _id: 3 }],
  },
  {
    name: '$skip 0 and $limit as long and as integral double',
    source:
      mongodSource('pipeline/document_source_limit.cpp') +
      ' (parseIntegerElementToNonNegativeLong)',
    docs: articles,
    pipeline: [
      { $sort: { _id: 1 } },
      { $skip: 0 },
      { $limit: l(2) },
      { $limit: d(1) },
      { $project: { _id: 1 } },
    ],
    expected: [{ _id: 1 }],
  },
  {
    name: 'adjacent $skip stages add up',
    source: manual('core/aggregation-pipeline-optimization') + ' ($skip + $skip Coalescence)',
    docs: articles,
    pipeline: [{ $sort: { _id: 1 } }, { $skip: 2 }, { $skip: 3 }, { $project: { _id: 1 } }],
    expected: [{ _id: 6 }, { _id: 7 }],
  },
  {
    name: '$limit 0',
    source: mongodSource('pipeline/document_source_limit.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $limit: 0 }],
    error: 15958,
  },
  {
    name: '$limit negative',
    source: mongodSource('pipeline/document_source_limit.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $limit: -1 }],
    error: 5107201,
  },
  {
    name: '$limit not a number',
    source: mongodSource('pipeline/document_source_limit.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $limit: 'a' }],
    error: 5107201,
  },
  {
    name: '$limit fractional',
    source: mongodSource('pipeline/document_source_limit.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $limit: 1.5 }],
    error: 5107201,
  },
  {
    name: '$skip negative',
    source: mongodSource('pipeline/document_source_skip.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $skip: -1 }],
    error: 5107200,
  },
  {
    name: '$skip not a number',
    source: mongodSource('pipeline/document_source_skip.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $skip: 'a' }],
    error: 5107200,
  },
];

const countStage: StageCase[] = [
  {
    name: '$count after $match',
    source: manual('operator/aggregation/count'),
    docs: [
      { _id: 1, subject: 'History', score: 88 },
      { _id: 2, subject: 'History', score: 92 },
      { _id: 3, subject: 'History', score: 97 },
      { _id: 4, subject: 'History', score: 71 },
      { _id: 5, subject: 'History', score: 79 },
      { _id: 6, subject: 'History', score: 83 },
    ],
    pipeline: [{ $match: { score: { $gt: 80 } } }, { $count: 'passing_scores' }],
    expected: [{ passing_scores: 4 }],
  },
  {
    name: '$count of nothing outputs nothing',
    source: jstest('aggregation/sources/count.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $match: { x: 1 } }, { $count: 'n' }],
    expected: [],
  },
  {
    name: '$count not a string',
    source: mongodSource('pipeline/document_source_count.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $count: 1 }],
    error: 40156,
  },
  {
    name: '$count empty string',
    source: mongodSource('pipeline/document_source_count.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $count: '' }],
    error: 40157,
  },
  {
    name: '$count $-prefixed',
    source: mongodSource('pipeline/document_source_count.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $count: '$n' }],
    error: 40158,
  },
  {
    name: '$count dotted',
    source: mongodSource('pipeline/document_source_count.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $count: 'a.b' }],
    error: 40160,
  },
];

const exhibits: Document[] = [
  {
    _id: 1,
    title: 'The Pillars of Society',
    artist: 'Grosz',
    year: 1926,
    tags: ['painting', 'satire', 'Expressionism', 'caricature'],
  },
  {
    _id: 2,
    title: 'Melancholy III',
    artist: 'Munch',
    year: 1902,
    tags: ['woodcut', 'Expressionism'],
  },
  { _id: 3, title: 'Dancer', artist: 'Miro', year: 1925, tags: ['oil', 'Surrealism', 'painting'] },
  {
    _id: 4,
    title: 'The Great Wave off Kanagawa',
    artist: 'Hokusai',
    tags: ['woodblock', 'ukiyo-e'],
  },
  {
    _id: 5,
    title: 'The Persistence of Memory',
    artist: 'Dali',
    year: 1931,
    tags: ['Surrealism', 'painting', 'oil'],
  },
  {
    _id: 6,
    title: 'Composition VII',
    artist: 'Kandinsky',
    year: 1913,
    tags: ['oil', 'painting', 'abstract'],
  },
  {
    _id: 7,
    title: 'The Scream',
    artist: 'Munch',
    year: 1893,
    tags: ['Expressionism', 'painting', 'oil'],
  },
  { _id: 8, title: 'Blue Flower', artist: "O'Keefe", year: 1918, tags: ['abstract', 'painting'] },
];

const sortByCount: StageCase[] = [
  {
    name: '$sortByCount of unwound tags',
    source: manual('operator/aggregation/sortByCount'),
    docs: exhibits,
    pipeline: [{ $unwind: '$tags' }, { $sortByCount: '$tags' }, { $match: { count: { $gte: 3 } } }],
    expected: [
      { _id: 'painting', count: 6 },
      { _id: 'oil', count: 4 },
      { _id: 'Expressionism', count: 3 },
    ],
  },
  {
    name: '$sortByCount of an expression, missing as null',
    source: manual('operator/aggregation/sortByCount'),
    docs: [{ _id: 1, a: 1 }, { _id: 2, a: 2 }, { _id: 3, a: 3 }, { _id: 4 }],
    pipeline: [{ $sortByCount: { $mod: ['$a', 2] } }],
    expected: [
      { _id: 1, count: 2 },
      { _id: null, count: 1 },
      { _id: 0, count: 1 },
    ],
    unordered: true,
  },
  {
    name: '$sortByCount object without an operator',
    source: mongodSource('pipeline/document_source_sort_by_count.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sortByCount: { a: 1 } }],
    error: 40147,
  },
  {
    name: '$sortByCount string without $',
    source: mongodSource('pipeline/document_source_sort_by_count.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sortByCount: 'tags' }],
    error: 40148,
  },
  {
    name: '$sortByCount neither string nor object',
    source: mongodSource('pipeline/document_source_sort_by_count.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sortByCount: 1 }],
    error: 40149,
  },
];

const people: Document[] = [
  { _id: 1, name: 'Arlene', age: 34, pets: { dogs: 2, cats: 1 } },
  { _id: 2, name: 'Sam', age: 41, pets: { cats: 1, fish: 3 } },
  { _id: 3, name: 'Maria', age: 25 },
];

const replaceRoot: StageCase[] = [
  {
    name: '$replaceRoot with $mergeObjects defaults',
    source: manual('operator/aggregation/replaceRoot'),
    docs: people,
    pipeline: [
      {
        $replaceRoot: {
          newRoot: { $mergeObjects: [{ dogs: 0, cats: 0, birds: 0, fish: 0 }, '$pets'] },
        },
      },
    ],
    expected: [
      { dogs: 2, cats: 1, birds: 0, fish: 0 },
      { dogs: 0, cats: 1, birds: 0, fish: 3 },
      { dogs: 0, cats: 0, birds: 0, fish: 0 },
    ],
  },
  {
    name: '$replaceRoot with a newly built document',
    source: manual('operator/aggregation/replaceRoot') + ' (with a newly created document)',
    docs: [{ _id: 1, first_name: 'Gary', last_name: 'Sheffield', city: 'New York' }],
    pipeline: [
      { $replaceRoot: { newRoot: { full_name: { $concat: ['$first_name', ' ', '$last_name'] } } } },
    ],
    expected: [{ full_name: 'Gary Sheffield' }],
  },
  {
    name: '$replaceRoot with a missing subdocument fails',
    source: manual('operator/aggregation/replaceRoot') + ' (Behavior)',
    docs: people,
    pipeline: [{ $replaceRoot: { newRoot: '$pets' } }],
    error: 40228,
  },
  {
    name: '$replaceWith a subdocument after $match',
    source: manual('operator/aggregation/replaceWith'),
    docs: people,
    pipeline: [{ $match: { pets: { $exists: true } } }, { $replaceWith: '$pets' }],
    expected: [
      { dogs: 2, cats: 1 },
      { cats: 1, fish: 3 },
    ],
  },
  {
    name: '$replaceWith a non-document value fails',
    source: mongodSource('pipeline/document_source_replace_root.cpp'),
    docs: people,
    pipeline: [{ $replaceWith: '$name' }],
    error: 40228,
  },
  {
    name: '$replaceRoot not an object',
    source: mongodSource('pipeline/document_source_replace_root.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $replaceRoot: '$a' }],
    error: 40229,
  },
  {
    name: '$replaceRoot without newRoot',
    source: mongodSource('pipeline/document_source_replace_root.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $replaceRoot: {} }],
    error: 40414,
  },
  {
    name: '$replaceRoot unknown field',
    source: mongodSource('pipeline/document_source_replace_root.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $replaceRoot: { newRoot: '$a', x: 1 } }],
    error: 40415,
  },
];

const sample: StageCase[] = [
  {
    name: '$sample returns size distinct input documents',
    source: manual('operator/aggregation/sample'),
    docs: articles,
    pipeline: [{ $sample: { size: 3 } }],
    check: (out) => {
      assert.equal(out.length, 3);
      const ids = out.map((o) => Number(o['_id']));
      assert.equal(new Set(ids).size, 3);
      for (const id of ids) assert.ok(id >= 1 && id <= 7);
    },
  },
  {
    name: '$sample larger than the collection returns every document',
    source: manual('operator/aggregation/sample'),
    docs: articles,
    pipeline: [{ $sample: { size: 100 } }],
    expected: articles,
    unordered: true,
  },
  {
    name: '$sample not an object',
    source: mongodSource('pipeline/document_source_sample.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sample: 1 }],
    error: 28745,
  },
  {
    name: '$sample size not a number',
    source: mongodSource('pipeline/document_source_sample.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sample: { size: 'a' } }],
    error: 28746,
  },
  {
    name: '$sample negative size',
    source: mongodSource('pipeline/document_source_sample.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sample: { size: -1 } }],
    error: 28747,
  },
  {
    name: '$sample unknown option',
    source: mongodSource('pipeline/document_source_sample.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sample: { size: 1, x: 1 } }],
    error: 28748,
  },
  {
    name: '$sample without size',
    source: mongodSource('pipeline/document_source_sample.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $sample: {} }],
    error: 28749,
  },
];

const forecasts: Document = {
  _id: 1,
  title: '123 Department Report',
  tags: ['G', 'STLW'],
  year: 2014,
  subsections: [
    {
      subtitle: 'Section 1: Overview',
      tags: ['SI', 'G'],
      content: 'Section 1: This is the content of section 1.',
    },
    {
      subtitle: 'Section 2: Analysis',
      tags: ['STLW'],
      content: 'Section 2: This is the content of section 2.',
    },
    {
      subtitle: 'Section 3: Budgeting',
      tags: ['TK'],
      content: { text: 'Section 3: This is the content of section 3.', tags: ['HCS'] },
    },
  ],
};

const redact: StageCase[] = [
  {
    name: '$redact by tag intersection at every level',
    source: manual('operator/aggregation/redact') + ' (Evaluate Access at Every Document Level)',
    docs: [forecasts],
    pipeline: [
      { $match: { year: 2014 } },
      {
        $redact: {
          $cond: {
            if: { $gt: [{ $size: { $setIntersection: ['$tags', ['STLW', 'G']] } }, 0] },
            then: '$$DESCEND',
            else: '$$PRUNE',
          },
        },
      },
    ],
    expected: [
      {
        _id: 1,
        title: '123 Department Report',
        tags: ['G', 'STLW'],
        year: 2014,
        subsections: [
          {
            subtitle: 'Section 1: Overview',
            tags: ['SI', 'G'],
            content: 'Section 1: This is the content of section 1.',
          },
          {
            subtitle: 'Section 2: Analysis',
            tags: ['STLW'],
            content: 'Section 2: This is the content of section 2.',
          },
        ],
      },
    ],
  },
  {
    name: '$redact $$KEEP keeps the whole subtree, $$PRUNE drops the document',
    source: manual('operator/aggregation/redact') + ' (Exclude All Fields at a Given Level)',
    docs: [
      {
        _id: 1,
        level: 1,
        acct_id: 'xyz123',
        cc: {
          level: 5,
          type: 'yy',
          num: 0,
          exp_date: date('2015-11-01T00:00:00Z'),
          billing_addr: { level: 5, addr1: '123 ABC Street' },
        },
        status: 'A',
      },
      { _id: 2, level: 5, status: 'A' },
    ],
    pipeline: [
      { $redact: { $cond: { if: { $eq: ['$level', 5] }, then: '$$PRUNE', else: '$$DESCEND' } } },
    ],
    expected: [{ _id: 1, level: 1, acct_id: 'xyz123', status: 'A' }],
  },
  {
    name: '$redact $$KEEP',
    source: manual('operator/aggregation/redact'),
    docs: [{ _id: 1, a: { level: 5, b: { level: 5 } } }],
    pipeline: [{ $redact: '$$KEEP' }],
    expected: [{ _id: 1, a: { level: 5, b: { level: 5 } } }],
  },
  {
    name: '$redact expression returning another value',
    source: mongodSource('pipeline/document_source_redact.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $redact: 'x' }],
    error: 17053,
  },
];

const documents: StageCase[] = [
  {
    name: '$documents in {aggregate: 1}',
    source: manual('operator/aggregation/documents'),
    pipeline: [
      { $documents: [{ x: 10 }, { x: 2 }, { x: 5 }] },
      { $bucketAuto: { groupBy: '$x', buckets: 4 } },
    ],
    expected: [
      { _id: { min: 2, max: 5 }, count: 1 },
      { _id: { min: 5, max: 10 }, count: 1 },
      { _id: { min: 10, max: 10 }, count: 1 },
    ],
  },
  {
    name: '$documents from an expression',
    source: manual('operator/aggregation/documents'),
    pipeline: [{ $documents: { $map: { input: [1, 2], in: { v: '$$this' } } } }],
    expected: [{ v: 1 }, { v: 2 }],
  },
  {
    name: '$documents in a $lookup sub-pipeline',
    source:
      manual('operator/aggregation/documents') + ' (Use a $documents Stage in a $lookup Stage)',
    docs: [
      { _id: 1, zip: 94301 },
      { _id: 2, zip: 10019 },
    ],
    pipeline: [
      {
        $lookup: {
          localField: 'zip',
          foreignField: 'zip_id',
          as: 'city',
          pipeline: [
            {
              $documents: [
                { zip_id: 94301, name: 'Palo Alto' },
                { zip_id: 10019, name: 'New York' },
              ],
            },
          ],
        },
      },
      { $project: { _id: 1, name: { $first: '$city.name' } } },
    ],
    expected: [
      { _id: 1, name: 'Palo Alto' },
      { _id: 2, name: 'New York' },
    ],
  },
  {
    name: '$documents in a $unionWith without coll',
    source: jstest('aggregation/sources/documents.js'),
    docs: [{ _id: 1, a: 1 }],
    pipeline: [
      { $unionWith: { pipeline: [{ $documents: [{ xx: 1 }, { xx: 2 }] }] } },
      { $group: { _id: '$xx', xx: { $first: '$xx' } } },
      { $project: { _id: 0 } },
    ],
    expected: [{ xx: null }, { xx: 1 }, { xx: 2 }],
    unordered: true,
  },
  {
    name: '$documents not first in a collection pipeline',
    source: jstest('aggregation/sources/documents.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $project: { a: [{ xx: 1 }, { xx: 2 }] } }, { $documents: [{ a: 1 }] }],
    error: 40602,
  },
  {
    name: '$documents not first in {aggregate: 1}',
    source: jstest('aggregation/sources/documents.js'),
    pipeline: [{ $project: { a: [{ xx: 1 }, { xx: 2 }] } }, { $documents: [{ a: 1 }] }],
    error: 73,
  },
  {
    name: '$documents on a collection',
    source: jstest('aggregation/sources/documents.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $documents: { $map: { input: { $range: [0, 100] }, in: { x: '$$this' } } } }],
    error: 73,
  },
  {
    name: '$documents of non-documents',
    source: jstest('aggregation/sources/documents.js'),
    pipeline: [{ $documents: [1, 2, 3] }],
    error: 40228,
  },
  {
    name: '$documents of a document and a scalar',
    source: jstest('aggregation/sources/documents.js'),
    pipeline: [{ $documents: [{ a: 1 }, 2] }],
    error: 40228,
  },
  {
    name: '$documents not an array',
    source: jstest('aggregation/sources/documents.js') + ' (40228 or 5858203)',
    pipeline: [{ $documents: 1 }],
    error: 5858203,
  },
  {
    name: '$unionWith without coll nor $documents',
    source: jstest('aggregation/sources/documents.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unionWith: { pipeline: [{ $project: { a: [{ xx: 1 }, { xx: 2 }] } }] } }],
    error: 9,
  },
  {
    name: '$unionWith of $documents in {aggregate: 1}',
    source: jstest('aggregation/sources/documents.js'),
    pipeline: [
      {
        $unionWith: {
          pipeline: [{ $documents: { $map: { input: { $range: [0, 5] }, in: { x: '$$this' } } } }],
        },
      },
    ],
    error: 73,
  },
  {
    name: '$lookup without from nor $documents',
    source: jstest('aggregation/sources/documents.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $lookup: {
          let: { id_lookup: '$id_name' },
          as: 'aa',
          pipeline: [{ $project: { a: [{ xx: 1 }, { xx: 2 }] } }],
        },
      },
    ],
    error: 9,
  },
];

const inventory: Document[] = [
  { _id: 1, item: 'ABC', price: dec('80'), sizes: ['S', 'M', 'L'] },
  { _id: 2, item: 'EFG', price: dec('120'), sizes: [] },
  { _id: 3, item: 'IJK', price: dec('160'), sizes: 'M' },
  { _id: 4, item: 'LMN', price: dec('10') },
  { _id: 5, item: 'XYZ', price: dec('5.75'), sizes: null },
];

const unwind: StageCase[] = [
  {
    name: '$unwind an array (string form)',
    source: manual('operator/aggregation/unwind'),
    docs: [{ _id: 1, item: 'ABC1', sizes: ['S', 'M', 'L'] }],
    pipeline: [{ $unwind: '$sizes' }],
    expected: [
      { _id: 1, item: 'ABC1', sizes: 'S' },
      { _id: 1, item: 'ABC1', sizes: 'M' },
      { _id: 1, item: 'ABC1', sizes: 'L' },
    ],
  },
  {
    name: '$unwind treats a non-array operand as a single-element array; drops null, missing and empty',
    source: manual('operator/aggregation/unwind') + ' (Missing or Non-array Values)',
    docs: inventory,
    pipeline: [{ $unwind: { path: '$sizes' } }],
    expected: [
      { _id: 1, item: 'ABC', price: dec('80'), sizes: 'S' },
      { _id: 1, item: 'ABC', price: dec('80'), sizes: 'M' },
      { _id: 1, item: 'ABC', price: dec('80'), sizes: 'L' },
      { _id: 3, item: 'IJK', price: dec('160'), sizes: 'M' },
    ],
  },
  {
    name: '$unwind preserveNullAndEmptyArrays',
    source: manual('operator/aggregation/unwind') + ' (preserveNullAndEmptyArrays)',
    docs: inventory,
    pipeline: [{ $unwind: { path: '$sizes', preserveNullAndEmptyArrays: true } }],
    expected: [
      { _id: 1, item: 'ABC', price: dec('80'), sizes: 'S' },
      { _id: 1, item: 'ABC', price: dec('80'), sizes: 'M' },
      { _id: 1, item: 'ABC', price: dec('80'), sizes: 'L' },
      { _id: 2, item: 'EFG', price: dec('120') },
      { _id: 3, item: 'IJK', price: dec('160'), sizes: 'M' },
      { _id: 4, item: 'LMN', price: dec('10') },
      { _id: 5, item: 'XYZ', price: dec('5.75'), sizes: null },
    ],
  },
  {
    name: '$unwind includeArrayIndex (a long, null for non-arrays)',
    source: manual('operator/aggregation/unwind') + ' (includeArrayIndex)',
    docs: inventory,
    pipeline: [{ $unwind: { path: '$sizes', includeArrayIndex: 'arrayIndex' } }],
    expected: [
      { _id: 1, item: 'ABC', price: dec('80'), sizes: 'S', arrayIndex: l(0) },
      { _id: 1, item: 'ABC', price: dec('80'), sizes: 'M', arrayIndex: l(1) },
      { _id: 1, item: 'ABC', price: dec('80'), sizes: 'L', arrayIndex: l(2) },
      { _id: 3, item: 'IJK', price: dec('160'), sizes: 'M', arrayIndex: null },
    ],
  },
  {
    name: '$unwind includeArrayIndex with preserveNullAndEmptyArrays',
    source: manual('operator/aggregation/unwind') + ' (includeArrayIndex)',
    docs: [inventory[1] as Document, inventory[3] as Document],
    pipeline: [
      { $unwind: { path: '$sizes', includeArrayIndex: 'i', preserveNullAndEmptyArrays: true } },
    ],
    expected: [
      { _id: 2, item: 'EFG', price: dec('120'), i: null },
      { _id: 4, item: 'LMN', price: dec('10'), i: null },
    ],
  },
  {
    name: '$unwind an embedded array path',
    source: manual('operator/aggregation/unwind') + ' (Unwind Embedded Arrays)',
    docs: [{ _id: 1, a: { b: [1, 2], c: 'x' } }],
    pipeline: [{ $unwind: '$a.b' }],
    expected: [
      { _id: 1, a: { b: 1, c: 'x' } },
      { _id: 1, a: { b: 2, c: 'x' } },
    ],
  },
  {
    name: '$unwind neither string nor object',
    source: mongodSource('pipeline/document_source_unwind.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unwind: 1 }],
    error: 15981,
  },
  {
    name: '$unwind path not a string',
    source: mongodSource('pipeline/document_source_unwind.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unwind: { path: 1 } }],
    error: 28808,
  },
  {
    name: '$unwind preserveNullAndEmptyArrays not a boolean',
    source: mongodSource('pipeline/document_source_unwind.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unwind: { path: '$a', preserveNullAndEmptyArrays: 1 } }],
    error: 28809,
  },
  {
    name: '$unwind includeArrayIndex not a string',
    source: mongodSource('pipeline/document_source_unwind.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unwind: { path: '$a', includeArrayIndex: 1 } }],
    error: 28810,
  },
  {
    name: '$unwind unknown option',
    source: mongodSource('pipeline/document_source_unwind.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unwind: { path: '$a', x: 1 } }],
    error: 28811,
  },
  {
    name: '$unwind without path',
    source: mongodSource('pipeline/document_source_unwind.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unwind: {} }],
    error: 28812,
  },
  {
    name: '$unwind path without $',
    source: mongodSource('pipeline/document_source_unwind.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unwind: 'a' }],
    error: 28818,
  },
  {
    name: '$unwind includeArrayIndex with $',
    source: mongodSource('pipeline/document_source_unwind.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unwind: { path: '$a', includeArrayIndex: '$i' } }],
    error: 28822,
  },
];

export const basicCases: readonly StageCase[] = [
  ...match,
  ...project,
  ...addFields,
  ...unset,
  ...sort,
  ...limitSkip,
  ...countStage,
  ...sortByCount,
  ...replaceRoot,
  ...sample,
  ...redact,
  ...documents,
  ...unwind,
];
