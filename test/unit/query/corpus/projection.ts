// Find projections: specification, input document and the document mongod returns, from
// jstests/core/query/project/*.js and the manual; and the errors mongod gives for bad ones.

import { ErrorCode } from '../../../../src/errors.js';
import type { Literal } from './values.js';

type Doc = { [key: string]: Literal };

export interface ProjectionCase {
  readonly name: string;
  readonly projection: Doc;
  /** The find filter (positional projections need it); {} when absent. */
  readonly filter?: Doc;
  readonly input: Doc;
  readonly expected: Doc;
  readonly source: string;
}

export interface ProjectionErrorCase {
  readonly name: string;
  readonly projection: Doc;
  readonly filter?: Doc;
  /** When the error is raised on a document rather than when parsing. */
  readonly input?: Doc;
  readonly code: number;
  readonly source: string;
  /**
   * What mongod answers where the aggregation expression layer is present (the server), when
   * that differs from the projection layer alone: `code` is then the layer without it.
   */
  readonly withExpressions?: { readonly code: number } | { readonly expected: Doc };
}

/** The input of error cases that give none. */
export const DEFAULT_ERROR_INPUT: Doc = {
  _id: 1,
  a: [1, 2, 3],
  b: [4, 5, 6],
  x: [1, 2],
  y: [1, 2],
};

const SEMANTICS = 'mongodb/mongo jstests/core/query/project/projection_semantics.js';
const SLICE = 'mongodb/mongo jstests/core/query/project/slice1.js';
const POSITIONAL = 'mongodb/mongo jstests/core/query/project/positional_projection.js';
const ELEMMATCH = 'MongoDB manual, $elemMatch (projection)';
const PARSER = 'mongod src/mongo/db/query/projection_parser.cpp';

function p(
  name: string,
  projection: Doc,
  input: Doc,
  expected: Doc,
  source = SEMANTICS,
  filter?: Doc,
): ProjectionCase {
  return filter === undefined
    ? { name, projection, input, expected, source }
    : { name, projection, input, expected, source, filter };
}

const xy = {
  x: [
    { a: 1, b: 2 },
    { a: 2, c: 3 },
    { a: 1, d: 5 },
  ],
  y: [
    { aa: 1, bb: 2 },
    { aa: 2, cc: 3 },
    { aa: 1, dd: 5 },
  ],
};

export const projectionCases: ProjectionCase[] = [
  p('include a', { a: 1 }, { _id: 1, a: 'demo', b: 'other', x: 'extra' }, { _id: 1, a: 'demo' }),
  p(
    'include a, dotted field name ignored',
    { a: 1 },
    { _id: 1, a: 'demo', aWSuffix: 'other', 'a.b': 'extra' },
    { _id: 1, a: 'demo' },
  ),
  p('include missing a', { a: 1 }, { _id: 1, b: 'other' }, { _id: 1 }),
  p(
    'include a: [[1, 2], [{}], 2]',
    { a: 1 },
    { _id: 1, a: [[1, 2], [{}], 2] },
    { _id: 1, a: [[1, 2], [{}], 2] },
  ),
  p('include a without _id', { a: 1, _id: 0 }, { _id: 1, a: null, b: 'other' }, { a: null }),
  p(
    'include a.b',
    { 'a.b': 1 },
    { _id: 1, a: { b: 'demo', y: 'extra' }, x: 'extra' },
    { _id: 1, a: { b: 'demo' } },
  ),
  p(
    'include a.b excludes a sub-document _id',
    { 'a.b': 1 },
    { _id: 1, a: { b: 'demo', _id: 'extra' } },
    { _id: 1, a: { b: 'demo' } },
  ),
  p(
    'include a.b through an array',
    { 'a.b': 1 },
    {
      _id: 1,
      a: [
        { b: 1, c: 1 },
        { b: 2, c: 2 },
      ],
      x: 'extra',
    },
    { _id: 1, a: [{ b: 1 }, { b: 2 }] },
  ),
  p(
    'include a.b: missing b leaves {}',
    { 'a.b': 1 },
    { _id: 1, a: [{ b: 1, c: 1 }, { c: 2 }] },
    { _id: 1, a: [{ b: 1 }, {}] },
  ),
  p('include a.b: empty a', { 'a.b': 1 }, { _id: 1, a: {} }, { _id: 1, a: {} }),
  p('include a.b: scalar a disappears', { 'a.b': 1 }, { _id: 1, a: 'scalar' }, { _id: 1 }),
  p(
    'include a.b: scalars in arrays are dropped',
    { 'a.b': 1, _id: 0 },
    { _id: 1, a: ['scalar', {}, 'scalar', { c: 1 }], x: 'extra' },
    { a: [{}, {}] },
  ),
  p(
    'include a.b: nested arrays are kept',
    { 'a.b': 1, _id: 0 },
    { _id: 1, a: [[1, { b: 1 }, { b: 2, c: 2 }, 'scalar']] },
    { a: [[{ b: 1 }, { b: 2 }]] },
  ),
  p(
    'include a.b: deep nesting',
    { 'a.b': 1, _id: 0 },
    { _id: 1, a: [[], [[], [], [1], [{ c: 1 }]], { b: 1 }] },
    { a: [[], [[], [], [], [{}]], { b: 1 }] },
  ),
  p(
    'include a.b and a.c',
    { 'a.b': 1, 'a.c': 1, _id: 0 },
    { _id: 1, a: [{ b: 1, c: 2 }, 'extra', { b: 3, c: 4 }] },
    {
      a: [
        { b: 1, c: 2 },
        { b: 3, c: 4 },
      ],
    },
  ),
  p(
    'include a.b and a.c, neither present',
    { 'a.b': 1, 'a.c': 1, _id: 0 },
    { _id: 1, a: { d: 'extra' } },
    { a: {} },
  ),
  p('include a.b.c: a.b scalar', { 'a.b.c': 1, _id: 0 }, { _id: 1, a: { b: 'scalar' } }, { a: {} }),
  p('include a.b.c: a null', { 'a.b.c': 1, _id: 0 }, { _id: 1, a: null }, {}),
  p(
    'include a.b.c through three arrays',
    { 'a.b.c': 1, _id: 0 },
    { _id: 1, a: [[1, 2], [{ b: [[1, 2], [{ c: [[1, 2], [{}], 2] }], 2] }], 2] },
    { a: [[], [{ b: [[], [{ c: [[1, 2], [{}], 2] }]] }]] },
  ),
  p(
    'numeric component is a field name',
    { _id: 0, 'a.2': 1 },
    { _id: 1, a: [0, 1, 2, 3, 4, { obj: 123 }, { '2': 123 }] },
    { a: [{}, { '2': 123 }] },
  ),
  p('exclude a', { a: 0 }, { _id: 1, a: 1, b: 1, c: 1 }, { _id: 1, b: 1, c: 1 }),
  p(
    'exclude a.b',
    { 'a.b': 0 },
    { _id: 1, a: { b: 1, c: 1, d: 1 }, x: { y: 1, z: 1 } },
    { _id: 1, a: { c: 1, d: 1 }, x: { y: 1, z: 1 } },
  ),
  p(
    'exclude a.b keeps scalars',
    { 'a.b': 0 },
    { _id: 1, a: ['scalar', { b: 1, c: 1, d: 1 }, { b: 2, c: 2 }, { b: 3 }] },
    { _id: 1, a: ['scalar', { c: 1, d: 1 }, { c: 2 }, {}] },
  ),
  p(
    'exclude a.b.c in nested arrays',
    { 'a.b.c': 0 },
    { _id: 1, a: [[], [{ b: [[1, 2], { c: 1, d: 1 }] }]] },
    { _id: 1, a: [[], [{ b: [[1, 2], { d: 1 }] }]] },
  ),
  p('$literal', { a: { $literal: 0 } }, { _id: 1, a: 1, b: 1, c: 1 }, { _id: 1, a: 0 }),
  p(
    '$literal and a string literal',
    { a: { $literal: 0 }, b: 'string' },
    { _id: 1, a: 1, b: 1, c: 1 },
    { _id: 1, a: 0, b: 'string' },
  ),
  p(
    'computed dotted field',
    { 'a.b': 'new value' },
    { _id: 1, a: { b: 1, c: 1, d: 1 }, x: { y: 1 } },
    { _id: 1, a: { b: 'new value' } },
  ),
  p(
    'computed fields replace scalars in arrays',
    { 'a.b': 'new value' },
    { _id: 1, a: ['scalar', { b: 1, c: 1, d: 1 }, { b: 2, c: 2 }, { b: 3 }] },
    { _id: 1, a: [{ b: 'new value' }, { b: 'new value' }, { b: 'new value' }, { b: 'new value' }] },
  ),
  p(
    'computed field on an empty array',
    { 'a.b': 'new value' },
    { _id: 1, a: [] },
    { _id: 1, a: [] },
  ),
  p(
    'computed field through double arrays',
    { 'a.b.c': 'new value' },
    { _id: 1, a: [[], [{ b: [[1, 2], { c: 1, d: 1 }] }]] },
    { _id: 1, a: [[], [{ b: [[{ c: 'new value' }, { c: 'new value' }], { c: 'new value' }] }]] },
  ),
  p('_id only', { _id: 1 }, { _id: 1, a: 1 }, { _id: 1 }),
  p('_id excluded only', { _id: 0 }, { _id: 1, a: 1, b: 1 }, { a: 1, b: 1 }),
  p(
    'sub-object projection',
    { measurements: { temperature: 1, pressure: 1 }, _id: 0 },
    { _id: 1, measurements: { temperature: 20, pressure: 0.7, humidity: 0.4 } },
    { measurements: { temperature: 20, pressure: 0.7 } },
  ),
  p(
    'sub-object exclusion',
    { measurements: { humidity: 0 }, _id: 0 },
    { _id: 1, measurements: { temperature: 20, humidity: 0.4 } },
    { measurements: { temperature: 20 } },
  ),
  p(
    '$slice first three',
    { a: { $slice: 3 } },
    { _id: 1, a: [0, 1, 2, 3, 4, 5], b: 1 },
    { _id: 1, a: [0, 1, 2], b: 1 },
    SLICE,
  ),
  p(
    '$slice last three',
    { a: { $slice: -3 } },
    { _id: 1, a: [0, 1, 2, 3, 4, 5, -5, -4, -3, -2, -1] },
    { _id: 1, a: [-3, -2, -1] },
    SLICE,
  ),
  p(
    '$slice skip 2 limit 3',
    { a: { $slice: [2, 3] } },
    { _id: 1, a: [0, 1, 2, 3, 4, 5] },
    { _id: 1, a: [2, 3, 4] },
    SLICE,
  ),
  p(
    '$slice skip -5 limit 4',
    { a: { $slice: [-5, 4] } },
    { _id: 1, a: [0, 1, 2, 3, 4, 5, -5, -4, -3, -2, -1] },
    { _id: 1, a: [-5, -4, -3, -2] },
    SLICE,
  ),
  p(
    '$slice skip -5 limit 10',
    { a: { $slice: [-5, 10] } },
    { _id: 1, a: [0, 1, 2, 3, 4, 5, -5, -4, -3, -2, -1] },
    { _id: 1, a: [-5, -4, -3, -2, -1] },
    SLICE,
  ),
  p(
    '$slice with inclusion',
    { a: { $slice: 3 }, b: true },
    { _id: 1, a: [0, 1, 2, 3], b: 1, c: 1 },
    { _id: 1, a: [0, 1, 2], b: 1 },
    SLICE,
  ),
  p(
    '$slice with exclusion',
    { a: { $slice: 3 }, b: false },
    { _id: 1, a: [0, 1, 2, 3], b: 1, c: 1 },
    { _id: 1, a: [0, 1, 2], c: 1 },
    SLICE,
  ),
  p(
    '$slice nested arrays are values',
    { a: { $slice: -1 } },
    {
      _id: 1,
      a: [
        [1, 1, 1],
        [2, 2, 2],
        [3, 3, 3],
      ],
    },
    { _id: 1, a: [[3, 3, 3]] },
    SLICE,
  ),
  p(
    '$slice one level deep only',
    { a: { b: { $slice: [1, 1] } } },
    { _id: 4, a: [[{ b: [1, 2, 3] }], { b: [1, 2, 3] }, 1, null, {}] },
    { _id: 4, a: [[{ b: [1, 2, 3] }], { b: [2] }, 1, null, {}] },
    SLICE,
  ),
  p(
    '$slice deep path',
    { 'a.b.c.d.e': { $slice: [1, 1] } },
    { _id: 1, a: [{ b: [{ c: [{ d: [{ e: [1, 2, 3] }] }] }] }] },
    { _id: 1, a: [{ b: [{ c: [{ d: [{ e: [2] }] }] }] }] },
    SLICE,
  ),
  p(
    '$slice of an object leaves it',
    { a: { $slice: 1 }, d: 1 },
    { _id: 1, a: { c: 123 }, d: 456 },
    { _id: 1, a: { c: 123 }, d: 456 },
    SLICE,
  ),
  p(
    '$slice of a missing field',
    { a: { $slice: 1 }, d: 1 },
    { _id: 1, b: { e: 123 }, d: 456 },
    { _id: 1, d: 456 },
    SLICE,
  ),
  p(
    '$slice in inclusion filters deep arrays',
    { e: 1, 'a.b': { $slice: 1 } },
    { _id: 1, e: 123, a: [[[{ b: [1, 2, 3], d: 4, f: 5 }]]] },
    { _id: 1, e: 123, a: [[[{ b: [1, 2, 3] }]]] },
    SLICE,
  ),
  p(
    '$slice with _id: 1',
    { _id: 1, a: { $slice: [1, 1] } },
    { _id: 123, a: [1, 2, 3], b: 1 },
    { _id: 123, a: [2] },
    SLICE,
  ),
  p(
    '$slice with _id: 0',
    { _id: 0, a: { $slice: [1, 1] } },
    { _id: 123, a: [1, 2, 3] },
    { a: [2] },
    SLICE,
  ),
  p(
    'positional single object',
    { 'x.$': 1 },
    { _id: 1, ...xy },
    { _id: 1, x: [{ a: 2, c: 3 }] },
    POSITIONAL,
    { 'x.a': 2 },
  ),
  p(
    'positional first match',
    { 'x.$': 1 },
    { _id: 1, ...xy },
    { _id: 1, x: [{ a: 1, b: 2 }] },
    POSITIONAL,
    { 'x.a': 1 },
  ),
  p(
    'positional on y',
    { 'y.$': 1 },
    { _id: 1, ...xy },
    { _id: 1, y: [{ aa: 1, dd: 5 }] },
    POSITIONAL,
    { 'y.dd': 5 },
  ),
  p(
    'positional nested path',
    { 'x.y.$': 1 },
    {
      _id: 1,
      x: {
        y: [
          { a: 1, b: 1 },
          { a: 1, b: 2 },
        ],
      },
    },
    { _id: 1, x: { y: [{ a: 1, b: 1 }] } },
    POSITIONAL,
    { 'x.y.a': 1 },
  ),
  p('positional path missing', { 'a.$': 1 }, { _id: 1, x: 1 }, { _id: 1 }, POSITIONAL, { x: 1 }),
  p(
    'positional on a field the filter does not name',
    { 'g.$': 1 },
    { _id: 1, ...xy },
    { _id: 1 },
    POSITIONAL,
    {},
  ),
  p(
    'positional through nested arrays',
    { 'a.b.c.$': 1 },
    { _id: 1, x: [1], a: [{ b: [[[{ c: 1, d: 2 }]]] }] },
    { _id: 1, a: [{ b: [[[{ c: 1 }]]] }] },
    POSITIONAL,
    { x: 1 },
  ),
  p(
    'positional partial path',
    { 'a.b.c.$': 1 },
    { _id: 1, x: [-1, 1, 2], a: { b: { d: [1, 2, 3], f: 456 }, e: 123 } },
    { _id: 1, a: { b: {} } },
    POSITIONAL,
    { x: { $gt: 0 } },
  ),
  p(
    'positional without arrays on the path',
    { 'a.b.c.$': 1 },
    { _id: 1, x: [-1, 1, 2], a: { b: { c: 123 } } },
    { _id: 1, a: { b: { c: 123 } } },
    POSITIONAL,
    { x: { $gt: 0 } },
  ),
  p(
    'positional applies to the first array',
    { 'a.b.c.$': 1 },
    {
      _id: 1,
      x: { y: { z: [0, 1, 2] } },
      a: [{ b: { c: [1, 2, 3] } }, { b: { c: [4, 5, 6] } }, { b: { c: [7, 8, 9] } }],
    },
    { _id: 1, a: [{ b: { c: [4, 5, 6] } }] },
    POSITIONAL,
    { 'x.y.z': 1 },
  ),
  p(
    'positional deeper array',
    { 'a.b.c.$': 1 },
    { _id: 1, x: { y: { z: [0, 1, 2] } }, a: { b: { c: [1, 2, 3] } } },
    { _id: 1, a: { b: { c: [2] } } },
    POSITIONAL,
    { 'x.y.z': 1 },
  ),
  p(
    'positional with $elemMatch value',
    { 'x.$': 1 },
    { _id: 1, x: [1, 2, 3] },
    { _id: 1, x: [2] },
    POSITIONAL,
    { x: { $elemMatch: { $gt: 1, $lt: 3 } } },
  ),
  p(
    'positional with $elemMatch object',
    { 'x.$': 1 },
    { _id: 1, x: [{ y: 1 }, { y: 2 }, { y: 3 }] },
    { _id: 1, x: [{ y: 2 }] },
    POSITIONAL,
    { x: { $elemMatch: { y: { $gt: 1 } } } },
  ),
  p(
    'positional with nested $elemMatch',
    { 'b.$': 1 },
    {
      _id: 1,
      a: [
        [1, 2],
        [3, 4],
      ],
      b: [
        [5, 6],
        [7, 8],
      ],
    },
    { _id: 1, b: [[7, 8]] },
    POSITIONAL,
    { a: { $elemMatch: { $elemMatch: { $eq: 3 } } } },
  ),
  p(
    'positional uses the last $and clause',
    { 'b.$': 1 },
    { _id: 1, a: [1, 2, 3], b: [4, 5, 6] },
    { _id: 1, b: [6] },
    POSITIONAL,
    { $and: [{ a: 1 }, { a: 2 }, { a: 3 }] },
  ),
  p(
    'positional with $and in another order',
    { 'b.$': 1 },
    { _id: 1, a: [1, 2, 3], b: [4, 5, 6] },
    { _id: 1, b: [4] },
    POSITIONAL,
    { $and: [{ a: 3 }, { a: 2 }, { a: 1 }] },
  ),
  p(
    'positional with $in',
    { 'b.$': 1 },
    { _id: 1, a: [1, 2, 3], b: [4, 5, 6] },
    { _id: 1, b: [5] },
    POSITIONAL,
    { a: { $in: [2, 3] } },
  ),
  p(
    'positional with an $or that is an $in',
    { 'b.$': 1 },
    { _id: 1, a: [1, 2, 3], b: [4, 5, 6] },
    { _id: 1, b: [5] },
    POSITIONAL,
    { $or: [{ a: 2 }, { a: 3 }] },
  ),
  p(
    'positional with $elemMatch $exists',
    { 'a.$': 1 },
    { _id: 1, a: [{ y: 1 }, { y: 2 }] },
    { _id: 1, a: [{ y: 1 }] },
    POSITIONAL,
    { a: { $elemMatch: { y: { $exists: true } } } },
  ),
  p(
    'positional with $elemMatch $type',
    { 'a.$': 1 },
    { _id: 1, a: [{ y: 1 }, { y: [] }] },
    { _id: 1, a: [{ y: [] }] },
    POSITIONAL,
    { a: { $elemMatch: { y: { $type: ['array'] } } } },
  ),
  p(
    '$elemMatch projection',
    { games: { $elemMatch: { score: { $gt: 5 } } }, joined: 1, lastLogin: 1 },
    {
      _id: 1,
      name: 'player1',
      games: [
        { game: 'abc', score: 8 },
        { game: 'xyz', score: 5 },
      ],
      joined: 'j',
      lastLogin: 'l',
    },
    { _id: 1, joined: 'j', lastLogin: 'l', games: [{ game: 'abc', score: 8 }] },
    ELEMMATCH,
  ),
  p(
    '$elemMatch projection alone is an inclusion',
    { games: { $elemMatch: { score: 5 } } },
    { _id: 1, name: 'p', games: [{ score: 8 }, { score: 5 }] },
    { _id: 1, games: [{ score: 5 }] },
    ELEMMATCH,
  ),
  p(
    '$elemMatch projection without a match',
    { games: { $elemMatch: { score: 9 } } },
    { _id: 1, games: [{ score: 8 }] },
    { _id: 1 },
    ELEMMATCH,
  ),
  p(
    'empty projection returns the document',
    {},
    { _id: 1, a: 1 },
    { _id: 1, a: 1 },
    'MongoDB manual, db.collection.find() (projection omitted)',
  ),
  p(
    '__proto__ as a field name',
    { ['__proto__']: 1, _id: 0 },
    { _id: 1, ['__proto__']: 5, b: 1 },
    { ['__proto__']: 5 },
    'CONTRIBUTING.md: documents may carry __proto__ as data',
  ),
];

function e(
  name: string,
  projection: Doc,
  code: number,
  source = PARSER,
  filter?: Doc,
  input?: Doc,
): ProjectionErrorCase {
  return {
    name,
    projection,
    code,
    source,
    ...(filter === undefined ? {} : { filter }),
    ...(input === undefined ? {} : { input }),
  };
}

/**
 * A case whose answer changes with the expression layer: find's $slice falls back to the
 * $slice expression (whose own parse or run error then stands), and expressions are computed.
 */
function withExpr(
  c: ProjectionErrorCase,
  withExpressions: ProjectionErrorCase['withExpressions'],
  source = c.source,
): ProjectionErrorCase {
  return { ...c, source, ...(withExpressions === undefined ? {} : { withExpressions }) };
}

const SLICE_FALLBACK =
  'mongod projection_parser.cpp parseSubObjectAsExpression ($slice: find syntax, then the expression) and expression.cpp ExpressionSlice (28667 arity, 28724 first argument not an array)';

export const projectionErrorCases: ProjectionErrorCase[] = [
  e('exclusion in an inclusion', { a: 1, b: 0 }, ErrorCode.Location31254),
  e('inclusion in an exclusion', { a: 0, b: 1 }, ErrorCode.Location31253),
  e('positional with an exclusion', { 'x.$': 1, y: 0 }, ErrorCode.Location31254, POSITIONAL, {
    'x.a': 2,
  }),
  e('path collision', { a: 1, 'a.b': 1 }, ErrorCode.Location31249),
  e('path collision at the leaf', { 'a.b': 1, a: 1 }, ErrorCode.Location31250),
  e('literal in an exclusion', { a: 0, b: 'x' }, ErrorCode.Location31310),
  e('positional with $slice', { 'x.$': { $slice: 1 } }, ErrorCode.Location31271, POSITIONAL, {
    x: 1,
  }),
  e('two positionals', { 'x.$': 1, 'y.$': 1 }, ErrorCode.Location31276, POSITIONAL, {
    'x.a': 1,
    'y.aa': 1,
  }),
  e('positional without a field path', { '.$': 1 }, ErrorCode.Location5392900, POSITIONAL, {}),
  e(
    'positional with no array position',
    { 'x.$': 1 },
    ErrorCode.Location51246,
    POSITIONAL,
    {},
    { _id: 1, ...xy },
  ),
  e(
    'positional after a whole-array match',
    { 'c.$': 1 },
    ErrorCode.Location51246,
    POSITIONAL,
    { b: [4, 5, 6] },
    { _id: 1, a: [1, 2, 3], b: [4, 5, 6], c: [7, 8, 9] },
  ),
  e(
    'positional under $or of two fields',
    { 'a.$': 1 },
    ErrorCode.Location51246,
    POSITIONAL,
    { $or: [{ a: 1 }, { b: 5 }] },
    { _id: 1, a: [1, 2, 3], b: [4, 5, 6] },
  ),
  e(
    'positional under $nor',
    { 'a.$': 1 },
    ErrorCode.Location51246,
    POSITIONAL,
    { $nor: [{ a: -1 }, { a: -2 }] },
    { _id: 1, a: [1, 2, 3] },
  ),
  e(
    'positional under $not',
    { 'a.$': 1 },
    ErrorCode.Location51246,
    POSITIONAL,
    { a: { $not: { $elemMatch: { $eq: 100 } } } },
    { _id: 1, a: [1, 2, 3] },
  ),
  e('positional twice', { 'a.$.b.$': 1 }, ErrorCode.Location31287, PARSER, { a: 1 }),
  e(
    'positional and $elemMatch',
    { 'a.$': 1, b: { $elemMatch: { c: 1 } } },
    ErrorCode.Location31255,
    PARSER,
    { a: 1 },
  ),
  e(
    '$elemMatch and positional',
    { b: { $elemMatch: { c: 1 } }, 'a.$': 1 },
    ErrorCode.Location31256,
    PARSER,
    { a: 1 },
  ),
  e('$elemMatch of a number', { a: { $elemMatch: 1 } }, ErrorCode.Location31274),
  e('$elemMatch on a nested field', { 'a.b': { $elemMatch: { c: 1 } } }, ErrorCode.Location31275),
  e('$elemMatch with $expr', { a: { $elemMatch: { $expr: 1 } } }, ErrorCode.BadValue),
  withExpr(
    e('$slice of a string', { a: { $slice: 'x' } }, ErrorCode.Location31273),
    { code: 28667 },
    SLICE_FALLBACK,
  ),
  withExpr(
    e('$slice of three numbers', { a: { $slice: [1, 2, 3] } }, ErrorCode.Location31272),
    { code: 28724 },
    SLICE_FALLBACK,
  ),
  withExpr(
    e('$slice skip not a number', { a: { $slice: ['a', 1] } }, ErrorCode.Location31257),
    { code: 28724 },
    SLICE_FALLBACK,
  ),
  withExpr(
    e('$slice limit not a number', { a: { $slice: [1, 'a'] } }, ErrorCode.Location31258),
    { code: 28724 },
    SLICE_FALLBACK,
  ),
  withExpr(
    e('$slice limit zero', { a: { $slice: [1, 0] } }, ErrorCode.Location31259),
    { code: 28724 },
    SLICE_FALLBACK,
  ),
  e('expression in an exclusion', { a: 0, b: { $add: [1, 2] } }, ErrorCode.Location31252),
  withExpr(
    e('expression without the aggregation hook', { b: { $add: [1, 2] } }, ErrorCode.NotImplemented),
    { expected: { _id: 1, b: 3 } },
    'jstests/core/query/project/computed_projections.js (expressions computed in find)',
  ),
  withExpr(
    e('field path literal without the hook', { b: '$a' }, ErrorCode.NotImplemented),
    { expected: { _id: 1, b: [1, 2, 3] } },
    'jstests/core/query/project/computed_projections.js ("Single-level path")',
  ),
  e('$meta of an unknown kind', { s: { $meta: 'nope' } }, ErrorCode.Location17308),
  e('$meta of a non-string', { s: { $meta: 1 } }, ErrorCode.Location17307),
  e('empty sub-projection', { a: {} }, ErrorCode.Location51270),
  e('empty field name', { '': 1 }, ErrorCode.Location40352),
  e('empty path component', { 'a..b': 1 }, ErrorCode.Location15998),
  e('trailing dot', { 'a.': 1 }, ErrorCode.Location40353),
  e('$-prefixed field', { $a: 1 }, ErrorCode.Location16410),
  e('positional with a literal', { 'a.$': 'x' }, ErrorCode.Location31308, PARSER, { a: 1 }),
  withExpr(
    e('unknown operator', { b: { $foo: 1 } }, ErrorCode.NotImplemented),
    { code: ErrorCode.Location31325 },
    'mongod projection_parser.cpp parseSubObject (31325 when the name is neither an expression nor a field path)',
  ),
  withExpr(
    e('exclusion after an expression', { b: { $add: [1, 2] }, a: 0 }, ErrorCode.NotImplemented),
    { code: ErrorCode.Location31254 },
  ),
];
