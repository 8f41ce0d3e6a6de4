// $jsonSchema: the data and expectations of jstests/core/query/json_schema/json_schema.js, plus
// keyword cases whose meaning is mongod's translation (json_schema_parser.cpp).

import type { MatchCase } from './types.js';
import { values } from './types.js';
import { dec, dbl, int, long } from './values.js';

const SOURCE = 'mongodb/mongo jstests/core/query/json_schema/json_schema.js';
const PARSER = 'mongod src/mongo/db/matcher/schema/json_schema_parser.cpp';

const nums = [
  { _id: 0, num: 3 },
  { _id: 1, num: -3 },
  { _id: 2, num: int(2) },
  { _id: 3, num: int(-2) },
  { _id: 4, num: long(1) },
  { _id: 5, num: long(-1) },
  { _id: 6, num: {} },
  { _id: 7, num: 'str' },
  { _id: 8, num: 'string' },
  { _id: 9 },
];
const objs = [
  { _id: 0, obj: 3 },
  { _id: 1, obj: { f1: { f3: 'str' }, f2: 'str' } },
  { _id: 2, obj: { f1: 'str', f2: 'str' } },
  { _id: 3, obj: { f1: 1, f2: 'str' } },
];
const nested = {
  properties: {
    obj: {
      properties: {
        f1: { type: 'object', properties: { f3: { type: 'string' } } },
        f2: { type: 'string' },
      },
    },
  },
};
const arrs = [
  { _id: 0, arr: 3 },
  { _id: 1, arr: [1, 'foo'] },
  { _id: 2, arr: [{ a: 1 }, { b: 2 }] },
  { _id: 3, arr: [] },
  { _id: 4, arr: { a: [] } },
];
const ab = [
  { _id: 1, a: 1, b: 1 },
  { _id: 2, a: 2, b: 2 },
];

function schema(
  name: string,
  s: object,
  docs: MatchCase['docs'],
  expected: number[],
  source = PARSER,
): MatchCase {
  return {
    name: `$jsonSchema ${name}`,
    filter: { $jsonSchema: s as never },
    docs,
    expected,
    source,
  };
}

export const jsonSchemaCases: MatchCase[] = [
  schema('{} matches everything', {}, nums, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], SOURCE),
  schema(
    'type object matches everything',
    { type: 'object' },
    nums,
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    SOURCE,
  ),
  schema('top-level type string matches nothing', { type: 'string' }, nums, [], SOURCE),
  schema('top-level bsonType long matches nothing', { bsonType: 'long' }, nums, [], SOURCE),
  schema(
    'property type number',
    { properties: { num: { type: 'number' } } },
    nums,
    [0, 1, 2, 3, 4, 5, 9],
    SOURCE,
  ),
  schema(
    'type number with maximum',
    { properties: { num: { type: 'number', maximum: -1 } } },
    nums,
    [1, 3, 5, 9],
    SOURCE,
  ),
  schema(
    'explicit top-level object',
    { type: 'object', properties: { num: { type: 'number', maximum: -1 } } },
    nums,
    [1, 3, 5, 9],
    SOURCE,
  ),
  schema('bsonType long', { properties: { num: { bsonType: 'long' } } }, nums, [4, 5, 9], SOURCE),
  schema(
    'bsonType long with maximum',
    { properties: { num: { bsonType: 'long', maximum: 0 } } },
    nums,
    [5, 9],
    SOURCE,
  ),
  schema(
    'maximum applies only to numbers',
    { properties: { num: { maximum: 0 } } },
    nums,
    [1, 3, 5, 6, 7, 8, 9],
    SOURCE,
  ),
  schema(
    'maximum with a string type does nothing',
    { properties: { num: { type: 'string', maximum: 0 } } },
    nums,
    [7, 8, 9],
    SOURCE,
  ),
  schema(
    'maxLength 2',
    { properties: { num: { type: 'string', maxLength: 2 } } },
    nums,
    [9],
    SOURCE,
  ),
  schema(
    'maxLength 3',
    { properties: { num: { type: 'string', maxLength: 3 } } },
    nums,
    [7, 9],
    SOURCE,
  ),
  schema(
    'minLength 4',
    { properties: { num: { type: 'string', minLength: 4 } } },
    nums,
    [8, 9],
    SOURCE,
  ),
  schema(
    'minLength 3',
    { properties: { num: { type: 'string', minLength: 3 } } },
    nums,
    [7, 8, 9],
    SOURCE,
  ),
  schema(
    'pattern',
    { properties: { num: { type: 'string', pattern: 'ing' } } },
    nums,
    [8, 9],
    SOURCE,
  ),
  schema('nested properties', nested, objs, [0, 1], SOURCE),
  schema('type array', { properties: { arr: { type: 'array' } } }, arrs, [1, 2, 3], SOURCE),
  schema('type number with arrays', { properties: { arr: { type: 'number' } } }, arrs, [0], SOURCE),
  schema('description is ignored', { description: 'test' }, [{ _id: 0 }], [0], SOURCE),
  schema(
    'nested title is ignored',
    { properties: { a: { title: "a's title" } } },
    [{ _id: 0, a: {} }],
    [0],
    SOURCE,
  ),
  {
    name: '$jsonSchema combined with $or',
    filter: { $or: [{ 'obj.f1': 'str' }, { $jsonSchema: nested as never }] },
    docs: objs,
    expected: [0, 1, 2],
    source: SOURCE,
  },
  {
    name: '$jsonSchema with a sibling predicate',
    filter: { $jsonSchema: { properties: { a: { type: 'number' } }, required: ['a'] }, b: 1 },
    docs: ab,
    expected: [1],
    source: SOURCE,
  },
  {
    name: '$jsonSchema inside $or with a sibling',
    filter: { $or: [{ $jsonSchema: {}, a: 1 }, { b: 1 }] },
    docs: ab,
    expected: [1],
    source: SOURCE,
  },
  schema(
    'required',
    { required: ['a', 'b'] },
    [
      { _id: 0, a: 1 },
      { _id: 1, a: 1, b: null },
      { _id: 2, b: 1 },
    ],
    [1],
  ),
  schema(
    'required property must satisfy its schema',
    { required: ['a'], properties: { a: { bsonType: 'int' } } },
    values(1, 'x', 1.5),
    [0],
  ),
  schema(
    'nested required applies to objects only',
    { properties: { a: { required: ['b'] } } },
    values({ b: 1 }, {}, 5, [{}]),
    [0, 2, 3],
  ),
  schema(
    'enum on a property',
    { properties: { a: { enum: [1, 'x', { b: 1, c: 2 }] } } },
    values(dbl(1), 'x', { c: 2, b: 1 }, 2, [1]),
    [0, 1, 2],
  ),
  schema(
    'enum at the top compares whole documents ignoring field order',
    { enum: [{ _id: 0, a: 1 }, { a: 1, _id: 1 }, 5] },
    [
      { _id: 0, a: 1 },
      { _id: 1, a: 1 },
      { _id: 2, a: 1 },
    ],
    [0, 1],
  ),
  schema(
    'minimum / exclusiveMinimum',
    { properties: { a: { minimum: 1, exclusiveMinimum: true } } },
    values(1, 2, dec('1.5'), 0, 'z'),
    [1, 2, 4],
  ),
  schema(
    'multipleOf',
    { properties: { a: { multipleOf: 0.1 } } },
    values(0.3, 0.35, 3, dec('0.2'), 'x'),
    [0, 2, 3, 4],
  ),
  schema(
    'minItems / maxItems',
    { properties: { a: { minItems: 1, maxItems: 2 } } },
    values([], [1], [1, 2, 3], 'str'),
    [1, 3],
  ),
  schema(
    'uniqueItems ignores field order',
    { properties: { a: { uniqueItems: true } } },
    values(
      [1, 2],
      [1, dbl(1)],
      [
        { x: 1, y: 2 },
        { y: 2, x: 1 },
      ],
      5,
    ),
    [0, 3],
  ),
  schema(
    'items as one schema',
    { properties: { a: { items: { type: 'number' } } } },
    values([1, 2], [1, 'x'], [], 'x'),
    [0, 2, 3],
  ),
  schema(
    'items as a list',
    { properties: { a: { items: [{ type: 'number' }, { type: 'string' }] } } },
    values([1, 'x', true], [1], ['x'], [1, 2]),
    [0, 1],
  ),
  schema(
    'additionalItems false',
    { properties: { a: { items: [{}], additionalItems: false } } },
    values([1], [1, 2], []),
    [0, 2],
  ),
  schema(
    'additionalItems without list items is ignored',
    { properties: { a: { additionalItems: false } } },
    values([1, 2]),
    [0],
  ),
  schema(
    'additionalProperties false at the top needs _id listed',
    { properties: { _id: {}, a: {} }, additionalProperties: false },
    [
      { _id: 0, a: 1 },
      { _id: 1, b: 1 },
    ],
    [0],
  ),
  schema(
    'patternProperties',
    { patternProperties: { '^s_': { type: 'string' } } },
    [
      { _id: 0, s_a: 'x' },
      { _id: 1, s_a: 1 },
      { _id: 2, t: 1 },
    ],
    [0, 2],
  ),
  schema(
    'patternProperties and additionalProperties schema',
    {
      properties: { _id: {} },
      patternProperties: { '^n': { type: 'number' } },
      additionalProperties: { type: 'string' },
    },
    [
      { _id: 0, n1: 1, x: 's' },
      { _id: 1, n1: 's' },
      { _id: 2, x: 1 },
    ],
    [0],
  ),
  schema(
    'minProperties / maxProperties at the top',
    { minProperties: 2, maxProperties: 2 },
    [{ _id: 0 }, { _id: 1, a: 1 }, { _id: 2, a: 1, b: 1 }],
    [1],
  ),
  schema(
    'property dependency',
    { dependencies: { a: ['b'] } },
    [{ _id: 0, a: 1 }, { _id: 1, a: 1, b: 1 }, { _id: 2 }],
    [1, 2],
  ),
  schema(
    'schema dependency',
    { dependencies: { a: { required: ['c'] } } },
    [
      { _id: 0, a: 1 },
      { _id: 1, a: 1, c: 1 },
      { _id: 2, c: 1 },
    ],
    [1, 2],
  ),
  schema(
    'allOf',
    { properties: { a: { allOf: [{ minimum: 1 }, { maximum: 3 }] } } },
    values(0, 2, 4),
    [1],
  ),
  schema(
    'anyOf',
    { properties: { a: { anyOf: [{ type: 'string' }, { maximum: 0 }] } } },
    values('s', -1, 1),
    [0, 1],
  ),
  schema(
    'oneOf',
    { properties: { a: { oneOf: [{ minimum: 0 }, { maximum: 10 }] } } },
    values(-1, 5, 11),
    [0, 2],
  ),
  schema('not', { properties: { a: { not: { type: 'string' } } } }, values('s', 1, null), [1, 2]),
  schema(
    'bsonType number alias',
    { properties: { a: { bsonType: 'number' } } },
    values(1, long(1), dec('1'), dbl(1.5), 's'),
    [0, 1, 2, 3],
  ),
  schema(
    'bsonType list',
    { properties: { a: { bsonType: ['string', 'null'] } } },
    values('s', null, 1),
    [0, 1],
  ),
  schema(
    'type boolean and null',
    { properties: { a: { type: ['boolean', 'null'] } } },
    values(true, null, 0),
    [0, 1],
  ),
];
