// Set operators. Sources: the manual pages of $setUnion $setIntersection $setDifference
// $setEquals $setIsSubset $anyElementTrue $allElementsTrue (duplicates ignored, element
// order ignored, nested arrays are elements rather than sets, null/missing gives null for
// union/intersection/difference) and mongod's expression.cpp (union and intersection are
// built in an ordered ValueSet, so they come out in BSON order; $setDifference keeps the
// first array's order; $setEquals/$setIsSubset refuse non-arrays, null included).

import { dbl, dec, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const cpp = 'expression.cpp (ordered ValueSet)';
const manual = (op: string): string => `MongoDB manual, ${op}`;

export const sets: Family = {
  values: [
    {
      name: '$setUnion',
      expr: {
        $setUnion: [
          ['a', 'b'],
          ['b', 'c'],
        ],
      },
      expected: ['a', 'b', 'c'],
      source: cpp,
    },
    {
      name: '$setUnion nested array is an element',
      expr: { $setUnion: [['a', 'b'], [['a', 'b']]] },
      expected: ['a', 'b', ['a', 'b']],
      source: manual('$setUnion'),
    },
    {
      name: '$setUnion numbers of different types are one element',
      expr: { $setUnion: [[int(1)], [long(1), dbl(2)]] },
      expected: [int(1), dbl(2)],
      source: cpp,
    },
    { name: '$setUnion empty', expr: { $setUnion: [] }, expected: [], source: cpp },
    {
      name: '$setUnion missing',
      expr: { $setUnion: [[int(1)], '$nope'] },
      expected: null,
      source: manual('$setUnion'),
    },
    {
      name: '$setUnion single field',
      expr: { $setUnion: '$a' },
      doc: { a: [int(2), int(1), int(2)] },
      expected: [int(1), int(2)],
      source: cpp,
    },
    {
      name: '$setIntersection',
      expr: {
        $setIntersection: [
          ['a', 'b', 'a'],
          ['b', 'a'],
        ],
      },
      expected: ['a', 'b'],
      source: manual('$setIntersection'),
    },
    {
      name: '$setIntersection disjoint',
      expr: { $setIntersection: [['a'], ['b']] },
      expected: [],
      source: manual('$setIntersection'),
    },
    { name: '$setIntersection empty', expr: { $setIntersection: [] }, expected: [], source: cpp },
    {
      name: '$setIntersection null',
      expr: { $setIntersection: [['a'], null] },
      expected: null,
      source: manual('$setIntersection'),
    },
    {
      name: '$setIntersection with empty array',
      expr: { $setIntersection: [['a'], []] },
      expected: [],
      source: manual('$setIntersection'),
    },
    {
      name: '$setDifference keeps first order',
      expr: { $setDifference: [['c', 'a', 'b', 'a'], ['b']] },
      expected: ['c', 'a'],
      source: cpp,
    },
    {
      name: '$setDifference decimal equals int',
      expr: { $setDifference: [[dec('1'), int(2)], [int(1)]] },
      expected: [int(2)],
      source: cpp,
    },
    {
      name: '$setDifference all removed',
      expr: { $setDifference: [['a'], ['a', 'b']] },
      expected: [],
      source: manual('$setDifference'),
    },
    {
      name: '$setDifference null',
      expr: { $setDifference: [null, ['a']] },
      expected: null,
      source: manual('$setDifference'),
    },
    {
      name: '$setDifference missing second',
      expr: { $setDifference: [['a'], '$nope'] },
      expected: null,
      source: manual('$setDifference'),
    },
    {
      name: '$setEquals false',
      expr: { $setEquals: [['a', 'b'], ['a']] },
      expected: false,
      source: manual('$setEquals'),
    },
    {
      name: '$setEquals three',
      expr: { $setEquals: [['a'], ['a', 'a'], ['a']] },
      expected: true,
      source: manual('$setEquals'),
    },
    {
      name: '$setEquals empty sets',
      expr: { $setEquals: [[], []] },
      expected: true,
      source: manual('$setEquals'),
    },
    {
      name: '$setEquals numeric types',
      expr: { $setEquals: [[int(1)], [dbl(1)]] },
      expected: true,
      source: cpp,
    },
    {
      name: '$setIsSubset empty in anything',
      expr: { $setIsSubset: [[], ['a']] },
      expected: true,
      source: manual('$setIsSubset'),
    },
    {
      name: '$setIsSubset false',
      expr: {
        $setIsSubset: [
          ['a', 'c'],
          ['a', 'b'],
        ],
      },
      expected: false,
      source: manual('$setIsSubset'),
    },
    {
      name: '$setIsSubset nested array',
      expr: { $setIsSubset: [[['a']], ['a']] },
      expected: false,
      source: manual('$setIsSubset'),
    },
    {
      name: '$anyElementTrue nested arrays are true',
      expr: { $anyElementTrue: [[[false]]] },
      expected: true,
      source: manual('$anyElementTrue'),
    },
    {
      name: '$anyElementTrue null and 0',
      expr: { $anyElementTrue: [[null, int(0), false]] },
      expected: false,
      source: manual('$anyElementTrue'),
    },
    {
      name: '$allElementsTrue',
      expr: { $allElementsTrue: [[true, int(1), 'x']] },
      expected: true,
      source: manual('$allElementsTrue'),
    },
    {
      name: '$allElementsTrue null',
      expr: { $allElementsTrue: [[true, null]] },
      expected: false,
      source: manual('$allElementsTrue'),
    },
    {
      name: '$allElementsTrue field',
      expr: { $allElementsTrue: '$a' },
      doc: { a: [[], {}] },
      expected: true,
      source: manual('$allElementsTrue'),
    },
  ],
  errors: [
    {
      name: '$setIntersection non-array',
      expr: { $setIntersection: [['a'], 'a'] },
      code: 17047,
      source: cpp,
    },
    {
      name: '$setDifference second non-array',
      expr: { $setDifference: [['a'], int(1)] },
      code: 17049,
      source: cpp,
    },
    {
      name: '$setDifference arity',
      expr: { $setDifference: [['a']] },
      code: 16020,
      source: 'ExpressionFixedArity',
    },
    { name: '$setEquals null', expr: { $setEquals: [['a'], null] }, code: 17044, source: cpp },
    {
      name: '$setEquals missing',
      expr: { $setEquals: ['$nope', ['a']] },
      code: 17044,
      source: cpp,
    },
    {
      name: '$setIsSubset null first',
      expr: { $setIsSubset: [null, ['a']] },
      code: 17046,
      source: cpp,
    },
    {
      name: '$setIsSubset arity',
      expr: { $setIsSubset: [['a']] },
      code: 16020,
      source: 'ExpressionFixedArity',
    },
    { name: '$anyElementTrue null', expr: { $anyElementTrue: [null] }, code: 17041, source: cpp },
    {
      name: '$anyElementTrue missing',
      expr: { $anyElementTrue: '$nope' },
      code: 17041,
      source: cpp,
    },
    {
      name: '$allElementsTrue two arguments',
      expr: { $allElementsTrue: [[], []] },
      code: 16020,
      source: 'ExpressionFixedArity',
    },
  ],
};
