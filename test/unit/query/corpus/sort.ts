// Sort specifications: documents, the order mongod returns them in, and bad specifications.

import { ErrorCode } from '../../../../src/errors.js';
import type { Literal } from './values.js';
import { dec, long, maxKey, minKey } from './values.js';

type Doc = { [key: string]: Literal };

export interface SortCase {
  readonly name: string;
  readonly sort: Doc;
  /** Documents in insertion order. */
  readonly docs: Doc[];
  /** `_id`s in sorted order (ties keep insertion order: the sort is stable). */
  readonly expected: Literal[];
  readonly source: string;
}

export interface SortErrorCase {
  readonly name: string;
  readonly sort: Doc;
  /** When the error comes from a document (parallel arrays) rather than the specification. */
  readonly docs?: Doc[];
  readonly code: number;
  readonly source: string;
}

const KEYGEN = 'mongod src/mongo/db/index/sort_key_generator_test.cpp';
const ORDER =
  'MongoDB manual, Comparison/Sort Order (arrays: smallest element ascending, largest descending; missing sorts as null; empty array below null)';
const PATTERN = 'mongod src/mongo/db/query/sort_pattern.cpp';

export const sortCases: SortCase[] = [
  {
    name: 'ascending numbers',
    sort: { a: 1 },
    docs: [
      { _id: 1, a: 3 },
      { _id: 2, a: 1 },
      { _id: 3, a: 2 },
    ],
    expected: [2, 3, 1],
    source: ORDER,
  },
  {
    name: 'descending numbers',
    sort: { a: -1 },
    docs: [
      { _id: 1, a: 3 },
      { _id: 2, a: 1 },
      { _id: 3, a: 2 },
    ],
    expected: [1, 3, 2],
    source: ORDER,
  },
  {
    name: 'types sort by BSON order',
    sort: { a: 1 },
    docs: [
      { _id: 1, a: 'x' },
      { _id: 2, a: maxKey },
      { _id: 3, a: 1 },
      { _id: 4, a: null },
      { _id: 5, a: minKey },
      { _id: 6, a: { b: 1 } },
      { _id: 7, a: true },
    ],
    expected: [5, 4, 3, 1, 6, 7, 2],
    source: ORDER,
  },
  {
    name: 'numbers of different types by value',
    sort: { a: 1 },
    docs: [
      { _id: 1, a: long('3') },
      { _id: 2, a: dec('2.5') },
      { _id: 3, a: 1.5 },
      { _id: 4, a: 2 },
    ],
    expected: [3, 4, 2, 1],
    source: ORDER,
  },
  {
    name: 'missing sorts with null, stable',
    sort: { a: 1 },
    docs: [{ _id: 1, a: 1 }, { _id: 2 }, { _id: 3, a: null }, { _id: 4 }],
    expected: [2, 3, 4, 1],
    source: ORDER,
  },
  {
    name: 'array ascending uses its smallest element',
    sort: { a: 1 },
    docs: [
      { _id: 1, a: [5, 1] },
      { _id: 2, a: 2 },
      { _id: 3, a: [3, 4] },
    ],
    expected: [1, 2, 3],
    source: ORDER,
  },
  {
    name: 'array descending uses its largest element',
    sort: { a: -1 },
    docs: [
      { _id: 1, a: [1, 2, 3, 4] },
      { _id: 2, a: 3 },
      { _id: 3, a: [0, 5] },
    ],
    expected: [3, 1, 2],
    source: KEYGEN,
  },
  {
    name: 'empty array sorts below null',
    sort: { a: 1 },
    docs: [
      { _id: 1, a: null },
      { _id: 2, a: [] },
      { _id: 3, a: 0 },
    ],
    expected: [2, 1, 3],
    source: ORDER,
  },
  {
    name: 'empty array last when descending',
    sort: { a: -1 },
    docs: [
      { _id: 1, a: [] },
      { _id: 2, a: null },
      { _id: 3, a: 0 },
    ],
    expected: [3, 2, 1],
    source: ORDER,
  },
  {
    name: 'compound',
    sort: { a: 1, b: 1 },
    docs: [
      { _id: 1, a: 99, b: 16 },
      { _id: 2, a: 99, b: 1 },
      { _id: 3, a: 1, b: 50 },
    ],
    expected: [3, 2, 1],
    source: KEYGEN,
  },
  {
    name: 'dotted path',
    sort: { 'c.a': 1, b: 1 },
    docs: [
      { _id: 1, c: { a: 4 }, b: 16 },
      { _id: 2, c: { a: 2 }, b: 20 },
    ],
    expected: [2, 1],
    source: KEYGEN,
  },
  {
    name: 'leading array field',
    sort: { c: 1, b: 1 },
    docs: [
      { _id: 1, c: [2, 4, 1], b: 16 },
      { _id: 2, c: 1, b: 15 },
    ],
    expected: [2, 1],
    source: KEYGEN,
  },
  {
    name: 'fields under one array pair up per element',
    sort: { 'a.b': 1, 'a.c': -1 },
    docs: [
      {
        _id: 1,
        a: [
          { b: 1, c: 0 },
          { b: 0, c: 3 },
          { b: 0, c: 1 },
        ],
      },
      { _id: 2, a: { b: 0, c: 2 } },
      { _id: 3, a: { b: 0, c: 4 } },
    ],
    expected: [3, 1, 2],
    source: KEYGEN,
  },
  {
    name: 'path through an array of documents',
    sort: { 'a.b': 1 },
    docs: [
      { _id: 1, a: [{ b: 5 }, { b: 2 }] },
      { _id: 2, a: [{ b: 3 }] },
    ],
    expected: [1, 2],
    source: ORDER,
  },
  {
    name: 'nested arrays compare as arrays',
    sort: { a: 1 },
    docs: [
      { _id: 1, a: [[2]] },
      { _id: 2, a: [[1, 9]] },
      { _id: 3, a: 5 },
    ],
    expected: [3, 2, 1],
    source: ORDER,
  },
  {
    name: 'strings sort by bytes',
    sort: { s: 1 },
    docs: [
      { _id: 1, s: 'b' },
      { _id: 2, s: 'B' },
      { _id: 3, s: 'a' },
    ],
    expected: [2, 3, 1],
    source: ORDER,
  },
];

export const sortErrorCases: SortErrorCase[] = [
  { name: 'string direction', sort: { a: 'foo' }, code: ErrorCode.Location15974, source: KEYGEN },
  { name: 'direction 0', sort: { a: 0 }, code: ErrorCode.Location15975, source: PATTERN },
  { name: 'direction 2', sort: { a: 2 }, code: ErrorCode.Location15975, source: PATTERN },
  { name: 'direction 1.5', sort: { a: 1.5 }, code: ErrorCode.Location15975, source: PATTERN },
  {
    name: 'unknown expression',
    sort: { a: { $unknown: 'textScore' } },
    code: ErrorCode.Location17312,
    source: KEYGEN,
  },
  {
    name: '$meta with extra keys',
    sort: { a: { $meta: 'textScore', extra: 1 } },
    code: ErrorCode.FailedToParse,
    source: KEYGEN,
  },
  {
    name: 'unknown $meta',
    sort: { a: { $meta: 'unknown' } },
    code: ErrorCode.Location31138,
    source: KEYGEN,
  },
  {
    name: '$meta randVal (not implemented)',
    sort: { a: { $meta: 'randVal' } },
    code: ErrorCode.NotImplemented,
    source: 'SecantusDB: random sort keys not implemented',
  },
  {
    name: '$natural 2',
    sort: { $natural: 2 },
    code: ErrorCode.BadValue,
    source: 'mongod src/mongo/db/query/query_request_helper.cpp',
  },
  {
    name: 'empty field name',
    sort: { '': 1 },
    code: ErrorCode.Location40352,
    source: 'mongod src/mongo/db/pipeline/field_path.cpp',
  },
  {
    name: '$-prefixed field',
    sort: { $a: 1 },
    code: ErrorCode.Location16410,
    source: 'mongod src/mongo/db/pipeline/field_path.cpp',
  },
  {
    name: 'parallel arrays',
    sort: { a: 1, b: 1 },
    docs: [
      { _id: 1, a: [1, 2], b: [3, 4] },
      { _id: 2, a: 1, b: 1 },
    ],
    code: ErrorCode.BadValue,
    source:
      'mongod src/mongo/db/index/sort_key_generator.cpp (cannot sort with keys that are parallel arrays)',
  },
];
