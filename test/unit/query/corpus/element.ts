// $exists and $type.

import type { MatchCase } from './types.js';
import { values } from './types.js';
import { bin, date, dbl, dec, int, long, maxKey, minKey, oid, re, ts } from './values.js';

const TYPE_ARRAY = 'mongodb/mongo jstests/core/query/type/type_array.js';
const EXISTSA = 'mongodb/mongo jstests/core/query/exists/existsa.js';
const TYPE_MANUAL = 'MongoDB manual, $type (available types and aliases)';

const typeDocs = [
  { _id: 1, a: [1, 2, 3] },
  { _id: 2, a: [1, 'foo', 3] },
  { _id: 3, a: [] },
  { _id: 4, a: [[]] },
  { _id: 5, a: [[[]]] },
  { _id: 6, a: 1 },
  { _id: 7, a: 'foo' },
];

const typeDocs2 = [
  { _id: 0, a: dbl(1) },
  { _id: 1, a: int(1) },
  { _id: 2, a: long(1) },
  { _id: 3, a: 'str' },
  { _id: 4, a: [] },
  { _id: 5, a: [int(1), 'str'] },
  { _id: 6 },
];

const existsDocs = [{ _id: 0 }, { _id: 1, a: 1 }, { _id: 2, a: { x: 1 }, b: 1 }];
const existsArrayDocs = [
  { _id: 0, a: [{}] },
  { _id: 1, a: [{ b: 1 }] },
  { _id: 2, a: [{ b: [1] }] },
];

/** One value of each type, with the alias that names it. */
const byAlias: Array<[string, unknown]> = [
  ['double', dbl(1.5)],
  ['string', 's'],
  ['object', { x: 1 }],
  ['binData', bin('AQ==')],
  ['undefined', undefined],
  ['objectId', oid('0123456789abcdef01234567')],
  ['bool', false],
  ['date', date('2020-01-01T00:00:00Z')],
  ['null', null],
  ['regex', re('x')],
  ['int', int(1)],
  ['timestamp', ts(1, 1)],
  ['long', long(1)],
  ['decimal', dec('1')],
  ['minKey', minKey],
  ['maxKey', maxKey],
];
const aliasDocs = values(...byAlias.map(([, v]) => v as never));

export const elementCases: MatchCase[] = [
  {
    name: '$type number',
    filter: { a: { $type: 'number' } },
    docs: typeDocs,
    expected: [1, 2, 6],
    source: TYPE_ARRAY,
  },
  {
    name: '$type string',
    filter: { a: { $type: 'string' } },
    docs: typeDocs,
    expected: [2, 7],
    source: TYPE_ARRAY,
  },
  {
    name: '$type array',
    filter: { a: { $type: 'array' } },
    docs: typeDocs,
    expected: [1, 2, 3, 4, 5],
    source: TYPE_ARRAY,
  },
  {
    name: '$type array at a.0',
    filter: { 'a.0': { $type: 'array' } },
    docs: typeDocs,
    expected: [4, 5],
    source: TYPE_ARRAY,
  },
  {
    name: '$type array at a.0.0',
    filter: { 'a.0.0': { $type: 'array' } },
    docs: typeDocs,
    expected: [5],
    source: TYPE_ARRAY,
  },
  {
    name: '$type alias and code mixed',
    filter: { a: { $type: ['long', 2] } },
    docs: typeDocs2,
    expected: [2, 3, 5],
    source: TYPE_ARRAY,
  },
  {
    name: '$type with array among types',
    filter: { a: { $type: ['long', 'array'] } },
    docs: typeDocs2,
    expected: [2, 4, 5],
    source: TYPE_ARRAY,
  },
  {
    name: '$type duplicates allowed',
    filter: { a: { $type: ['long', 'array', 18, 4] } },
    docs: typeDocs2,
    expected: [2, 4, 5],
    source: TYPE_ARRAY,
  },
  ...byAlias.map(([alias], i): MatchCase => ({
    name: `$type "${alias}"`,
    filter: { a: { $type: alias } },
    docs: aliasDocs,
    expected: [i],
    source: TYPE_MANUAL,
  })),
  {
    name: '$type 1 (double code)',
    filter: { a: { $type: 1 } },
    docs: aliasDocs,
    expected: [0],
    source: TYPE_MANUAL,
  },
  {
    name: '$type -1 (minKey code)',
    filter: { a: { $type: -1 } },
    docs: aliasDocs,
    expected: [14],
    source: TYPE_MANUAL,
  },
  {
    name: '$type 127 (maxKey code)',
    filter: { a: { $type: 127 } },
    docs: aliasDocs,
    expected: [15],
    source: TYPE_MANUAL,
  },
  {
    name: '$type code as a double 2.0',
    filter: { a: { $type: dbl(2) } },
    docs: aliasDocs,
    expected: [1],
    source: TYPE_MANUAL,
  },
  {
    name: '$type never matches a missing field',
    filter: { a: { $type: 'null' } },
    docs: [{ _id: 0 }, { _id: 1, a: null }],
    expected: [1],
    source: 'mongodb/mongo jstests/core/query/type/type_operator_on_missing_values.js',
  },
  {
    name: '$exists: false',
    filter: { a: { $exists: false } },
    docs: existsDocs,
    expected: [0],
    source: EXISTSA,
  },
  {
    name: '$not $exists: true',
    filter: { a: { $not: { $exists: true } } },
    docs: existsDocs,
    expected: [0],
    source: EXISTSA,
  },
  {
    name: '$nor $exists: true',
    filter: { $nor: [{ a: { $exists: true } }] },
    docs: existsDocs,
    expected: [0],
    source: EXISTSA,
  },
  {
    name: 'a.x $exists: false',
    filter: { 'a.x': { $exists: false } },
    docs: existsDocs,
    expected: [0, 1],
    source: EXISTSA,
  },
  {
    name: '$exists: true',
    filter: { a: { $exists: true } },
    docs: existsDocs,
    expected: [1, 2],
    source: EXISTSA,
  },
  {
    name: '$nor a.x $exists: false',
    filter: { $nor: [{ 'a.x': { $exists: false } }] },
    docs: existsDocs,
    expected: [2],
    source: EXISTSA,
  },
  {
    name: '$exists with a truthy number',
    filter: { a: { $exists: 1 } },
    docs: existsDocs,
    expected: [1, 2],
    source: 'mongod expression_parser.cpp ($exists uses trueValue)',
  },
  {
    name: '$exists with 0',
    filter: { a: { $exists: 0 } },
    docs: existsDocs,
    expected: [0],
    source: 'mongod expression_parser.cpp ($exists uses trueValue)',
  },
  {
    name: '$exists with null is false',
    filter: { a: { $exists: null } },
    docs: existsDocs,
    expected: [0],
    source: 'mongod expression_parser.cpp ($exists uses trueValue)',
  },
  {
    name: '$exists with a string is true',
    filter: { a: { $exists: 'no' } },
    docs: existsDocs,
    expected: [1, 2],
    source: 'mongod expression_parser.cpp ($exists uses trueValue)',
  },
  {
    name: '$elemMatch b $exists: false',
    filter: { a: { $elemMatch: { b: { $exists: false } } } },
    docs: existsArrayDocs,
    expected: [0],
    source: EXISTSA,
  },
  {
    name: '$elemMatch b $exists: true',
    filter: { a: { $elemMatch: { b: { $exists: true } } } },
    docs: existsArrayDocs,
    expected: [1, 2],
    source: EXISTSA,
  },
  {
    name: 'a.b $elemMatch $not $exists: false',
    filter: { 'a.b': { $elemMatch: { $not: { $exists: false } } } },
    docs: existsArrayDocs,
    expected: [2],
    source: EXISTSA,
  },
  {
    name: '$exists: true on a null value',
    filter: { a: { $exists: true } },
    docs: values(null, undefined, []),
    expected: [0, 1, 2],
    source: 'MongoDB manual, $exists (matches documents that contain the field, including null)',
  },
];
