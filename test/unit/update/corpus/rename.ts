// $rename.

import { NumberLong } from '../values.js';
import type { UpdateCase } from './types.js';

const op = 'jstests/core/query/rename/rename_operator.js';
const missing = 'jstests/core/query/rename/rename_operator_missing_source.js';
const node = 'mongod src/mongo/db/update/rename_node.cpp';
const docs = 'MongoDB manual, $rename';

function bad(name: string, doc: unknown, update: unknown, error: number, message?: string): UpdateCase {
  return { name, source: `${op} (any error), code from ${node}`, doc, update, expect: message === undefined ? { error } : { error, message } };
}

function good(name: string, doc: unknown, update: unknown, expected: unknown, modified = true, source = op): UpdateCase {
  return { name, source, doc, update, expect: { doc: expected, modified } };
}

const arrays = { _id: 1, a: [1], b: { c: [2] }, d: [{ e: 3 }], f: 4 };

export const renameCases: UpdateCase[] = [
  bad('source and target must differ', { _id: 1 }, { $rename: { a: 'a' } }, 2, 'The source and target field for $rename must differ: a: "a"'),
  bad('empty source path', { _id: 1 }, { $rename: { '': 'a' } }, 56, 'An empty update path is not valid.'),
  bad('empty target path', { _id: 1 }, { $rename: { a: '' } }, 56, 'An empty update path is not valid.'),
  bad('source with an empty first part', { _id: 1 }, { $rename: { '.a': 'b' } }, 56),
  bad('target with an empty first part', { _id: 1 }, { $rename: { a: '.b' } }, 56),
  bad('source with an empty last part', { _id: 1 }, { $rename: { 'a.': 'b' } }, 56),
  bad('target with an empty last part', { _id: 1 }, { $rename: { a: 'b.' } }, 56, "The update path 'b.' contains an empty field name, which is not allowed."),
  bad('target is a prefix of the source', { _id: 1 }, { $rename: { 'a.b': 'a' } }, 2, 'The source and target field for $rename must not be on the same path: a.b: "a"'),
  bad('source may not be positional', { _id: 1 }, { $rename: { 'a.$': 'b' } }, 2, 'The source field for $rename may not be dynamic: a.$'),
  bad('target may not be positional', { _id: 1 }, { $rename: { a: 'b.$' } }, 2, 'The destination field for $rename may not be dynamic: b.$'),
  bad('target must be a string', { _id: 1 }, { $rename: { a: 1 } }, 2, "The 'to' field for $rename must be a string: a: 1.0"),
  bad('renaming _id fails', { _id: 1, a: 2 }, { $rename: { _id: 'a' } }, 66),
  bad('$set of the target conflicts', { _id: 1, a: 2 }, { $set: { b: 1 }, $rename: { a: 'b' } }, 40, "Updating the path 'b' would create a conflict at 'b'"),
  bad('$set of the target conflicts (other order)', { _id: 1, a: 2 }, { $rename: { a: 'b' }, $set: { b: 1 } }, 40),
  bad('$set of the source conflicts', { _id: 1, a: 2 }, { $rename: { a: 'b' }, $set: { a: 1 } }, 40, "Updating the path 'a' would create a conflict at 'a'"),
  bad('$set below the target conflicts', { _id: 1, a: 2 }, { $set: { 'b.c': 1 }, $rename: { a: 'b' } }, 40),
  bad('target below a $set conflicts', { _id: 1, a: 2 }, { $set: { b: 1 }, $rename: { a: 'b.c' } }, 40, "Updating the path 'b.c' would create a conflict at 'b'"),
  bad('$set below the target conflicts (rename first)', { _id: 1, a: 2 }, { $rename: { a: 'b' }, $set: { 'b.c': 1 } }, 40),
  bad('$set above the target conflicts (rename first)', { _id: 1, a: 2 }, { $rename: { a: 'b.c' }, $set: { b: 1 } }, 40),
  bad('source inside an array', arrays, { $rename: { 'a.0': 'f' } }, 2, "The source field cannot be an array element, 'a.0' in doc with _id: 1.0 has an array field called 'a'"),
  bad('source inside an array, new target', arrays, { $rename: { 'a.0': 'g' } }, 2),
  bad('target inside an array', arrays, { $rename: { f: 'a.0' } }, 2, "The destination field cannot be an array element, 'a.0' in doc with _id: 1.0 has an array field called 'a'"),
  bad('source inside a nested array', arrays, { $rename: { 'b.c.0': 'f' } }, 2),
  bad('target inside a nested array', arrays, { $rename: { f: 'b.c.0' } }, 2),
  bad('source through an array by field name', arrays, { $rename: { 'd.e': 'd.f' } }, 28),
  bad('source through an array by field name, top-level target', arrays, { $rename: { 'd.e': 'f' } }, 28),
  bad('missing source through an array by field name', arrays, { $rename: { 'd.f': 'd.e' } }, 28),
  bad('target through an array by field name', arrays, { $rename: { f: 'd.e' } }, 2, "The destination field cannot be an array element, 'd.e' in doc with _id: 1.0 has an array field called 'd'"),
  bad('source in an array element document', arrays, { $rename: { 'd.0.e': 'd.f' } }, 2),
  bad('source in an array element document, top-level target', arrays, { $rename: { 'd.0.e': 'f' } }, 2),
  bad('missing source through an array, target in an element', arrays, { $rename: { 'd.f': 'd.0.e' } }, 28),
  bad('target in an array element document', arrays, { $rename: { f: 'd.0.e' } }, 2),
  bad('source through a scalar', arrays, { $rename: { 'f.g': 'a' } }, 28, 'cannot use the part (f of f.g) to traverse the element ({f: 4.0})'),
  bad('target through a scalar', arrays, { $rename: { a: 'f.g' } }, 28, "Cannot create field 'g' in element {f: 4.0}"),
  bad('$[] in the source', { _id: 0, a: [0], b: [1] }, { $rename: { 'a.$[]': 'b' } }, 2, 'The source field for $rename may not be dynamic: a.$[]'),
  bad('$[] in the target', { _id: 0, a: [0], b: [1] }, { $rename: { a: 'b.$[]' } }, 2, 'The destination field for $rename may not be dynamic: b.$[]'),

  good('rename to a new field', { _id: 1, a: 1 }, { $rename: { a: 'b' } }, { _id: 1, b: 1 }),
  good('rename to a longer name', { _id: 1, a: 1 }, { $rename: { a: 'bb' } }, { _id: 1, bb: 1 }),
  good('rename to an earlier name', { _id: 1, b: 1 }, { $rename: { b: 'a' } }, { _id: 1, a: 1 }),
  good('rename within a subdocument', { _id: 1, a: { y: 1 } }, { $rename: { 'a.y': 'a.z' } }, { _id: 1, a: { z: 1 } }),
  good('rename a subdocument', { _id: 1, a: { c: 1 } }, { $rename: { a: 'b' } }, { _id: 1, b: { c: 1 } }),
  good('rename over an existing field keeps its position', { _id: 1, a: 1, b: 2 }, { $rename: { a: 'b' } }, { _id: 1, b: 1 }),
  good('rename over an existing field (longer source)', { _id: 1, aa: 1, b: 2 }, { $rename: { aa: 'b' } }, { _id: 1, b: 1 }),
  good('rename into a new subdocument', { _id: 1, a: 1 }, { $rename: { a: 'b.c' } }, { _id: 1, b: { c: 1 } }),
  good('rename into an existing empty subdocument', { _id: 1, a: 1, b: {} }, { $rename: { a: 'b.c' } }, { _id: 1, b: { c: 1 } }),
  good('missing source is a no-op', { _id: 1, a: 1 }, { $rename: { b: 'c' } }, { _id: 1, a: 1 }, false),
  good('missing source on an empty document', { _id: 1 }, { $rename: { b: 'c' } }, { _id: 1 }, false),
  good('rename out of a subdocument', { _id: 1, a: { b: 1, c: 2 } }, { $rename: { 'a.b': 'd' } }, { _id: 1, a: { c: 2 }, d: 1 }),
  good('rename the last field out of a subdocument', { _id: 1, a: { b: 1 } }, { $rename: { 'a.b': 'd' } }, { _id: 1, a: {}, d: 1 }),
  good('rename an array field', { _id: 1, a: [5] }, { $rename: { a: 'b' } }, { _id: 1, b: [5] }),
  good('rename with $set of another field', { _id: 1, a: 1, b: 2 }, { $rename: { a: 'c' }, $set: { b: 5 } }, { _id: 1, b: 5, c: 1 }),
  good('missing source with $set', { _id: 1, a: 1, b: 2 }, { $rename: { z: 'c' }, $set: { b: 5 } }, { _id: 1, a: 1, b: 5 }),
  good('rename within a subdocument appends the new name', { _id: 1, a: { z: 1, b: 1 } }, { $rename: { 'a.b': 'a.c' } }, { _id: 1, a: { z: 1, c: 1 } }, true, `${op} (values); ${node} (a created field is appended)`),
  good('rename over an existing sibling', { _id: 1, a: { z: 1, b: 1, c: 1 } }, { $rename: { 'a.b': 'a.c' } }, { _id: 1, a: { z: 1, c: 1 } }, true, `${op} (values); ${node}`),
  good('rename into another subdocument', { _id: 1, a: { z: 1, b: 1, c: 1 } }, { $rename: { 'a.b': 'aa.c' } }, { _id: 1, a: { z: 1, c: 1 }, aa: { c: 1 } }),
  good('invalid target but missing source', { _id: 1, a: 1, c: 4 }, { $rename: { b: 'c.d' } }, { _id: 1, a: 1, c: 4 }, false),
  good('rename over a target with an equal value of another type changes the type', { _id: 1, to: NumberLong(100), from: 100 }, { $rename: { from: 'to' } }, { _id: 1, to: 100 }, true, 'jstests/core/query/rename/rename_operator_change_target_type.js'),
  good('rename missing source keeps the target', { _id: 1, b: 1 }, { $rename: { a: 'b' } }, { _id: 1, b: 1 }, false, missing),
  good('rename missing source with $inc', { _id: 1, b: 1, x: 1 }, { $rename: { a: 'b' }, $inc: { x: 1 } }, { _id: 1, b: 1, x: 2 }, true, missing),
  good('two renames, one with a missing source', { _id: 1, b: 1, x: 1 }, { $rename: { a: 'b', x: 'y' } }, { _id: 1, b: 1, y: 1 }, true, missing),
  good(
    'rename a misspelled field',
    { _id: 1, alias: ['The American Cincinnatus', 'The American Fabius'], mobile: '555-555-5555', nmae: { first: 'george', last: 'washington' } },
    { $rename: { nmae: 'name' } },
    { _id: 1, alias: ['The American Cincinnatus', 'The American Fabius'], mobile: '555-555-5555', name: { first: 'george', last: 'washington' } },
    true,
    docs,
  ),
  good(
    'rename a field in an embedded document',
    { _id: 1, name: { first: 'george', last: 'washington' } },
    { $rename: { 'name.first': 'name.fname' } },
    { _id: 1, name: { last: 'washington', fname: 'george' } },
    true,
    docs,
  ),
  good('rename a field that does not exist', { _id: 1, a: 1 }, { $rename: { wife: 'spouse' } }, { _id: 1, a: 1 }, false, docs),
];
