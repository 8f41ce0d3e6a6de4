// What mongod refuses when it parses an update, before touching any document.

import type { UpdateCase } from './types.js';

const driver = 'mongod src/mongo/db/update/update_driver.cpp';
const objectNode = 'mongod src/mongo/db/update/update_object_node.cpp';
const fieldChecker = 'mongod src/mongo/db/update/field_checker.cpp';
const af = 'jstests/core/write/update/update_arrayFilters.js';

const doc = { _id: 1, a: 1 };

export const parseCases: UpdateCase[] = [
  {
    name: 'unknown modifier',
    source: driver,
    doc,
    update: { $foo: { a: 1 } },
    expect: {
      error: 9,
      message:
        'Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array',
    },
  },
  {
    name: '$pushAll no longer exists',
    source: `${driver} (removed in 3.6)`,
    doc,
    update: { $pushAll: { a: [1] } },
    expect: { error: 9 },
  },
  {
    name: 'a plain field after a modifier is an unknown modifier',
    source: driver,
    doc,
    update: { $set: { a: 2 }, b: 1 },
    expect: {
      error: 9,
      message:
        'Unknown modifier: b. Expected a valid update modifier or pipeline-style update specified as an array',
    },
  },
  {
    name: 'a modifier must be given a document',
    source: driver,
    doc,
    update: { $set: 1 },
    expect: {
      error: 9,
      message:
        'Modifiers operate on fields but we found type double instead. For example: {$mod: {<field>: ...}} not {$set: 1.0}',
    },
  },
  {
    name: 'a modifier given an array',
    source: driver,
    doc,
    update: { $inc: [1] },
    expect: {
      error: 9,
      message:
        'Modifiers operate on fields but we found type array instead. For example: {$mod: {<field>: ...}} not {$inc: [ 1.0 ]}',
    },
  },
  {
    name: 'an empty modifier is a no-op (5.0+)',
    source: 'MongoDB manual, $set (an empty operand is a no-op since 5.0)',
    doc,
    update: { $set: {} },
    expect: { doc, modified: false },
  },
  {
    name: 'several empty modifiers are a no-op',
    source: 'MongoDB manual, $set',
    doc,
    update: { $set: {}, $unset: {}, $inc: {} },
    expect: { doc, modified: false },
  },
  {
    name: 'two operators on one path conflict',
    source: objectNode,
    doc,
    update: { $set: { a: 1 }, $inc: { a: 1 } },
    expect: { error: 40, message: "Updating the path 'a' would create a conflict at 'a'" },
  },
  {
    name: 'a path and its prefix conflict',
    source: objectNode,
    doc,
    update: { $set: { a: 1, 'a.b': 1 } },
    expect: { error: 40, message: "Updating the path 'a.b' would create a conflict at 'a'" },
  },
  {
    name: 'a prefix after its path conflicts',
    source: objectNode,
    doc,
    update: { $set: { 'a.b': 1 }, $unset: { a: 1 } },
    expect: { error: 40, message: "Updating the path 'a' would create a conflict at 'a'" },
  },
  {
    name: 'deep prefixes conflict at the shorter path',
    source: objectNode,
    doc,
    update: { $set: { 'a.b.c': 1 }, $inc: { 'a.b': 1 } },
    expect: { error: 40, message: "Updating the path 'a.b' would create a conflict at 'a.b'" },
  },
  {
    name: 'siblings do not conflict',
    source: objectNode,
    doc: { _id: 1 },
    update: { $set: { 'a.b': 1, 'a.c': 2 } },
    expect: { doc: { _id: 1, a: { b: 1, c: 2 } }, modified: true },
  },
  {
    name: 'a name that extends another does not conflict',
    source: objectNode,
    doc: { _id: 1 },
    update: { $set: { a: 1, ab: 2 } },
    expect: { doc: { _id: 1, a: 1, ab: 2 }, modified: true },
  },
  {
    name: 'an empty path',
    source: fieldChecker,
    doc,
    update: { $set: { '': 1 } },
    expect: { error: 56, message: 'An empty update path is not valid.' },
  },
  {
    name: 'an empty part in a path',
    source: fieldChecker,
    doc,
    update: { $set: { 'a..b': 1 } },
    expect: {
      error: 56,
      message: "The update path 'a..b' contains an empty field name, which is not allowed.",
    },
  },
  {
    name: 'a trailing dot',
    source: fieldChecker,
    doc,
    update: { $unset: { 'a.': 1 } },
    expect: { error: 56 },
  },
  {
    name: 'pipeline updates are not implemented here yet',
    source: 'project (NotImplemented until the aggregation layer lands)',
    doc,
    update: [{ $set: { a: 2 } }],
    expect: { error: 238 },
  },
  {
    name: 'pipeline updates refuse arrayFilters',
    source: driver,
    doc,
    update: [{ $set: { a: 2 } }],
    arrayFilters: [{ i: 0 }],
    expect: { error: 9, message: 'arrayFilters may not be specified for pipeline-style updates' },
  },
  {
    name: 'a replacement refuses multi',
    source: driver,
    doc,
    update: { a: 2 },
    multi: true,
    expect: { error: 9, message: 'multi update is not supported for replacement-style update' },
  },
  {
    name: 'an operator update with multi is fine',
    source: driver,
    doc,
    update: { $set: { a: 2 } },
    multi: true,
    expect: { doc: { _id: 1, a: 2 }, modified: true },
  },

  // arrayFilters
  {
    name: 'an array filter over two names fails',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 5 } },
    arrayFilters: [{ i: 0, j: 0 }],
    expect: {
      error: 9,
      message:
        "Error parsing array filter :: caused by :: Expected a single top-level field name, found 'i' and 'j'",
    },
  },
  {
    name: 'two array filters with one name fail',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 5, 'a.$[j]': 6 } },
    arrayFilters: [{ i: 0 }, { j: 0 }, { i: 1 }],
    expect: {
      error: 9,
      message: 'Found multiple array filters with the same top-level field name i',
    },
  },
  {
    name: 'an unused array filter fails',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 5 } },
    arrayFilters: [{ i: 0 }, { j: 0 }],
    expect: {
      error: 9,
      message:
        "The array filter for identifier 'j' was not used in the update { $set: { a.$[i]: 5.0 } }",
    },
  },
  {
    name: 'an array filter without a field name fails',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 5 } },
    arrayFilters: [{ $alwaysTrue: 1 }],
    expect: {
      error: 9,
      message: 'Cannot use an expression without a top-level field name in arrayFilters',
    },
  },
  {
    name: 'an empty array filter has no field name',
    source: 'mongod src/mongo/db/matcher/expression_with_placeholder.cpp',
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 5 } },
    arrayFilters: [{}],
    expect: { error: 9 },
  },
  {
    name: 'an array filter with $expr fails',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 5 } },
    arrayFilters: [{ $expr: { $eq: ['$foo', '$bar'] } }],
    expect: { error: 224 },
  },
  {
    name: 'an array filter with a $-prefixed name is an unknown operator',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[$i]': 1 } },
    arrayFilters: [{ $i: 0 }],
    expect: { error: 2, message: /unknown top level operator: \$i/ },
  },
  {
    name: 'an identifier must start with a lowercase letter',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[I]': 1 } },
    arrayFilters: [{ I: 0 }],
    expect: {
      error: 2,
      message:
        "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found 'I'",
    },
  },
  {
    name: 'an identifier may not contain punctuation',
    source: 'mongod src/mongo/db/matcher/expression_with_placeholder.cpp',
    doc: { _id: 0 },
    update: { $set: { 'a.$[a_b]': 1 } },
    arrayFilters: [{ a_b: 0 }],
    expect: { error: 2 },
  },
  {
    name: 'a logical array filter over one name (the empty $and matches every element)',
    source: af,
    doc: { _id: 0, a: [0, 1] },
    update: { $set: { 'a.$[i]': 5 } },
    arrayFilters: [{ $or: [{ i: 0 }, { $and: [{}] }] }],
    expect: { doc: { _id: 0, a: [5, 5] }, modified: true },
  },
  {
    name: 'an identifier without an array filter fails',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 0 } },
    expect: { error: 2, message: "No array filter found for identifier 'i' in path 'a.$[i]'" },
  },
  {
    name: '$[i] and $ at one place conflict',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 0, 'a.$': 0 } },
    arrayFilters: [{ i: 0 }],
    expect: { error: 40, message: "Updating the path 'a.$' would create a conflict at 'a'" },
  },
  {
    name: '$[i] and an index at one place conflict',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 0, 'a.0': 0 } },
    arrayFilters: [{ i: 0 }],
    expect: { error: 40, message: "Updating the path 'a.0' would create a conflict at 'a'" },
  },
  {
    name: '$[i] and a field name at one place conflict',
    source: af,
    doc: { _id: 0 },
    update: { $set: { 'a.$[i]': 0, 'a.b': 0 } },
    arrayFilters: [{ i: 0 }],
    expect: { error: 40, message: "Updating the path 'a.b' would create a conflict at 'a'" },
  },
  {
    name: 'two array filters used by two paths',
    source: af,
    doc: { _id: 0, a: [0, 1, 2] },
    update: { $set: { 'a.$[i]': 5, 'a.$[j]': 6 } },
    arrayFilters: [{ i: 0 }, { j: 1 }],
    expect: { doc: { _id: 0, a: [5, 6, 2] }, modified: true },
  },
];
