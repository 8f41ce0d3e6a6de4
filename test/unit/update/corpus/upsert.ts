// Upserts: the document built from the query's equalities, then updated with isInsert.
// A generated _id is ObjectId('000000000000000000000001') in these tests.

import { dbref, oid, regex } from '../values.js';
import type { UpdateCase } from './types.js';

const fields = 'jstests/core/write/update/upsert_fields.js';
const and = 'jstests/core/write/update/upsert_and.js';
const onInsert = 'jstests/core/write/update/update_setOnInsert.js';
const pathSupport = 'mongod src/mongo/db/update/path_support.cpp (extractEqualityMatches)';
const generated = oid('000000000000000000000001');

function up(
  name: string,
  query: unknown,
  update: unknown,
  doc: unknown,
  source = fields,
  anyFieldOrder = false,
): UpdateCase {
  return {
    name,
    source,
    query,
    update,
    upsert: true,
    expect: { doc, modified: true, anyFieldOrder },
  };
}

function upError(
  name: string,
  query: unknown,
  update: unknown,
  error: number,
  message?: string,
  source = fields,
): UpdateCase {
  return {
    name,
    source,
    query,
    update,
    upsert: true,
    expect: message === undefined ? { error } : { error, message },
  };
}

const op = { $set: { a: 1 } };
const onIns = { $setOnInsert: { a: 1 } };

export const upsertCases: UpdateCase[] = [
  up('empty query and replacement: generated _id', {}, {}, { _id: generated }),
  up('empty query, replacement with fields', {}, { a: 1 }, { _id: generated, a: 1 }),
  up('empty query, $set', {}, op, { _id: generated, a: 1 }),
  up('empty query, $setOnInsert', {}, onIns, { _id: generated, a: 1 }),
  up('_id from the replacement', {}, { _id: 1 }, { _id: 1 }),
  up('_id from $set', {}, { $set: { _id: 1 } }, { _id: 1 }),
  up('_id from $setOnInsert', {}, { $setOnInsert: { _id: 1 } }, { _id: 1 }),
  upError('array _id in the replacement', {}, { _id: [1, 2] }, 54),
  upError(
    'undefined _id in the replacement',
    {},
    { _id: undefined },
    53,
    "The '_id' value cannot be of type undefined",
  ),
  upError(
    'array _id from $set',
    {},
    { $set: { _id: [1, 2] } },
    53,
    "The '_id' value cannot be of type array",
  ),
  upError('undefined _id from $setOnInsert', {}, { $setOnInsert: { _id: undefined } }, 53),
  upError('regex _id in the replacement', {}, { _id: regex('abc') }, 53),
  upError('regex _id from $set', {}, { $set: { _id: regex('abc') } }, 53),
  up('regex _id in the query is not extracted', { _id: regex('abc') }, {}, { _id: generated }),

  ...[
    ['replacement', {}],
    ['$set', op],
    ['$setOnInsert', onIns],
  ].flatMap(([style, update]) => {
    const repl = style === 'replacement';
    const withA = (d: Record<string, unknown>): unknown => (repl ? d : { ...d, a: 1 });
    return [
      up(`${style}: _id extracted`, { _id: 1 }, update, withA({ _id: 1 })),
      up(`${style}: _id from $eq`, { _id: { $eq: 1 } }, update, withA({ _id: 1 })),
      up(`${style}: _id from $all of one`, { _id: { $all: [1] } }, update, withA({ _id: 1 })),
      up(`${style}: _id from $in of one`, { _id: { $in: [1] } }, update, withA({ _id: 1 })),
      up(`${style}: _id from $and`, { $and: [{ _id: 1 }] }, update, withA({ _id: 1 })),
      up(
        `${style}: _id from $and with $eq`,
        { $and: [{ _id: { $eq: 1 } }] },
        update,
        withA({ _id: 1 }),
      ),
      up(`${style}: _id from a single $or`, { $or: [{ _id: 1 }] }, update, withA({ _id: 1 })),
      up(
        `${style}: _id from a single $or with $eq`,
        { $or: [{ _id: { $eq: 1 } }] },
        update,
        withA({ _id: 1 }),
      ),
      up(`${style}: _id not from $gt`, { _id: { $gt: 1 } }, update, withA({ _id: generated })),
      up(`${style}: _id not from $ne`, { _id: { $ne: 1 } }, update, withA({ _id: generated })),
      up(
        `${style}: _id not from $in of two`,
        { _id: { $in: [1, 2] } },
        update,
        withA({ _id: generated }),
      ),
      up(
        `${style}: _id not from $elemMatch`,
        { _id: { $elemMatch: { $eq: 1 } } },
        update,
        withA({ _id: generated }),
      ),
      up(
        `${style}: _id not from $exists`,
        { _id: { $exists: true } },
        update,
        withA({ _id: generated }),
      ),
      up(
        `${style}: _id not from $not`,
        { _id: { $not: { $eq: 1 } } },
        update,
        withA({ _id: generated }),
      ),
      up(
        `${style}: _id not from a $or of two`,
        { $or: [{ _id: { $eq: 1 } }, { _id: 2 }] },
        update,
        withA({ _id: generated }),
      ),
      up(`${style}: _id not from $nor`, { $nor: [{ _id: 1 }] }, update, withA({ _id: generated })),
      upError(`${style}: array _id from the query`, { _id: [1, 2] }, update, repl ? 54 : 53),
      upError(`${style}: array _id from $eq`, { _id: { $eq: [1, 2] } }, update, repl ? 54 : 53),
      upError(
        `${style}: $all of two _ids`,
        { _id: { $all: [1, 2] } },
        update,
        54,
        "cannot infer query fields to set, path '_id' is matched twice",
      ),
      upError(`${style}: two _id equalities`, { $and: [{ _id: 1 }, { _id: 2 }] }, update, 54),
      upError(
        `${style}: two _id equalities with $eq`,
        { $and: [{ _id: { $eq: 1 } }, { _id: 2 }] },
        update,
        54,
      ),
      upError(`${style}: _id and _id.x`, { _id: 1, '_id.x': 1 }, update, repl ? 63 : 54),
      upError(
        `${style}: _id document and _id.x`,
        { _id: { x: 1 }, '_id.x': 1 },
        update,
        repl ? 63 : 54,
      ),
      repl
        ? upError(
            `${style}: _id.x and _id.y cannot give a whole _id`,
            { '_id.x': 1, '_id.y': 2 },
            update,
            63,
            "field at '_id' must be exactly specified, field at sub-path '_id.x'found",
          )
        : up(
            `${style}: _id.x and _id.y build _id`,
            { '_id.x': 1, '_id.y': 2 },
            update,
            withA({ _id: { x: 1, y: 2 } }),
          ),
      up(
        `${style}: x extracted only for op-style`,
        { x: 1 },
        update,
        repl ? { _id: generated } : { _id: generated, a: 1, x: 1 },
        fields,
        true,
      ),
      up(
        `${style}: x from $eq`,
        { x: { $eq: 1 } },
        update,
        repl ? { _id: generated } : { _id: generated, a: 1, x: 1 },
        fields,
        true,
      ),
      up(
        `${style}: x from $in of one`,
        { x: { $in: [1] } },
        update,
        repl ? { _id: generated } : { _id: generated, a: 1, x: 1 },
        fields,
        true,
      ),
      up(
        `${style}: x from $all of one`,
        { x: { $all: [1] } },
        update,
        repl ? { _id: generated } : { _id: generated, a: 1, x: 1 },
        fields,
        true,
      ),
      up(
        `${style}: x from a single $or`,
        { $or: [{ x: 1 }] },
        update,
        repl ? { _id: generated } : { _id: generated, a: 1, x: 1 },
        fields,
        true,
      ),
      up(
        `${style}: an array value`,
        { x: [1, 2] },
        update,
        repl ? { _id: generated } : { _id: generated, a: 1, x: [1, 2] },
        fields,
        true,
      ),
      up(
        `${style}: a document value with a dotted name`,
        { x: { 'x.x': 1 } },
        update,
        repl ? { _id: generated } : { _id: generated, a: 1, x: { 'x.x': 1 } },
        fields,
        true,
      ),
      up(`${style}: x not from $gt`, { x: { $gt: 1 } }, update, withA({ _id: generated })),
      up(
        `${style}: x not from $in of two`,
        { x: { $in: [1, 2] } },
        update,
        withA({ _id: generated }),
      ),
      up(`${style}: x not from $nor`, { $nor: [{ x: 1 }] }, update, withA({ _id: generated })),
      up(
        `${style}: nested x.x`,
        { 'x.x': 1 },
        update,
        repl ? { _id: generated } : { _id: generated, a: 1, x: { x: 1 } },
        fields,
        true,
      ),
      up(
        `${style}: nested x.x from $all`,
        { 'x.x': { $all: [1] } },
        update,
        repl ? { _id: generated } : { _id: generated, a: 1, x: { x: 1 } },
        fields,
        true,
      ),
      ...(repl
        ? [
            up(
              `${style}: conflicts outside _id are ignored`,
              { _id: 1, x: [1, { x: 1 }], 'x.x': 1 },
              update,
              { _id: 1 },
            ),
            up(`${style}: $all of two values is ignored`, { x: { $all: [1, 2] } }, update, {
              _id: generated,
            }),
          ]
        : [
            upError(`${style}: $all of two values`, { x: { $all: [1, 2] } }, update, 54),
            upError(`${style}: two equalities on x`, { $and: [{ x: 1 }, { x: 2 }] }, update, 54),
            upError(
              `${style}: x and x.x`,
              { x: 1, 'x.x': 1 },
              update,
              54,
              "cannot infer query fields to set, both paths 'x.x' and 'x' are matched",
            ),
            upError(`${style}: x document and x.y`, { x: { x: 1 }, 'x.y': 1 }, update, 54),
            upError(`${style}: x array and x.x`, { x: [1, { x: 1 }], 'x.x': 1 }, update, 54),
          ]),
    ];
  }),

  up(
    'regex value in a replacement is a value',
    {},
    { x: regex('abc') },
    { _id: generated, x: regex('abc') },
  ),
  up(
    'regex value in $set is a value',
    {},
    { $set: { x: regex('abc') } },
    { _id: generated, x: regex('abc') },
  ),
  up(
    'regex equality with $eq is extracted',
    { x: { $eq: regex('abc') } },
    { $set: { a: 1 } },
    { _id: generated, a: 1, x: regex('abc') },
    fields,
    true,
  ),
  up(
    'a regex in the query is not extracted',
    { x: regex('abc') },
    { $set: { a: 1 } },
    { _id: generated, a: 1 },
  ),
  up(
    'a DBRef $id in the query, then $set of the DBRef',
    { 'x.$id': 1 },
    { $set: { x: dbref('a', 1) } },
    { _id: generated, x: dbref('a', 1) },
  ),

  up(
    'fields from $and and the query',
    { _id: 1, $and: [{ c: 1 }, { d: 1 }], a: 12 },
    { $inc: { y: 1 } },
    { _id: 1, c: 1, d: 1, a: 12, y: 1 },
    and,
    true,
  ),
  up(
    'fields from $and with $setOnInsert _id',
    { $and: [{ c: 1 }, { d: 1 }] },
    { $setOnInsert: { _id: 1 } },
    { _id: 1, c: 1, d: 1 },
    and,
    true,
  ),
  up(
    'a single $or nested in $and',
    { $and: [{ c: 1 }, { d: 1 }, { $or: [{ x: 1 }] }] },
    { $setOnInsert: { _id: 1 } },
    { _id: 1, c: 1, d: 1, x: 1 },
    and,
    true,
  ),
  up(
    'a $or of two is ignored',
    { $and: [{ c: 1 }, { d: 1 }], $or: [{ x: 1 }, { x: 2 }] },
    { $setOnInsert: { _id: 1 } },
    { _id: 1, c: 1, d: 1 },
    and,
    true,
  ),
  up(
    'a range is ignored',
    { r: { $gt: 3 }, $and: [{ c: 1 }, { d: 1 }], $or: [{ x: 1 }, { x: 2 }] },
    { $setOnInsert: { _id: 1 } },
    { _id: 1, c: 1, d: 1 },
    and,
    true,
  ),
  up(
    'a regex is ignored',
    { r: regex('s'), $and: [{ c: 1 }, { d: 1 }], $or: [{ x: 1 }, { x: 2 }] },
    { $setOnInsert: { _id: 1 } },
    { _id: 1, c: 1, d: 1 },
    and,
    true,
  ),
  upError(
    'a field and an $and clause on it',
    { c: 2, $and: [{ c: 1 }, { d: 1 }] },
    { $setOnInsert: { _id: 1 } },
    54,
    undefined,
    and,
  ),

  up(
    '$inc and $setOnInsert on insert',
    { _id: 5 },
    { $inc: { x: 2 }, $setOnInsert: { a: 3 } },
    { _id: 5, a: 3, x: 2 },
    onInsert,
  ),
  upError(
    '$setOnInsert below a scalar _id',
    { _id: 1 },
    { $setOnInsert: { '_id.a': new Date(0) } },
    28,
    undefined,
    onInsert,
  ),
  upError(
    '$setOnInsert of _id.b with _id.a from the query',
    { '_id.a': 4 },
    { $setOnInsert: { '_id.b': 1 } },
    66,
    undefined,
    onInsert,
  ),
  upError(
    '$setOnInsert of a whole _id over _id.a from the query',
    { '_id.a': 4 },
    { $setOnInsert: { _id: { a: 4, b: 1 } } },
    66,
    undefined,
    onInsert,
  ),
  up(
    '$setOnInsert of the same _id as the query is a no-op on it',
    { _id: 1 },
    { $setOnInsert: { _id: 1, b: 2 } },
    { _id: 1, b: 2 },
    onInsert,
  ),

  up(
    'query fields first, then new fields in path order',
    { name: 'Andy' },
    { $inc: { score: 1 } },
    { _id: generated, name: 'Andy', score: 1 },
    'MongoDB manual, db.collection.update() (upsert)',
  ),
  up(
    'dotted query paths build documents',
    { 'a.b': 1, 'a.c': 2 },
    { $set: { d: 1 } },
    { _id: generated, a: { b: 1, c: 2 }, d: 1 },
    pathSupport,
  ),
  up(
    'a numeric path builds a document, not an array',
    { 'a.0': 4 },
    { $set: { b: 1 } },
    { _id: generated, a: { '0': 4 }, b: 1 },
    'jstests/core/query/set/set7.js',
  ),
  up(
    'an array from the query can be padded',
    { a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
    { $set: { 'a.11': 11 } },
    { _id: generated, a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
    'jstests/core/query/set/set7.js',
  ),
  up(
    '$in of one duplicated value counts as one',
    { x: { $in: [1, 1] } },
    { $set: { a: 1 } },
    { _id: generated, a: 1, x: 1 },
    `${pathSupport}; InMatchExpression keeps a set`,
    true,
  ),
  {
    name: '$setOnInsert with $[i] on an array from the query',
    source: 'jstests/core/write/update/update_arrayFilters.js',
    query: { _id: 0, a: [0] },
    update: { $setOnInsert: { 'a.$[i]': 1 } },
    arrayFilters: [{ i: 0 }],
    upsert: true,
    expect: { doc: { _id: 0, a: [1] }, modified: true },
  },
  up(
    '$setOnInsert with $[] on an array from the query',
    { _id: 0, a: [0] },
    { $setOnInsert: { 'a.$[]': 1 } },
    { _id: 0, a: [1] },
    'jstests/core/write/update/update_arrayFilters.js',
  ),
  up(
    '$addToSet $each on insert',
    { _id: 1 },
    { $addToSet: { a: { $each: [3, 5, 6] } } },
    { _id: 1, a: [3, 5, 6] },
    'jstests/core/write/update/update_addToSet.js',
  ),
  up(
    '$addToSet $each with duplicates on insert',
    { _id: 1 },
    { $addToSet: { a: { $each: [1, 2, 1, 2] } } },
    { _id: 1, a: [1, 2] },
    'jstests/core/write/update/update_addToSet.js',
  ),
  up(
    '$rename with a missing source on insert keeps the query field',
    { b: 1 },
    { $rename: { a: 'b' } },
    { _id: generated, b: 1 },
    'jstests/core/query/rename/rename_operator_missing_source.js',
  ),
  up(
    '$rename missing source with $inc on insert',
    { b: 1, c: 2 },
    { $rename: { a: 'b' }, $inc: { c: 1 } },
    { _id: generated, b: 1, c: 3 },
    'jstests/core/query/rename/rename_operator_missing_source.js',
  ),
  up(
    'a replacement upsert takes _id from the query',
    { _id: 4 },
    { x: 44 },
    { _id: 4, x: 44 },
    'spec test findOneAndReplace-upsert.json',
  ),
  up(
    'a replacement upsert with the same _id',
    { _id: 4 },
    { _id: 4, x: 44 },
    { _id: 4, x: 44 },
    'spec test findOneAndReplace-upsert.json',
  ),
  upError(
    'a replacement upsert with another _id',
    { _id: 4 },
    { _id: 5, x: 44 },
    66,
    "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 5.0",
    'mongod src/mongo/db/update/object_replace_executor.cpp',
  ),
  up(
    'an upsert may create top-level $-prefixed fields',
    { date: '2021-07-07' },
    { $set: { phone: 25.17, $hotel: 320.1 } },
    { _id: generated, date: '2021-07-07', $hotel: 320.1, phone: 25.17 },
    'MongoDB manual, Dollar-Prefixed Field Names (upserts are validated as inserts)',
  ),
  up(
    'a replacement upsert may hold top-level $-prefixed fields',
    {},
    { a: 1, $b: 2 },
    { _id: generated, a: 1, $b: 2 },
    'MongoDB manual, Dollar-Prefixed Field Names (upserts are validated as inserts)',
  ),
  upError(
    'the positional operator has no match on insert',
    { 'a.b': 1 },
    { $set: { 'a.$.c': 1 } },
    2,
    'The positional operator did not find the match needed from the query.',
    'mongod src/mongo/db/update/update_object_node.cpp',
  ),
  up(
    '_id is moved first',
    { b: 1 },
    { $set: { _id: 7 } },
    { _id: 7, b: 1 },
    'mongod src/mongo/db/update/produce_document_for_upsert.cpp (ensureIdFieldIsFirst)',
  ),
];
