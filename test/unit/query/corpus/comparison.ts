// $eq $ne $gt $gte $lt $lte across BSON types: type bracketing, numbers of every type compared
// by value, NaN, MinKey/MaxKey, and comparison of documents and arrays.

import type { MatchCase } from './types.js';
import { values } from './types.js';
import { bin, date, dbl, dec, int, long, maxKey, minKey, oid, re, ts } from './values.js';

const LEAF = 'mongod src/mongo/db/matcher/expression_leaf.cpp (ComparisonMatchExpression::matchesSingleElement)';
const BRACKETING = 'MongoDB manual, Comparison Query Operators: type bracketing ("only where the BSON type matches")';
const SORT_ORDER = 'MongoDB manual, Comparison/Sort Order (numbers compare by value across types)';
const MINMAX = 'mongodb/mongo jstests/core/query/min_max_key.js and index_bounds_minkey.js';
const WHOLE_ARRAY = 'mongodb/mongo jstests/core/query/expressions_matching_whole_array.js';

/** One document per BSON type, used by the bracketing cases. */
const everyType = values(
  int(5),
  long(5),
  dbl(5.5),
  dec('5'),
  'five',
  { x: 5 },
  [5],
  bin('AQ=='),
  oid('0123456789abcdef01234567'),
  true,
  date('2020-01-01T00:00:00Z'),
  ts(5, 1),
  re('five'),
  null,
  undefined,
  minKey,
  maxKey,
);

const minMax = [
  { _id: 'a_max_key', a: maxKey },
  { _id: 'a_min_key', a: minKey },
  { _id: 'a_null', a: null },
  { _id: 'a_number', a: 4 },
  { _id: 'a_subobject', a: { b: 'hi' } },
  { _id: 'a_undefined', a: undefined },
  { _id: 'a_string', a: 'hello' },
  { _id: 'no_a' },
];
const allMinMax = minMax.map((d) => d._id);

export const comparisonCases: MatchCase[] = [
  { name: '$gt number brackets to numbers (and [5] via its element)', filter: { a: { $gt: 4 } }, docs: everyType, expected: [0, 1, 2, 3, 6], source: BRACKETING },
  { name: '$lt string brackets to strings', filter: { a: { $lt: 'zzz' } }, docs: everyType, expected: [4], source: BRACKETING },
  { name: '$gte date brackets to dates', filter: { a: { $gte: date('1970-01-01T00:00:00Z') } }, docs: everyType, expected: [10], source: BRACKETING },
  { name: '$gt timestamp is not a date', filter: { a: { $gt: ts(0, 0) } }, docs: everyType, expected: [11], source: BRACKETING },
  { name: '$gte false brackets to booleans', filter: { a: { $gte: false } }, docs: everyType, expected: [9], source: BRACKETING },
  { name: '$gt {} brackets to documents', filter: { a: { $gt: {} } }, docs: everyType, expected: [5], source: BRACKETING },
  { name: '$lt ObjectId', filter: { a: { $lt: oid('ffffffffffffffffffffffff') } }, docs: everyType, expected: [8], source: BRACKETING },
  { name: '$gte BinData', filter: { a: { $gte: bin('') } }, docs: everyType, expected: [7], source: BRACKETING },
  { name: 'equality across numeric types', filter: { a: 5 }, docs: everyType, expected: [0, 1, 3, 6], source: SORT_ORDER },
  { name: 'equality with a double 5.0', filter: { a: dbl(5) }, docs: everyType, expected: [0, 1, 3, 6], source: SORT_ORDER },
  { name: 'equality with a decimal', filter: { a: dec('5.0') }, docs: everyType, expected: [0, 1, 3, 6], source: SORT_ORDER },
  { name: 'equality with a long', filter: { a: long(5) }, docs: everyType, expected: [0, 1, 3, 6], source: SORT_ORDER },
  { name: 'equality with a regex value compares the regex', filter: { a: { $eq: re('five') } }, docs: everyType, expected: [12], source: LEAF },
  {
    name: 'int64 beyond 2^53 compares exactly',
    filter: { a: { $gt: long('9007199254740992') } },
    docs: values(long('9007199254740993'), dbl(9007199254740992), long('9007199254740992'), dec('9007199254740992.5')),
    expected: [0, 3],
    source: SORT_ORDER,
  },
  {
    name: 'double vs long at 2^63',
    filter: { a: { $lt: dbl(9223372036854775807) } },
    docs: values(long('9223372036854775807'), dbl(9223372036854775807)),
    expected: [0],
    source: SORT_ORDER,
  },
  {
    name: 'decimal 0.1 is below double 0.1',
    filter: { a: { $lt: dbl(0.1) } },
    docs: values(dec('0.1'), dbl(0.1), dec('0.100000000000000005')),
    expected: [0, 2],
    source: SORT_ORDER,
  },
  { name: '-0 equals 0', filter: { a: 0 }, docs: values(dbl(-0), int(0), dec('-0'), long(0), dbl(1e-300)), expected: [0, 1, 2, 3], source: SORT_ORDER },
  { name: 'NaN equals NaN', filter: { a: dbl(NaN) }, docs: values(dbl(NaN), dec('NaN'), 0, dbl(-Infinity)), expected: [0, 1], source: LEAF },
  { name: '$gt NaN matches nothing', filter: { a: { $gt: dbl(NaN) } }, docs: values(dbl(NaN), 0, dbl(Infinity)), expected: [], source: LEAF },
  { name: '$gte NaN matches only NaN', filter: { a: { $gte: dbl(NaN) } }, docs: values(dbl(NaN), dec('NaN'), 0, dbl(-Infinity)), expected: [0, 1], source: LEAF },
  { name: '$lt NaN matches nothing', filter: { a: { $lt: dbl(NaN) } }, docs: values(dbl(NaN), dbl(-Infinity)), expected: [], source: LEAF },
  { name: '$lt a number: NaN is not less', filter: { a: { $lt: 0 } }, docs: values(dbl(NaN), dbl(-Infinity), -1), expected: [1, 2], source: LEAF },
  { name: '$lte Infinity', filter: { a: { $lte: dbl(Infinity) } }, docs: values(dbl(Infinity), dec('1E+400'), dbl(NaN), 'x'), expected: [0, 1], source: SORT_ORDER },
  { name: '$eq MinKey', filter: { a: { $eq: minKey } }, docs: minMax, expected: ['a_min_key'], source: MINMAX },
  { name: '$gt MinKey matches everything else, missing included', filter: { a: { $gt: minKey } }, docs: minMax, expected: allMinMax.filter((id) => id !== 'a_min_key'), source: MINMAX },
  { name: '$gte MinKey matches everything', filter: { a: { $gte: minKey } }, docs: minMax, expected: allMinMax, source: MINMAX },
  { name: '$lt MinKey matches nothing', filter: { a: { $lt: minKey } }, docs: minMax, expected: [], source: MINMAX },
  { name: '$lte MinKey', filter: { a: { $lte: minKey } }, docs: minMax, expected: ['a_min_key'], source: MINMAX },
  { name: '$lt MaxKey matches everything else', filter: { a: { $lt: maxKey } }, docs: minMax, expected: allMinMax.filter((id) => id !== 'a_max_key'), source: MINMAX },
  { name: '$lte MaxKey matches everything', filter: { a: { $lte: maxKey } }, docs: minMax, expected: allMinMax, source: MINMAX },
  { name: '$gt MaxKey matches nothing', filter: { a: { $gt: maxKey } }, docs: minMax, expected: [], source: MINMAX },
  { name: '$gt MinKey matches whole arrays, empty too', filter: { a: { $gt: minKey } }, docs: values([1, 2, 3], []), expected: [0, 1], source: WHOLE_ARRAY },
  { name: '$lt MaxKey matches whole arrays, empty too', filter: { a: { $lt: maxKey } }, docs: values([1, 2, 3], []), expected: [0, 1], source: WHOLE_ARRAY },
  { name: '$gte an array compares whole arrays', filter: { a: { $gte: [1, 2] } }, docs: values([1, 2], [1, 3], [1], [[1, 2]], 5), expected: [0, 1, 3], source: 'mongodb/mongo jstests/core/query/array/array_match4.js' },
  { name: '$lte null matches null, undefined and missing', filter: { a: { $lte: null } }, docs: [{ _id: 0, a: null }, { _id: 1, a: undefined }, { _id: 2 }, { _id: 3, a: 0 }], expected: [0, 1, 2], source: LEAF },
  { name: '$lt null matches nothing', filter: { a: { $lt: null } }, docs: [{ _id: 0, a: null }, { _id: 1 }, { _id: 2, a: minKey }], expected: [], source: LEAF },
  { name: '$ne number: arrays containing it are excluded', filter: { a: { $ne: 1 } }, docs: values(1, [1, 2], [2], 'x'), expected: [2, 3], source: 'MongoDB manual, $ne (arrays)' },
  { name: 'string comparison is binary', filter: { a: { $gt: 'B' } }, docs: values('a', 'C', 'B', 'Ä'), expected: [0, 1, 3], source: SORT_ORDER },
  { name: 'documents compare field by field', filter: { a: { $gt: { x: 1 } } }, docs: values({ x: 2 }, { x: 1 }, { x: 1, y: 0 }, { w: 9 }, { y: 0 }), expected: [0, 2, 4], source: SORT_ORDER },
  { name: '$eq with an operator-looking document is a literal', filter: { a: { $eq: { $gt: 1 } } }, docs: values({ $gt: 1 }, 2), expected: [0], source: 'mongod expression_parser.cpp ($eq takes its argument as a value)' },
];
