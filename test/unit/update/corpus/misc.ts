// $bit and $currentDate.

import { NumberInt, NumberLong, ts } from '../values.js';
import type { UpdateCase } from './types.js';
import { NEXT_TS, NOW } from './types.js';

const bitExamples = 'jstests/core/write/update/update_bit_examples.js';
const docsBit = 'MongoDB manual, $bit';
const bitNode = 'mongod src/mongo/db/update/bit_node.cpp';
const dateNode = 'mongod src/mongo/db/update/current_date_node.cpp';
const docsDate = 'MongoDB manual, $currentDate';

export const miscCases: UpdateCase[] = [
  {
    name: '$bit and',
    source: bitExamples,
    doc: { _id: 1, a: NumberInt(2) },
    update: { $bit: { a: { and: NumberInt(4) } } },
    expect: { doc: { _id: 1, a: NumberInt(0) }, modified: true },
  },
  {
    name: '$bit or',
    source: bitExamples,
    doc: { _id: 1, a: NumberInt(2) },
    update: { $bit: { a: { or: NumberInt(4) } } },
    expect: { doc: { _id: 1, a: NumberInt(6) }, modified: true },
  },
  {
    name: '$bit xor',
    source: bitExamples,
    doc: { _id: 1, a: NumberInt(0) },
    update: { $bit: { a: { xor: NumberInt(4) } } },
    expect: { doc: { _id: 1, a: NumberInt(4) }, modified: true },
  },
  {
    name: '$bit with no operation fails',
    source: bitExamples,
    doc: { _id: 1, a: NumberInt(4) },
    update: { $bit: { a: {} } },
    expect: {
      error: 2,
      message:
        'You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}',
    },
  },
  {
    name: '$bit pads an array for new indexes',
    source: bitExamples,
    doc: { _id: 2, a: [0] },
    update: { $bit: { 'a.9': { or: NumberInt(0) }, 'a.10': { or: NumberInt(0) } } },
    expect: {
      doc: {
        _id: 2,
        a: [0, null, null, null, null, null, null, null, null, NumberInt(0), NumberInt(0)],
      },
      modified: true,
    },
  },
  {
    name: '$bit and of int32 fields',
    source: docsBit,
    doc: { _id: 1, expdata: NumberInt(13) },
    update: { $bit: { expdata: { and: NumberInt(10) } } },
    expect: { doc: { _id: 1, expdata: NumberInt(8) }, modified: true },
  },
  {
    name: '$bit or of an int64 with an int32 gives int64',
    source: docsBit,
    doc: { _id: 2, expdata: NumberLong(3) },
    update: { $bit: { expdata: { or: NumberInt(5) } } },
    expect: { doc: { _id: 2, expdata: NumberLong(7) }, modified: true },
  },
  {
    name: '$bit xor of an int64',
    source: docsBit,
    doc: { _id: 3, expdata: NumberLong(1) },
    update: { $bit: { expdata: { xor: NumberInt(5) } } },
    expect: { doc: { _id: 3, expdata: NumberLong(4) }, modified: true },
  },
  {
    name: '$bit of int32 with an int64 operand gives int64',
    source: 'mongod src/mongo/util/safe_num.cpp (andInternal)',
    doc: { _id: 1, a: NumberInt(6) },
    update: { $bit: { a: { and: NumberLong(3) } } },
    expect: { doc: { _id: 1, a: NumberLong(2) }, modified: true },
  },
  {
    name: '$bit that changes nothing is a no-op',
    source: bitNode,
    doc: { _id: 1, a: NumberInt(6) },
    update: { $bit: { a: { or: NumberInt(2) } } },
    expect: { doc: { _id: 1, a: NumberInt(6) }, modified: false },
  },
  {
    name: '$bit applies operations in order',
    source: bitNode,
    doc: { _id: 1, a: NumberInt(12) },
    update: { $bit: { a: { and: NumberInt(10), or: NumberInt(1) } } },
    expect: { doc: { _id: 1, a: NumberInt(9) }, modified: true },
  },
  {
    name: '$bit of a missing field starts from int32 0',
    source: bitNode,
    doc: { _id: 1 },
    update: { $bit: { a: { or: NumberInt(5) } } },
    expect: { doc: { _id: 1, a: NumberInt(5) }, modified: true },
  },
  {
    name: '$bit of a missing field with int64 gives int64',
    source: bitNode,
    doc: { _id: 1 },
    update: { $bit: { a: { xor: NumberLong(5) } } },
    expect: { doc: { _id: 1, a: NumberLong(5) }, modified: true },
  },
  {
    name: '$bit of negative int32',
    source: bitNode,
    doc: { _id: 1, a: NumberInt(-1) },
    update: { $bit: { a: { and: NumberInt(255) } } },
    expect: { doc: { _id: 1, a: NumberInt(255) }, modified: true },
  },
  {
    name: '$bit on a double fails',
    source: bitNode,
    doc: { _id: 1, a: 1 },
    update: { $bit: { a: { and: NumberInt(1) } } },
    expect: {
      error: 2,
      message:
        'Cannot apply $bit to a value of non-integral type._id: 1.0 has the field a of non-integer type double',
    },
  },
  {
    name: '$bit on a timestamp fails',
    source: bitNode,
    doc: { _id: 1, a: ts(1, 2) },
    update: { $bit: { a: { or: NumberInt(1) } } },
    expect: {
      error: 2,
      message:
        'Cannot apply $bit to a value of non-integral type._id: 1.0 has the field a of non-integer type timestamp',
    },
  },
  {
    name: '$bit with a double operand fails',
    source: bitNode,
    doc: { _id: 1, a: NumberInt(1) },
    update: { $bit: { a: { and: 1 } } },
    expect: {
      error: 2,
      message:
        "The $bit modifier field must be an Integer(32/64 bit); a 'double' is not supported here: {and: 1.0}",
    },
  },
  {
    name: '$bit with an unknown operation fails',
    source: bitNode,
    doc: { _id: 1, a: NumberInt(1) },
    update: { $bit: { a: { not: NumberInt(1) } } },
    expect: {
      error: 2,
      message:
        "The $bit modifier only supports 'and', 'or', and 'xor', not 'not' which is an unknown operator: {not: 1}",
    },
  },
  {
    name: '$bit needs a document',
    source: bitNode,
    doc: { _id: 1, a: NumberInt(1) },
    update: { $bit: { a: NumberInt(5) } },
    expect: {
      error: 2,
      message:
        'The $bit modifier is not compatible with a int. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}',
    },
  },

  // $currentDate (the clock is fixed by the test runner: NOW and NEXT_TS)
  {
    name: '$currentDate true sets a date',
    source: docsDate,
    doc: { _id: 1, status: 'a' },
    update: { $currentDate: { lastModified: true } },
    expect: { doc: { _id: 1, status: 'a', lastModified: NOW }, modified: true },
  },
  {
    name: '$currentDate with $type date and timestamp',
    source: docsDate,
    doc: { _id: 1, status: 'a', cancellation: { date: 1 } },
    update: {
      $currentDate: { lastModified: true, 'cancellation.date': { $type: 'timestamp' } },
      $set: { 'cancellation.reason': 'user request', status: 'D' },
    },
    expect: {
      doc: {
        _id: 1,
        status: 'D',
        cancellation: { date: ts(NEXT_TS.t, NEXT_TS.i), reason: 'user request' },
        lastModified: NOW,
      },
      modified: true,
    },
  },
  {
    name: '$currentDate false also sets a date',
    source: dateNode,
    doc: { _id: 1 },
    update: { $currentDate: { a: false } },
    expect: { doc: { _id: 1, a: NOW }, modified: true },
  },
  {
    name: '$currentDate $type date',
    source: dateNode,
    doc: { _id: 1 },
    update: { $currentDate: { a: { $type: 'date' } } },
    expect: { doc: { _id: 1, a: NOW }, modified: true },
  },
  {
    name: '$currentDate over the same date still counts as a change',
    source: dateNode,
    doc: { _id: 1, a: NOW },
    update: { $currentDate: { a: true } },
    expect: { doc: { _id: 1, a: NOW }, modified: true },
  },
  {
    name: '$currentDate with a bad $type fails',
    source: dateNode,
    doc: { _id: 1 },
    update: { $currentDate: { a: { $type: 'string' } } },
    expect: {
      error: 2,
      message:
        "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}",
    },
  },
  {
    name: '$currentDate with an unknown option fails',
    source: dateNode,
    doc: { _id: 1 },
    update: { $currentDate: { a: { $type: 'date', x: 1 } } },
    expect: { error: 2, message: 'Unrecognized $currentDate option: x' },
  },
  {
    name: '$currentDate with a number fails',
    source: dateNode,
    doc: { _id: 1 },
    update: { $currentDate: { a: 1 } },
    expect: {
      error: 2,
      message:
        "double is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).",
    },
  },
  {
    name: '$currentDate through a scalar fails',
    source: dateNode,
    doc: { _id: 1, a: 1 },
    update: { $currentDate: { 'a.b': true } },
    expect: { error: 28 },
  },
  {
    name: '$currentDate with $[]',
    source: 'jstests/core/write/update/update_arrayFilters.js',
    doc: { _id: 0, a: [0, 1] },
    update: { $currentDate: { 'a.$[]': true } },
    expect: { doc: { _id: 0, a: [NOW, NOW] }, modified: true },
  },
];
