// The order of new fields: updates apply to sibling fields in name order (5.0+), so new
// fields are appended in that order, whatever the order of the update's operators.

import type { UpdateCase } from './types.js';

const docs = 'MongoDB manual, Update Operators (behavior: lexicographic order of fields since 5.0)';
const tree = 'mongod src/mongo/db/update/update_object_node.cpp (children applied in map order)';

export const orderCases: UpdateCase[] = [
  {
    name: 'new fields appear in name order',
    source: docs,
    doc: { _id: 1, q: 1 },
    update: { $set: { z: 1, m: 1, b: 1 } },
    expect: { doc: { _id: 1, q: 1, b: 1, m: 1, z: 1 }, modified: true },
  },
  {
    name: 'new fields from several operators are merged in name order',
    source: tree,
    doc: { _id: 1 },
    update: { $set: { c: 1 }, $inc: { a: 1 }, $min: { b: 1 } },
    expect: { doc: { _id: 1, a: 1, b: 1, c: 1 }, modified: true },
  },
  {
    name: 'new subfields are ordered within their document',
    source: tree,
    doc: { _id: 1 },
    update: { $set: { 'a.z': 1, 'a.c': 1, 'b.y': 1 } },
    expect: { doc: { _id: 1, a: { c: 1, z: 1 }, b: { y: 1 } }, modified: true },
  },
  {
    name: 'existing fields keep their place',
    source: tree,
    doc: { _id: 1, z: 0, a: 0 },
    update: { $set: { a: 1, z: 1, m: 1 } },
    expect: { doc: { _id: 1, z: 1, a: 1, m: 1 }, modified: true },
  },
  {
    name: 'names compare by bytes: capitals before lowercase',
    source: tree,
    doc: { _id: 1 },
    update: { $set: { b: 1, B: 1, a: 1, A: 1 } },
    expect: { doc: { _id: 1, A: 1, B: 1, a: 1, b: 1 }, modified: true },
  },
  {
    name: 'a $-prefixed nested name sorts before letters',
    source: tree,
    doc: { _id: 1, a: {} },
    update: { $set: { 'a.x': 1, 'a.$y': 1 } },
    expect: { doc: { _id: 1, a: { $y: 1, x: 1 } }, modified: true },
  },
  {
    name: 'numeric names apply in numeric order',
    source: 'MongoDB manual, Update Operators (numeric field names in numeric order)',
    doc: { _id: 1, a: [] },
    update: { $set: { 'a.10': 10, 'a.9': 9, 'a.2': 2 } },
    expect: {
      doc: { _id: 1, a: [null, null, 2, null, null, null, null, null, null, 9, 10] },
      modified: true,
    },
  },
  {
    name: 'a renamed field is appended at its target name',
    source: 'mongod src/mongo/db/update/rename_node.cpp',
    doc: { _id: 1, a: 1, b: 2 },
    update: { $rename: { a: 'c' }, $set: { aa: 3 } },
    expect: { doc: { _id: 1, b: 2, aa: 3, c: 1 }, modified: true },
  },
];
