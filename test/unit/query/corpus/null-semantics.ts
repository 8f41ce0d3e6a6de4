// Equality to null, missing fields and undefined, through arrays: the data and expectations of
// jstests/core/null_query_semantics.js as of MongoDB 7.0 (before 8.0 stopped matching
// undefined with null).

import type { MatchCase } from './types.js';
import type { Literal } from './values.js';

const SOURCE = 'mongodb/mongo jstests/core/null_query_semantics.js (7.0, pre-8.0 null semantics)';

const docs: Array<{ [key: string]: Literal }> = [
  { _id: 'a_empty_subobject', a: {} },
  { _id: 'a_null', a: null },
  { _id: 'a_number', a: 4 },
  { _id: 'a_subobject_b_not_null', a: { b: 'hi' } },
  { _id: 'a_subobject_b_null', a: { b: null } },
  { _id: 'a_subobject_b_undefined', a: { b: undefined } },
  { _id: 'a_undefined', a: undefined },
  { _id: 'no_a' },
  { _id: 'a_double_array', a: [[]] },
  { _id: 'a_empty_array', a: [] },
  { _id: 'a_object_array_all_b_nulls', a: [{ b: null }, { b: undefined }, { b: null }, {}] },
  { _id: 'a_object_array_no_b_nulls', a: [{ b: 1 }, { b: 3 }, { b: 'string' }] },
  { _id: 'a_object_array_some_b_nulls', a: [{ b: null }, { b: 3 }, { b: null }] },
  { _id: 'a_object_array_some_b_undefined', a: [{ b: undefined }, { b: 3 }] },
  { _id: 'a_object_array_some_b_missing', a: [{ b: 3 }, {}] },
  { _id: 'a_value_array_all_nulls', a: [null, null] },
  { _id: 'a_value_array_no_nulls', a: [1, 'string', 4] },
  { _id: 'a_value_array_with_null', a: [1, 'string', null, 4] },
  { _id: 'a_value_array_with_undefined', a: [1, 'string', undefined, 4] },
];

const ids = (...names: string[]): string[] =>
  docs.map((d) => d['_id'] as string).filter((id) => names.includes(id));

const eqNull = ids(
  'a_null',
  'a_undefined',
  'a_value_array_all_nulls',
  'a_value_array_with_null',
  'a_value_array_with_undefined',
  'no_a',
);
const neNull = ids(
  'a_double_array',
  'a_empty_array',
  'a_empty_subobject',
  'a_number',
  'a_object_array_all_b_nulls',
  'a_object_array_no_b_nulls',
  'a_object_array_some_b_nulls',
  'a_object_array_some_b_undefined',
  'a_object_array_some_b_missing',
  'a_subobject_b_not_null',
  'a_subobject_b_null',
  'a_subobject_b_undefined',
  'a_value_array_no_nulls',
);
const dottedEqNull = ids(
  'a_empty_subobject',
  'a_null',
  'a_number',
  'a_subobject_b_null',
  'a_subobject_b_undefined',
  'a_undefined',
  'no_a',
  'a_object_array_all_b_nulls',
  'a_object_array_some_b_nulls',
  'a_object_array_some_b_undefined',
  'a_object_array_some_b_missing',
);
const dottedNeNull = ids(
  'a_subobject_b_not_null',
  'a_double_array',
  'a_empty_array',
  'a_object_array_no_b_nulls',
  'a_value_array_all_nulls',
  'a_value_array_no_nulls',
  'a_value_array_with_null',
  'a_value_array_with_undefined',
);

export const nullSemanticsCases: MatchCase[] = [
  {
    name: '{a: {$eq: null}}',
    filter: { a: { $eq: null } },
    docs,
    expected: eqNull,
    source: SOURCE,
  },
  { name: '{a: null}', filter: { a: null }, docs, expected: eqNull, source: SOURCE },
  {
    name: '{a: {$ne: null}}',
    filter: { a: { $ne: null } },
    docs,
    expected: neNull,
    source: SOURCE,
  },
  {
    name: '{a: {$not: {$gte: null}}}',
    filter: { a: { $not: { $gte: null } } },
    docs,
    expected: neNull,
    source: SOURCE,
  },
  {
    name: '{a: {$in: [null, 75]}}',
    filter: { a: { $in: [null, 75] } },
    docs,
    expected: eqNull,
    source: SOURCE,
  },
  {
    name: '{$or: [{a: null}, {a: 75}]}',
    filter: { $or: [{ a: null }, { a: 75 }] },
    docs,
    expected: eqNull,
    source: SOURCE,
  },
  {
    name: '{a: {$nin: [null, 75]}}',
    filter: { a: { $nin: [null, 75] } },
    docs,
    expected: neNull,
    source: SOURCE,
  },
  {
    name: '{a: {$nin: [null, /^str.*/]}}',
    filter: { a: { $nin: [null, /^str.*/] } },
    docs,
    expected: neNull.filter((id) => id !== 'a_value_array_no_nulls'),
    source: SOURCE,
  },
  {
    name: '{a: {$exists: false}}',
    filter: { a: { $exists: false } },
    docs,
    expected: ['no_a'],
    source: SOURCE,
  },
  {
    name: '{a: {$elemMatch: {$eq: null}}}',
    filter: { a: { $elemMatch: { $eq: null } } },
    docs,
    expected: ids(
      'a_value_array_all_nulls',
      'a_value_array_with_null',
      'a_value_array_with_undefined',
    ),
    source: SOURCE,
  },
  {
    name: '{a: {$elemMatch: {$ne: null}}}',
    filter: { a: { $elemMatch: { $ne: null } } },
    docs,
    expected: ids(
      'a_double_array',
      'a_object_array_all_b_nulls',
      'a_object_array_no_b_nulls',
      'a_object_array_some_b_nulls',
      'a_object_array_some_b_undefined',
      'a_object_array_some_b_missing',
      'a_value_array_no_nulls',
      'a_value_array_with_undefined',
      'a_value_array_with_null',
    ),
    source: SOURCE,
  },
  {
    name: '{"a.b": {$eq: null}}',
    filter: { 'a.b': { $eq: null } },
    docs,
    expected: dottedEqNull,
    source: SOURCE,
  },
  {
    name: '{"a.b": {$ne: null}}',
    filter: { 'a.b': { $ne: null } },
    docs,
    expected: dottedNeNull,
    source: SOURCE,
  },
  {
    name: '{"a.b": {$in: [null, 75]}}',
    filter: { 'a.b': { $in: [null, 75] } },
    docs,
    expected: dottedEqNull,
    source: SOURCE,
  },
  {
    name: '{$or: [{"a.b": null}, {"a.b": 75}]}',
    filter: { $or: [{ 'a.b': null }, { 'a.b': 75 }] },
    docs,
    expected: dottedEqNull,
    source: SOURCE,
  },
  {
    name: '{"a.b": {$nin: [null, 75]}}',
    filter: { 'a.b': { $nin: [null, 75] } },
    docs,
    expected: dottedNeNull,
    source: SOURCE,
  },
  {
    name: '{"a.b": {$nin: [null, /^str.*/]}}',
    filter: { 'a.b': { $nin: [null, /^str.*/] } },
    docs,
    expected: dottedNeNull.filter((id) => id !== 'a_object_array_no_b_nulls'),
    source: SOURCE,
  },
  {
    name: '{"a.b": {$exists: false}} (scalar a has no b)',
    filter: { 'a.b': { $exists: false } },
    docs: docs.slice(0, 8),
    expected: ['a_empty_subobject', 'a_null', 'a_number', 'a_undefined', 'no_a'],
    source: SOURCE,
  },
  {
    name: '{"a.b": {$elemMatch: {$eq: null}}}',
    filter: { 'a.b': { $elemMatch: { $eq: null } } },
    docs,
    expected: [],
    source: SOURCE,
  },
  {
    name: '{"a.b": {$elemMatch: {$ne: null}}}',
    filter: { 'a.b': { $elemMatch: { $ne: null } } },
    docs,
    expected: [],
    source: SOURCE,
  },
  {
    name: '{a: {$elemMatch: {b: {$eq: null}}}}',
    filter: { a: { $elemMatch: { b: { $eq: null } } } },
    docs,
    expected: ids(
      'a_double_array',
      'a_object_array_all_b_nulls',
      'a_object_array_some_b_nulls',
      'a_object_array_some_b_undefined',
      'a_object_array_some_b_missing',
    ),
    source: SOURCE,
  },
  {
    name: '{a: {$elemMatch: {b: {$ne: null}}}}',
    filter: { a: { $elemMatch: { b: { $ne: null } } } },
    docs,
    expected: ids(
      'a_object_array_no_b_nulls',
      'a_object_array_some_b_nulls',
      'a_object_array_some_b_undefined',
      'a_object_array_some_b_missing',
    ),
    source: SOURCE,
  },
];
