// Conditional operators: $cond $ifNull $switch. Sources: the manual pages (examples; $ifNull
// since 5.0 takes several inputs and returns the first that is not null or missing, else the
// replacement, "even if it is null"; $switch without a matching branch and without default is
// an error) and expression.cpp (conditions are coerced with coerceToBool: null, missing, 0 and
// false are false, everything else — arrays, documents, empty strings — is true; the last
// $ifNull operand is returned as evaluated, so a missing replacement leaves the field out).

import { MISSING, dbl, dec, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const manual = (op: string): string => `MongoDB manual, ${op}`;
const cpp = 'expression.cpp (coerceToBool)';

export const conditional: Family = {
  values: [
    {
      name: '$cond missing condition is false',
      expr: { $cond: ['$nope', 'y', 'n'] },
      expected: 'n',
      source: cpp,
    },
    {
      name: '$cond empty array is true',
      expr: { $cond: ['$a', 'y', 'n'] },
      doc: { a: [] },
      expected: 'y',
      source: cpp,
    },
    {
      name: '$cond empty string is true',
      expr: { $cond: { if: '', then: 'y', else: 'n' } },
      expected: 'y',
      source: cpp,
    },
    {
      name: '$cond zero long is false',
      expr: { $cond: [long(0), 'y', 'n'] },
      expected: 'n',
      source: cpp,
    },
    {
      name: '$cond zero decimal is false',
      expr: { $cond: [dec('0.0'), 'y', 'n'] },
      expected: 'n',
      source: cpp,
    },
    {
      name: '$cond keeps branch type',
      expr: { $cond: [{ $gt: ['$q', int(100)] }, dbl(1.5), long(2)] },
      doc: { q: int(101) },
      expected: dbl(1.5),
      source: manual('$cond'),
    },
    {
      name: '$cond else branch from field',
      expr: { $cond: { if: { $gte: ['$qty', int(250)] }, then: int(30), else: '$alt' } },
      doc: { qty: int(100), alt: int(20) },
      expected: int(20),
      source: manual('$cond'),
    },
    {
      name: '$cond branch missing',
      expr: { $cond: [true, '$nope', int(1)] },
      expected: MISSING,
      source: cpp,
    },
    {
      name: '$ifNull null field',
      expr: { $ifNull: ['$d', 'Unspecified'] },
      doc: { d: null },
      expected: 'Unspecified',
      source: manual('$ifNull'),
    },
    {
      name: '$ifNull present',
      expr: { $ifNull: ['$d', 'Unspecified'] },
      doc: { d: 'product 1' },
      expected: 'product 1',
      source: manual('$ifNull'),
    },
    {
      name: '$ifNull false is not null',
      expr: { $ifNull: [false, int(1)] },
      expected: false,
      source: manual('$ifNull'),
    },
    {
      name: '$ifNull several inputs',
      expr: { $ifNull: ['$a', '$b', '$c', 'none'] },
      doc: { a: null, c: int(3) },
      expected: int(3),
      source: manual('$ifNull'),
    },
    {
      name: '$ifNull replacement missing stays missing',
      expr: { $ifNull: ['$nope', '$nope2'] },
      expected: MISSING,
      source: cpp,
    },
    {
      name: '$ifNull empty array is a value',
      expr: { $ifNull: [[], int(1)] },
      expected: [],
      source: manual('$ifNull'),
    },
    {
      name: '$switch first true branch',
      expr: {
        $switch: {
          branches: [
            { case: true, then: 'a' },
            { case: true, then: 'b' },
          ],
        },
      },
      expected: 'a',
      source: manual('$switch'),
    },
    {
      name: '$switch non-boolean case',
      expr: { $switch: { branches: [{ case: '$a', then: 'a' }], default: 'd' } },
      doc: { a: int(5) },
      expected: 'a',
      source: cpp,
    },
    {
      name: '$switch missing case is false',
      expr: { $switch: { branches: [{ case: '$nope', then: 'a' }], default: 'd' } },
      expected: 'd',
      source: cpp,
    },
    {
      name: '$switch then from field',
      expr: {
        $switch: { branches: [{ case: { $eq: ['$a', int(1)] }, then: '$b' }], default: null },
      },
      doc: { a: int(1), b: long(7) },
      expected: long(7),
      source: manual('$switch'),
    },
    {
      name: '$switch default null',
      expr: {
        $switch: { branches: [{ case: { $eq: ['$a', int(2)] }, then: 'x' }], default: null },
      },
      doc: { a: int(1) },
      expected: null,
      source: manual('$switch'),
    },
    {
      name: '$switch grades',
      expr: {
        $switch: {
          branches: [
            { case: { $gte: [{ $avg: '$scores' }, int(90)] }, then: 'Doing great!' },
            {
              case: {
                $and: [
                  { $gte: [{ $avg: '$scores' }, int(80)] },
                  { $lt: [{ $avg: '$scores' }, int(90)] },
                ],
              },
              then: 'Doing pretty well.',
            },
            { case: { $lt: [{ $avg: '$scores' }, int(80)] }, then: 'Needs improvement.' },
          ],
          default: 'No scores found.',
        },
      },
      doc: { scores: [int(87), int(86), int(78)] },
      expected: 'Doing pretty well.',
      source: manual('$switch'),
    },
    {
      name: '$switch no scores → default',
      expr: {
        $switch: {
          branches: [{ case: { $gte: [{ $avg: '$scores' }, int(90)] }, then: 'Doing great!' }],
          default: 'No scores found.',
        },
      },
      doc: { scores: [] },
      expected: 'No scores found.',
      source: manual('$switch'),
    },
  ],
  errors: [
    {
      name: '$cond missing if',
      expr: { $cond: { then: int(1), else: int(2) } },
      code: 17080,
      source: 'expression.cpp',
    },
    {
      name: '$cond missing then',
      expr: { $cond: { if: true, else: int(2) } },
      code: 17081,
      source: 'expression.cpp',
    },
    {
      name: '$cond four operands',
      expr: { $cond: [true, int(1), int(2), int(3)] },
      code: 16020,
      source: 'expression.h',
    },
    {
      name: '$ifNull no arguments',
      expr: { $ifNull: [] },
      code: 1257300,
      source: 'expression.cpp',
    },
    { name: '$switch not an object', expr: { $switch: [] }, code: 40060, source: 'expression.cpp' },
    {
      name: '$switch branches not an array',
      expr: { $switch: { branches: {} } },
      code: 40061,
      source: 'expression.cpp',
    },
    {
      name: '$switch branch not an object',
      expr: { $switch: { branches: [int(1)] } },
      code: 40062,
      source: 'expression.cpp',
    },
    {
      name: '$switch unknown branch argument',
      expr: { $switch: { branches: [{ case: true, then: int(1), x: int(1) }] } },
      code: 40063,
      source: 'expression.cpp',
    },
    {
      name: '$switch branch without then',
      expr: { $switch: { branches: [{ case: true }] } },
      code: 40065,
      source: 'expression.cpp',
    },
    {
      name: '$switch unknown argument',
      expr: { $switch: { branches: [{ case: true, then: int(1) }], x: int(1) } },
      code: 40067,
      source: 'expression.cpp',
    },
    {
      name: '$switch constant false cases and no default',
      expr: { $switch: { branches: [{ case: false, then: int(1) }] } },
      code: 40069,
      source: 'ExpressionSwitch::optimize',
    },
    {
      name: '$switch no match at run time',
      expr: { $switch: { branches: [{ case: { $eq: ['$a', int(2)] }, then: int(1) }] } },
      doc: { a: int(1) },
      code: 40066,
      source: 'expression.cpp',
    },
  ],
};
