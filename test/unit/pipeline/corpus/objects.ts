// Object operators: $getField $setField $unsetField $mergeObjects $objectToArray
// $arrayToObject. Sources: jstests/aggregation/expressions/expression_get_field.js and
// expression_set_field.js (codes and results, field names with dots and dollars taken
// literally, 'field' must be a string constant at parse time: a literal or $const/$literal,
// anything else — even an expression that folds to a string — is 5654601/4161106), the manual
// pages of $mergeObjects (null operands ignored, later fields win, {} when all are null) and
// $objectToArray/$arrayToObject (examples), and expression.cpp.

import { MISSING, dbl, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const getJs = 'jstests/aggregation/expressions/expression_get_field.js';
const setJs = 'jstests/aggregation/expressions/expression_set_field.js';
const manual = (op: string): string => `MongoDB manual, ${op}`;
const fields = {
  x: int(1),
  a$b: 'foo',
  'a.b': 'bar',
  $a: int(10),
  c: { d: 'x' },
  e: { $f: int(30) },
  v: null,
};

export const objects: Family = {
  values: [
    {
      name: '$getField from input',
      expr: { $getField: { field: 'a', input: { a: 'b' } } },
      expected: 'b',
      source: getJs,
    },
    {
      name: '$getField shorthand absent field is missing',
      expr: { $getField: 'a' },
      doc: fields,
      expected: MISSING,
      source: getJs,
    },
    {
      name: '$getField shorthand with $',
      expr: { $getField: 'a$b' },
      doc: fields,
      expected: 'foo',
      source: getJs,
    },
    {
      name: '$getField dotted name is one field',
      expr: { $getField: 'a.b' },
      doc: fields,
      expected: 'bar',
      source: getJs,
    },
    {
      name: '$getField $const $-prefixed',
      expr: { $getField: { $const: '$a' } },
      doc: fields,
      expected: int(10),
      source: getJs,
    },
    {
      name: '$getField $literal field',
      expr: { $getField: { field: { $literal: '$f' }, input: '$e' } },
      doc: fields,
      expected: int(30),
      source: getJs,
    },
    {
      name: '$getField nested input',
      expr: { $getField: { field: 'd', input: { $getField: 'c' } } },
      doc: fields,
      expected: 'x',
      source: getJs,
    },
    {
      name: '$getField does not traverse',
      expr: { $getField: { field: 'a.b.c', input: { a: { b: { c: int(5) } } } } },
      expected: MISSING,
      source: getJs,
    },
    {
      name: '$getField null input',
      expr: { $getField: { field: 'a', input: null } },
      expected: null,
      source: getJs,
    },
    {
      name: '$getField null value',
      expr: { $getField: { field: 'a', input: { a: null, b: int(2) } } },
      expected: null,
      source: getJs,
    },
    {
      name: '$getField non-object input is missing',
      expr: { $getField: { field: 'a', input: true } },
      expected: MISSING,
      source: getJs,
    },
    {
      name: '$getField missing input is missing',
      expr: { $getField: { field: 'x', input: { $getField: 'doesNotExist' } } },
      doc: fields,
      expected: MISSING,
      source: getJs,
    },
    {
      name: '$getField of an array element',
      expr: {
        $getField: {
          field: { $const: 'a$b' },
          input: {
            $arrayElemAt: [[{ $const: { a$b: int(1) } }, { $const: { a$b: int(2) } }], int(0)],
          },
        },
      },
      expected: int(1),
      source: getJs,
    },
    {
      name: '$setField replaces in place',
      expr: { $setField: { field: 'a', input: { a: 'b', c: int(1) }, value: int(24) } },
      expected: { a: int(24), c: int(1) },
      source: setJs,
    },
    {
      name: '$setField appends',
      expr: { $setField: { field: 'a', input: { b: 'b' }, value: int(24) } },
      expected: { b: 'b', a: int(24) },
      source: setJs,
    },
    {
      name: '$setField $$REMOVE removes',
      expr: { $setField: { field: 'a', input: { a: 'b', b: int(1) }, value: '$$REMOVE' } },
      expected: { b: int(1) },
      source: setJs,
    },
    {
      name: '$setField dotted name literal',
      expr: {
        $setField: { field: 'a.b.c', input: { a: { b: { c: int(5) } } }, value: int(12345) },
      },
      expected: { a: { b: { c: int(5) } }, 'a.b.c': int(12345) },
      source: setJs,
    },
    {
      name: '$setField $-prefixed via $const',
      expr: {
        $setField: {
          field: { $const: '$b' },
          input: { $const: { $b: int(5) } },
          value: int(12345),
        },
      },
      expected: { $b: int(12345) },
      source: setJs,
    },
    {
      name: '$setField value from the document',
      expr: { $setField: { field: 'n', input: {}, value: '$x' } },
      doc: fields,
      expected: { n: int(1) },
      source: setJs,
    },
    {
      name: '$setField missing value field removes',
      expr: { $setField: { field: 'a', input: { a: int(1) }, value: '$nope' } },
      expected: {},
      source: 'expression.cpp ExpressionSetField: a missing value removes the field',
    },
    {
      name: '$setField null input',
      expr: { $setField: { field: 'a', input: null, value: int(0) } },
      expected: null,
      source: setJs,
    },
    {
      name: '$setField missing input',
      expr: { $setField: { field: 'a', input: '$nope', value: int(0) } },
      expected: null,
      source: setJs,
    },
    {
      name: '$unsetField',
      expr: { $unsetField: { field: 'a', input: { a: 'b', b: 'c' } } },
      expected: { b: 'c' },
      source: setJs,
    },
    {
      name: '$unsetField absent field',
      expr: { $unsetField: { field: 'a', input: { b: 'b' } } },
      expected: { b: 'b' },
      source: setJs,
    },
    {
      name: '$unsetField $-prefixed',
      expr: { $unsetField: { field: { $literal: '$a' }, input: '$$ROOT' } },
      doc: { $a: int(1), b: int(2) },
      expected: { b: int(2) },
      source: setJs,
    },
    {
      name: '$unsetField null input',
      expr: { $unsetField: { field: 'a', input: null } },
      expected: null,
      source: setJs,
    },
    {
      name: '$mergeObjects later wins',
      expr: {
        $mergeObjects: [
          { a: int(1), b: int(1) },
          { b: int(2), c: int(3) },
        ],
      },
      expected: { a: int(1), b: int(2), c: int(3) },
      source: manual('$mergeObjects'),
    },
    {
      name: '$mergeObjects all null',
      expr: { $mergeObjects: [null, '$nope'] },
      expected: {},
      source: manual('$mergeObjects'),
    },
    {
      name: '$mergeObjects single document',
      expr: { $mergeObjects: '$c' },
      doc: fields,
      expected: { d: 'x' },
      source: manual('$mergeObjects'),
    },
    {
      name: '$mergeObjects array field merges its documents',
      expr: { $mergeObjects: '$a' },
      doc: { a: [{ x: int(1) }, { y: int(2) }, { x: int(3) }] },
      expected: { x: int(3), y: int(2) },
      source: 'ExpressionFromAccumulator: a single array operand is processed element by element',
    },
    {
      name: '$mergeObjects missing single operand',
      expr: { $mergeObjects: '$nope' },
      expected: {},
      source: manual('$mergeObjects'),
    },
    {
      name: '$mergeObjects sub-documents replaced whole',
      expr: { $mergeObjects: [{ a: { x: int(1) } }, { a: { y: int(2) } }] },
      expected: { a: { y: int(2) } },
      source: manual('$mergeObjects'),
    },
    {
      name: '$objectToArray nested stays',
      expr: { $objectToArray: '$c' },
      doc: { c: { d: { e: int(1) }, f: [int(1)] } },
      expected: [
        { k: 'd', v: { e: int(1) } },
        { k: 'f', v: [int(1)] },
      ],
      source: manual('$objectToArray'),
    },
    {
      name: '$objectToArray empty',
      expr: { $objectToArray: { $literal: {} } },
      expected: [],
      source: manual('$objectToArray'),
    },
    {
      name: '$objectToArray missing',
      expr: { $objectToArray: '$nope' },
      expected: null,
      source: manual('$objectToArray'),
    },
    {
      name: '$arrayToObject empty',
      expr: { $arrayToObject: [[]] },
      expected: {},
      source: manual('$arrayToObject'),
    },
    {
      name: '$arrayToObject missing',
      expr: { $arrayToObject: '$nope' },
      expected: null,
      source: manual('$arrayToObject'),
    },
    {
      name: '$arrayToObject values keep types',
      expr: {
        $arrayToObject: [
          [
            ['a', long(1)],
            ['b', dbl(2)],
          ],
        ],
      },
      expected: { a: long(1), b: dbl(2) },
      source: manual('$arrayToObject'),
    },
    {
      name: '$arrayToObject round trip',
      expr: { $arrayToObject: { $objectToArray: '$c' } },
      doc: fields,
      expected: { d: 'x' },
      source: manual('$objectToArray'),
    },
  ],
  errors: [
    {
      name: '$getField without field',
      expr: { $getField: { input: { a: 'b' } } },
      code: 3041702,
      source: getJs,
    },
    {
      name: '$getField object form without input',
      expr: { $getField: { field: 'a' } },
      code: 3041703,
      source: getJs,
    },
    {
      name: '$getField bool field',
      expr: { $getField: { field: true, input: { a: 'b' } } },
      code: 5654602,
      source: getJs,
    },
    {
      name: '$getField object field',
      expr: { $getField: { field: { a: int(1) }, input: { a: int(1) } } },
      code: 5654601,
      source: getJs,
    },
    { name: '$getField number', expr: { $getField: int(5) }, code: 5654602, source: getJs },
    {
      name: '$getField null field',
      expr: { $getField: { field: null, input: { a: int(1) } } },
      code: 5654602,
      source: getJs,
    },
    {
      name: '$getField unknown argument',
      expr: { $getField: { field: 'a', input: { a: 'b' }, unknown: true } },
      code: 3041701,
      source: getJs,
    },
    {
      name: '$getField field path',
      expr: { $getField: { field: '$a.b', input: { a: 'b' } } },
      code: 5654600,
      source: getJs,
    },
    {
      name: '$getField variable',
      expr: { $getField: { field: '$$CURRENT.a', input: { a: 'b' } } },
      code: 5654600,
      source: getJs,
    },
    {
      name: '$getField operator folding to a number',
      expr: { $getField: { $add: [int(2), int(3)] } },
      code: 5654601,
      source: getJs,
    },
    {
      name: '$getField operator folding to a string',
      expr: { $getField: { field: { $concat: ['a', 'b'] }, input: { a: int(1) } } },
      code: 5654601,
      source: getJs,
    },
    {
      name: '$getField $cond',
      expr: { $getField: { field: { $cond: [false, null, 'x'] }, input: { a: int(1) } } },
      code: 5654601,
      source: getJs,
    },
    {
      name: '$getField $const bool',
      expr: { $getField: { $const: true } },
      code: 5654602,
      source: getJs,
    },
    {
      name: '$getField $const array',
      expr: { $getField: { field: { $const: [] }, input: { a: int(1) } } },
      code: 5654602,
      source: getJs,
    },
    {
      name: '$setField without field',
      expr: { $setField: { input: { a: 'b' } } },
      code: 4161102,
      source: setJs,
    },
    {
      name: '$setField without value',
      expr: { $setField: { field: 'a', input: { a: 'b' } } },
      code: 4161103,
      source: setJs,
    },
    {
      name: '$setField without input',
      expr: { $setField: { field: null, value: int(0) } },
      code: 4161109,
      source: setJs,
    },
    {
      name: '$setField bool field',
      expr: { $setField: { field: true, input: { a: 'b' }, value: int(24) } },
      code: 4161107,
      source: setJs,
    },
    {
      name: '$setField object field',
      expr: { $setField: { field: { a: int(1) }, input: { a: int(1) }, value: int(24) } },
      code: 4161106,
      source: setJs,
    },
    {
      name: '$setField non-object input',
      expr: { $setField: { field: 'a', input: true, value: int(24) } },
      code: 4161105,
      source: setJs,
    },
    {
      name: '$setField field path',
      expr: { $setField: { field: '$field_path', input: {}, value: int(0) } },
      code: 4161108,
      source: setJs,
    },
    {
      name: '$setField $concat field',
      expr: {
        $setField: {
          field: { $concat: ['a.b', '.', 'c'] },
          input: { $const: { 'a.b.c': int(5) } },
          value: int(1),
        },
      },
      code: 4161106,
      source: setJs,
    },
    { name: '$setField not an object', expr: { $setField: int(5) }, code: 4161100, source: setJs },
    {
      name: '$setField operator as argument',
      expr: { $setField: { $add: [int(2), int(3)] } },
      code: 4161101,
      source: setJs,
    },
    {
      name: '$setField unknown argument',
      expr: { $setField: { field: 'a', input: { a: 'b' }, value: int(24), unknown: true } },
      code: 4161101,
      source: setJs,
    },
    {
      name: '$unsetField with value',
      expr: { $unsetField: { field: 'a', value: 'foo' } },
      code: 4161101,
      source: setJs,
    },
    {
      name: '$unsetField without input',
      expr: { $unsetField: { field: 'foo' } },
      code: 4161109,
      source: setJs,
    },
    {
      name: '$unsetField number field',
      expr: { $unsetField: { field: int(33), input: int(33) } },
      code: 4161107,
      source: setJs,
    },
    {
      name: '$unsetField non-object input',
      expr: { $unsetField: { field: 'a', input: true } },
      code: 4161105,
      source: setJs,
    },
    {
      name: '$unsetField not an object',
      expr: { $unsetField: 'foo' },
      code: 4161100,
      source: setJs,
    },
    {
      name: '$mergeObjects array element not a document',
      expr: { $mergeObjects: '$a' },
      doc: { a: [{ x: int(1) }, int(2)] },
      code: 40400,
      source: 'accumulator_merge_objects.cpp',
    },
    {
      name: '$objectToArray array',
      expr: { $objectToArray: [[int(1)]] },
      code: 40390,
      source: manual('$objectToArray'),
    },
    {
      name: '$arrayToObject pair of three',
      expr: { $arrayToObject: [[['a', int(1), int(2)]]] },
      code: 40397,
      source: 'expression.cpp',
    },
    {
      name: '$arrayToObject mixed formats',
      expr: { $arrayToObject: [[['a', int(1)], { k: 'b', v: int(2) }]] },
      code: 40396,
      source: 'expression.cpp',
    },
    {
      name: '$arrayToObject k/v with three keys',
      expr: { $arrayToObject: [[{ k: 'a', v: int(1), x: int(2) }]] },
      code: 40392,
      source: 'expression.cpp',
    },
    {
      name: '$arrayToObject k/v wrong keys',
      expr: { $arrayToObject: [[{ k: 'a', x: int(1) }]] },
      code: 40393,
      source: 'expression.cpp',
    },
    {
      name: '$arrayToObject k not a string',
      expr: { $arrayToObject: [[{ k: int(1), v: int(1) }]] },
      code: 40394,
      source: 'expression.cpp',
    },
    {
      name: '$arrayToObject not an array',
      expr: { $arrayToObject: 'a' },
      code: 40386,
      source: 'expression.cpp',
    },
  ],
};
