// Variables and literals: $let, $literal/$const, $$ROOT $$CURRENT $$REMOVE $$NOW
// $$CLUSTER_TIME. Sources: the manual pages of $let and $literal and "Variables in
// Aggregation Expressions" ($$NOW is one instant for the whole command; $$CLUSTER_TIME is a
// timestamp on replica sets; $$REMOVE is missing; CURRENT may be rebound, ROOT may not), and
// variable_validation.cpp / ExpressionLet::parse for the codes.

import { Timestamp } from 'bson';
import { MISSING, date, dbl, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const manual = (op: string): string => `MongoDB manual, ${op}`;
const vars = 'MongoDB manual, Variables in Aggregation Expressions';
const validation = 'variable_validation.cpp';

export const variables: Family = {
  values: [
    {
      name: '$let two variables',
      expr: {
        $let: {
          vars: {
            total: { $add: ['$price', '$tax'] },
            discounted: { $cond: { if: '$applyDiscount', then: dbl(0.9), else: int(1) } },
          },
          in: { $multiply: ['$$total', '$$discounted'] },
        },
      },
      doc: { price: int(10), tax: dbl(0.5), applyDiscount: true },
      expected: dbl(9.450000000000001),
      source: manual('$let'),
    },
    {
      name: '$let empty vars',
      expr: { $let: { vars: {}, in: int(1) } },
      expected: int(1),
      source: 'ExpressionLet::parse',
    },
    {
      name: '$let variable holding missing',
      expr: { $let: { vars: { x: '$nope' }, in: '$$x' } },
      expected: MISSING,
      source: 'ExpressionLet: a variable bound to missing reads as missing',
    },
    {
      name: '$let field path into a variable',
      expr: { $let: { vars: { o: { a: { b: int(5) } } }, in: '$$o.a.b' } },
      expected: int(5),
      source: manual('$let'),
    },
    {
      name: '$let variable in $map',
      expr: {
        $let: {
          vars: { k: int(10) },
          in: { $map: { input: [int(1), int(2)], in: { $multiply: ['$$this', '$$k'] } } },
        },
      },
      expected: [int(10), int(20)],
      source: manual('$let'),
    },
    {
      name: '$let non-ASCII name',
      expr: { $let: { vars: { é: int(1) }, in: '$$é' } },
      expected: int(1),
      source: validation,
    },
    {
      name: '$let name with digits and underscore',
      expr: { $let: { vars: { a_1: int(2) }, in: '$$a_1' } },
      expected: int(2),
      source: validation,
    },
    {
      name: '$literal $-string',
      expr: { $literal: '$1' },
      expected: '$1',
      source: manual('$literal'),
    },
    {
      name: '$literal number keeps type',
      expr: { $literal: long(5) },
      expected: long(5),
      source: manual('$literal'),
    },
    {
      name: '$literal array of field-path-like strings',
      expr: { $literal: ['$a', '$b'] },
      expected: ['$a', '$b'],
      source: manual('$literal'),
    },
    {
      name: '$literal in $add',
      expr: { $add: [{ $literal: int(1) }, int(2)] },
      expected: int(3),
      source: manual('$literal'),
    },
    {
      name: '$literal comparing to a $-string',
      expr: { $eq: ['$price', { $literal: '$1' }] },
      doc: { price: '$1' },
      expected: true,
      source: manual('$literal'),
    },
    {
      name: '$const',
      expr: { $const: 'x' },
      expected: 'x',
      source: 'expression.cpp ExpressionConstant (alias of $literal)',
    },
    {
      name: '$const document',
      expr: { $const: { $x: int(1) } },
      expected: { $x: int(1) },
      source: 'expression.cpp ExpressionConstant',
    },
    {
      name: '$$ROOT whole document',
      expr: '$$ROOT',
      doc: { a: int(1), b: { c: int(2) } },
      expected: { a: int(1), b: { c: int(2) } },
      source: vars,
    },
    {
      name: '$$CURRENT.b.c',
      expr: '$$CURRENT.b.c',
      doc: { b: { c: int(2) } },
      expected: int(2),
      source: vars,
    },
    {
      name: '$$ROOT unchanged inside $map',
      expr: { $map: { input: [int(1)], in: '$$ROOT.a' } },
      doc: { a: 'x' },
      expected: ['x'],
      source: vars,
    },
    { name: '$$REMOVE alone is missing', expr: '$$REMOVE', expected: MISSING, source: vars },
    {
      name: '$$REMOVE through $cond',
      expr: { $cond: [{ $eq: ['$a', int(1)] }, '$$REMOVE', '$a'] },
      doc: { a: int(1) },
      expected: MISSING,
      source: vars,
    },
    {
      name: '$$REMOVE in an array is null',
      expr: ['$$REMOVE'],
      expected: [null],
      source: 'ExpressionArray::evaluate',
    },
    { name: '$$NOW is a date', expr: { $type: '$$NOW' }, expected: 'date', source: vars },
    {
      name: '$$NOW is one instant for the command',
      expr: { $eq: ['$$NOW', { $let: { vars: { n: '$$NOW' }, in: '$$n' } }] },
      expected: true,
      source: vars,
    },
    {
      name: '$$NOW after 2020',
      expr: { $gt: ['$$NOW', { $literal: date('2020-01-01T00:00:00Z') }] },
      expected: true,
      source: vars,
    },
    {
      name: '$$CLUSTER_TIME is a timestamp',
      expr: { $type: '$$CLUSTER_TIME' },
      expected: 'timestamp',
      source: vars,
      driverOnly:
        'the unit harness has no cluster time (a standalone); the server runs as a replica set',
    },
    {
      name: '$$CLUSTER_TIME after a known one',
      expr: { $gt: ['$$CLUSTER_TIME', new Timestamp({ t: 1577836800, i: 0 })] },
      expected: true,
      source: vars,
      driverOnly: 'the unit harness has no cluster time',
    },
    {
      name: 'rebinding CURRENT changes field paths',
      expr: { $let: { vars: { CURRENT: '$$ROOT.sub' }, in: { $add: ['$x', int(1)] } } },
      doc: { sub: { x: int(4) } },
      expected: int(5),
      source: vars,
    },
  ],
  errors: [
    {
      name: '$let not an object',
      expr: { $let: int(1) },
      code: 16874,
      source: 'ExpressionLet::parse',
    },
    {
      name: '$let missing vars',
      expr: { $let: { in: int(1) } },
      code: 16876,
      source: 'ExpressionLet::parse',
    },
    {
      name: '$let vars not an object',
      expr: { $let: { vars: int(1), in: int(1) } },
      code: 10065,
      source: 'ExpressionLet::parse',
    },
    {
      name: '$let ROOT cannot be rebound',
      expr: { $let: { vars: { ROOT: int(1) }, in: int(1) } },
      code: 16867,
      source: validation,
    },
    {
      name: '$let name starting with a digit',
      expr: { $let: { vars: { '1a': int(1) }, in: int(1) } },
      code: 16867,
      source: validation,
    },
    {
      name: '$let name with a dash',
      expr: { $let: { vars: { 'a-b': int(1) }, in: int(1) } },
      code: 16868,
      source: validation,
    },
    {
      name: '$let empty name',
      expr: { $let: { vars: { '': int(1) }, in: int(1) } },
      code: 16866,
      source: validation,
    },
    { name: 'read of an empty variable name', expr: '$$', code: 16869, source: validation },
    { name: 'read of a name with a bad character', expr: '$$a-b', code: 16871, source: validation },
    {
      name: 'variable out of its scope',
      expr: { $add: [{ $let: { vars: { x: int(1) }, in: '$$x' } }, '$$x'] },
      code: 17276,
      source: 'VariablesParseState::getVariable',
    },
    {
      name: '$map variable unknown outside',
      expr: { $concatArrays: [{ $map: { input: [], as: 'v', in: '$$v' } }, ['$$v']] },
      code: 17276,
      source: 'VariablesParseState::getVariable',
    },
  ],
};
