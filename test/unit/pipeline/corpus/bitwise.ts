// Bitwise operators (6.3+). Sources: the manual pages of $bitAnd $bitOr $bitXor $bitNot (int
// operands give an int, any long operand makes the result a sign-extended long, an empty array
// gives Int32(-1) for $bitAnd, a null operand gives null, doubles/decimals/strings are an
// error) and jstests/aggregation/expressions/bitwise.js (TypeMismatch for non-integers and for
// an array operand, 16020 for $bitNot with two arguments).

import { Timestamp } from 'bson';
import { dbl, dec, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const jstest = 'jstests/aggregation/expressions/bitwise.js';
const manual = (op: string): string => `MongoDB manual, ${op} (aggregation)`;
const switches = { a: int(3), b: int(5) };

export const bitwise: Family = {
  values: [
    {
      name: '$bitAnd fields',
      expr: { $bitAnd: ['$a', '$b'] },
      doc: switches,
      expected: int(1),
      source: manual('$bitAnd'),
    },
    {
      name: '$bitAnd 0 and 127',
      expr: { $bitAnd: [int(0), int(127)] },
      expected: int(0),
      source: jstest,
    },
    {
      name: '$bitAnd int and long → long',
      expr: { $bitAnd: ['$a', long(63)] },
      doc: switches,
      expected: long(3),
      source: manual('$bitAnd'),
    },
    {
      name: '$bitAnd negative int sign-extends into a long',
      expr: { $bitAnd: [int(-1), long(0x100000000)] },
      expected: long(0x100000000),
      source: manual('$bitAnd'),
    },
    {
      name: '$bitAnd empty array',
      expr: { $bitAnd: [] },
      expected: int(-1),
      source: manual('$bitAnd'),
    },
    {
      name: '$bitAnd three operands',
      expr: { $bitAnd: [int(7), int(6), int(3)] },
      expected: int(2),
      source: manual('$bitAnd'),
    },
    {
      name: '$bitAnd null',
      expr: { $bitAnd: [int(1), null] },
      expected: null,
      source: manual('$bitAnd'),
    },
    {
      name: '$bitAnd missing',
      expr: { $bitAnd: ['$nope', int(1)] },
      expected: null,
      source: manual('$bitAnd'),
    },
    {
      name: '$bitAnd single operand',
      expr: { $bitAnd: int(5) },
      expected: int(5),
      source: manual('$bitAnd'),
    },
    {
      name: '$bitOr',
      expr: { $bitOr: ['$a', '$b'] },
      doc: switches,
      expected: int(7),
      source: manual('$bitOr'),
    },
    {
      name: '$bitOr with long',
      expr: { $bitOr: ['$a', long(8)] },
      doc: switches,
      expected: long(11),
      source: manual('$bitOr'),
    },
    {
      name: '$bitOr 0 and 127',
      expr: { $bitOr: [int(0), int(127)] },
      expected: int(127),
      source: jstest,
    },
    {
      name: '$bitOr empty array',
      expr: { $bitOr: [] },
      expected: int(0),
      source: manual('$bitOr'),
    },
    {
      name: '$bitOr null',
      expr: { $bitOr: [null, int(1)] },
      expected: null,
      source: manual('$bitOr'),
    },
    {
      name: '$bitXor',
      expr: { $bitXor: ['$a', '$b'] },
      doc: switches,
      expected: int(6),
      source: manual('$bitXor'),
    },
    {
      name: '$bitXor 2 and 3',
      expr: { $bitXor: [int(2), int(3)] },
      expected: int(1),
      source: jstest,
    },
    {
      name: '$bitXor longs',
      expr: { $bitXor: [long(12), long(10)] },
      expected: long(6),
      source: manual('$bitXor'),
    },
    {
      name: '$bitXor empty array',
      expr: { $bitXor: [] },
      expected: int(0),
      source: manual('$bitXor'),
    },
    {
      name: '$bitXor missing',
      expr: { $bitXor: [int(1), '$nope'] },
      expected: null,
      source: manual('$bitXor'),
    },
    { name: '$bitNot 0', expr: { $bitNot: int(0) }, expected: int(-1), source: jstest },
    {
      name: '$bitNot field',
      expr: { $bitNot: '$a' },
      doc: switches,
      expected: int(-4),
      source: manual('$bitNot'),
    },
    {
      name: '$bitNot long',
      expr: { $bitNot: long(0) },
      expected: long(-1),
      source: manual('$bitNot'),
    },
    {
      name: '$bitNot array of one',
      expr: { $bitNot: [int(2)] },
      expected: int(-3),
      source: manual('$bitNot'),
    },
    { name: '$bitNot null', expr: { $bitNot: null }, expected: null, source: manual('$bitNot') },
    {
      name: '$bitNot missing',
      expr: { $bitNot: '$nope' },
      expected: null,
      source: manual('$bitNot'),
    },
  ],
  errors: [
    { name: '$bitAnd double', expr: { $bitAnd: [int(1), dbl(12)] }, code: 14, source: jstest },
    { name: '$bitOr decimal', expr: { $bitOr: [int(1), dec('12')] }, code: 14, source: jstest },
    {
      name: '$bitXor array operand',
      expr: { $bitXor: ['$c'] },
      doc: { c: [int(1), int(2)] },
      code: 14,
      source: jstest,
    },
    {
      name: '$bitAnd single array-valued field',
      expr: { $bitAnd: '$c' },
      doc: { c: [int(1), int(2)] },
      code: 14,
      source: jstest,
    },
    { name: '$bitOr string', expr: { $bitOr: ['a'] }, code: 14, source: manual('$bitOr') },
    {
      name: '$bitAnd timestamp',
      expr: { $bitAnd: [new Timestamp({ t: 1, i: 1 })] },
      code: 14,
      source: manual('$bitAnd'),
    },
    { name: '$bitNot double', expr: { $bitNot: dbl(12.5) }, code: 14, source: jstest },
    {
      name: '$bitNot two arguments',
      expr: { $bitNot: ['$a', '$b'] },
      doc: switches,
      code: 16020,
      source: jstest,
    },
  ],
};
