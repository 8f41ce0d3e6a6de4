// $inc and $mul: numeric types and their promotion.

import { NumberDecimal, NumberInt, NumberLong, ts } from '../values.js';
import type { UpdateCase } from './types.js';

const inc1 = 'jstests/core/query/inc/inc1.js';
const overflow = 'jstests/core/query/inc/inc_negative_overflow.js';
const docsInc = 'MongoDB manual, $inc';
const docsMul = 'MongoDB manual, $mul';
const mulExamples = 'jstests/core/write/update/update_mul_examples.js';
const safeNum = 'mongod src/mongo/util/safe_num.cpp + src/mongo/db/update/arithmetic_node.cpp';

export const arithmeticCases: UpdateCase[] = [
  {
    name: '$inc by 1',
    source: inc1,
    doc: { _id: 1, x: 1 },
    update: { $inc: { x: 1 } },
    expect: { doc: { _id: 1, x: 2 }, modified: true },
  },
  {
    name: '$inc by 2',
    source: inc1,
    doc: { _id: 1, x: 3 },
    update: { $inc: { x: 2 } },
    expect: { doc: { _id: 1, x: 5 }, modified: true },
  },
  {
    name: '$inc by -1',
    source: inc1,
    doc: { _id: 1, x: 5 },
    update: { $inc: { x: -1 } },
    expect: { doc: { _id: 1, x: 4 }, modified: true },
  },
  {
    name: '$inc two fields keeps their order',
    source: 'jstests/core/query/inc/inc3.js',
    doc: { _id: 1, z: 1, a: 1 },
    update: { $inc: { a: 1, z: 1 } },
    expect: { doc: { _id: 1, z: 2, a: 2 }, modified: true },
  },
  {
    name: '$inc a field and an embedded field',
    source: docsInc,
    doc: { _id: 1, sku: 'abc123', quantity: 10, metrics: { orders: 2, ratings: 3.5 } },
    update: { $inc: { quantity: -2, 'metrics.orders': 1 } },
    expect: {
      doc: { _id: 1, sku: 'abc123', quantity: 8, metrics: { orders: 3, ratings: 3.5 } },
      modified: true,
    },
  },
  {
    name: '$inc of a missing field creates it with the argument',
    source: docsInc,
    doc: { _id: 1 },
    update: { $inc: { a: NumberInt(5) } },
    expect: { doc: { _id: 1, a: NumberInt(5) }, modified: true },
  },
  {
    name: '$inc of a missing embedded field creates the path',
    source: docsInc,
    doc: { _id: 1 },
    update: { $inc: { 'a.b': NumberLong(2) } },
    expect: { doc: { _id: 1, a: { b: NumberLong(2) } }, modified: true },
  },
  {
    name: '$inc of a null field fails',
    source: docsInc,
    doc: { _id: 1, a: null },
    update: { $inc: { a: 1 } },
    expect: {
      error: 14,
      message:
        "Cannot apply $inc to a value of non-numeric type. {_id: 1.0} has the field 'a' of non-numeric type null",
    },
  },
  {
    name: '$inc of a string field fails',
    source: safeNum,
    doc: { _id: 1, a: 'x' },
    update: { $inc: { a: 1 } },
    expect: {
      error: 14,
      message:
        "Cannot apply $inc to a value of non-numeric type. {_id: 1.0} has the field 'a' of non-numeric type string",
    },
  },
  {
    name: '$inc of a timestamp fails',
    source: safeNum,
    doc: { _id: 1, a: ts(1, 2) },
    update: { $inc: { a: 1 } },
    expect: {
      error: 14,
      message:
        "Cannot apply $inc to a value of non-numeric type. {_id: 1.0} has the field 'a' of non-numeric type timestamp",
    },
  },
  {
    name: '$inc by a timestamp fails at parse',
    source: safeNum,
    doc: { _id: 1, a: 1 },
    update: { $inc: { a: ts(1, 2) } },
    expect: {
      error: 14,
      message: 'Cannot increment with non-numeric argument: {a: Timestamp(1, 2)}',
    },
  },
  {
    name: '$inc with a non-numeric argument fails at parse',
    source: safeNum,
    doc: { _id: 1, a: 1 },
    update: { $inc: { a: 'x' } },
    expect: { error: 14, message: 'Cannot increment with non-numeric argument: {a: "x"}' },
  },
  {
    name: '$inc int32 + int32 stays int32',
    source: safeNum,
    doc: { _id: 1, a: NumberInt(1) },
    update: { $inc: { a: NumberInt(2) } },
    expect: { doc: { _id: 1, a: NumberInt(3) }, modified: true },
  },
  {
    name: '$inc int32 past its maximum becomes int64',
    source: overflow,
    doc: { _id: 1, a: NumberInt(2147483647) },
    update: { $inc: { a: NumberInt(1) } },
    expect: { doc: { _id: 1, a: NumberLong('2147483648') }, modified: true },
  },
  {
    name: '$inc int32 below its minimum becomes int64',
    source: overflow,
    doc: { _id: 1, a: NumberInt(-2147483648) },
    update: { $inc: { a: NumberInt(-1) } },
    expect: { doc: { _id: 1, a: NumberLong('-2147483649') }, modified: true },
  },
  {
    name: '$inc int64 past its maximum fails',
    source: overflow,
    doc: { _id: 1, a: NumberLong('9223372036854775807') },
    update: { $inc: { a: NumberInt(1) } },
    expect: {
      error: 2,
      message:
        'Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for document {_id: 1.0}',
    },
  },
  {
    name: '$inc int64 below its minimum fails',
    source: overflow,
    doc: { _id: 1, a: NumberLong('-9223372036854775808') },
    update: { $inc: { a: NumberInt(-1) } },
    expect: { error: 2 },
  },
  {
    name: '$inc int32 by int64 gives int64',
    source: safeNum,
    doc: { _id: 1, a: NumberInt(1) },
    update: { $inc: { a: NumberLong(1) } },
    expect: { doc: { _id: 1, a: NumberLong(2) }, modified: true },
  },
  {
    name: '$inc int32 by a double gives a double',
    source: safeNum,
    doc: { _id: 1, a: NumberInt(1) },
    update: { $inc: { a: 0.5 } },
    expect: { doc: { _id: 1, a: 1.5 }, modified: true },
  },
  {
    name: '$inc a double by an int32 stays a double',
    source: safeNum,
    doc: { _id: 1, a: 1.5 },
    update: { $inc: { a: NumberInt(1) } },
    expect: { doc: { _id: 1, a: 2.5 }, modified: true },
  },
  {
    name: '$inc int64 by a double gives a double',
    source: safeNum,
    doc: { _id: 1, a: NumberLong(10) },
    update: { $inc: { a: 0.25 } },
    expect: { doc: { _id: 1, a: 10.25 }, modified: true },
  },
  {
    name: '$inc int32 by double 0.0 changes the type to double',
    source: safeNum,
    doc: { _id: 1, a: NumberInt(1) },
    update: { $inc: { a: 0 } },
    expect: { doc: { _id: 1, a: 1 }, modified: true },
  },
  {
    name: '$inc by 0 of the same type is a no-op',
    source: safeNum,
    doc: { _id: 1, a: NumberInt(7) },
    update: { $inc: { a: NumberInt(0) } },
    expect: { doc: { _id: 1, a: NumberInt(7) }, modified: false },
  },
  {
    name: '$inc a decimal by a decimal keeps the exponent rules (1.10 + 2.20 = 3.30)',
    source: 'IEEE 754-2008 decimal addition, as mongod Decimal128::add',
    doc: { _id: 1, a: NumberDecimal('1.10') },
    update: { $inc: { a: NumberDecimal('2.20') } },
    expect: { doc: { _id: 1, a: NumberDecimal('3.30') }, modified: true },
  },
  {
    name: '$inc a decimal by a double converts the double with 15 digits',
    source: 'mongod src/mongo/util/safe_num.cpp (getDecimal: Decimal128(double, kRoundTo15Digits))',
    doc: { _id: 1, a: NumberDecimal('1') },
    update: { $inc: { a: 0.1 } },
    expect: { doc: { _id: 1, a: NumberDecimal('1.100000000000000') }, modified: true },
  },
  {
    name: '$inc an int32 by a decimal gives a decimal',
    source: safeNum,
    doc: { _id: 1, a: NumberInt(2) },
    update: { $inc: { a: NumberDecimal('0.5') } },
    expect: { doc: { _id: 1, a: NumberDecimal('2.5') }, modified: true },
  },
  {
    name: '$inc a decimal by a numerically zero decimal is a no-op',
    source: 'mongod src/mongo/util/safe_num.cpp (isIdentical compares decimals numerically)',
    doc: { _id: 1, a: NumberDecimal('1.0') },
    update: { $inc: { a: NumberDecimal('0.00') } },
    expect: { doc: { _id: 1, a: NumberDecimal('1.0') }, modified: false },
  },
  {
    name: '$inc a NaN double by 0 is a change (NaN is never identical)',
    source: 'mongod src/mongo/util/safe_num.cpp (isIdentical uses ==)',
    doc: { _id: 1, a: NaN },
    update: { $inc: { a: 0 } },
    expect: { doc: { _id: 1, a: NaN }, modified: true },
  },
  {
    name: '$inc an array element',
    source: docsInc,
    doc: { _id: 1, a: [1, 2] },
    update: { $inc: { 'a.1': 5 } },
    expect: { doc: { _id: 1, a: [1, 7] }, modified: true },
  },
  {
    name: '$inc through a scalar fails',
    source: safeNum,
    doc: { _id: 1, a: 5 },
    update: { $inc: { 'a.b': 1 } },
    expect: { error: 28, message: "Cannot create field 'b' in element {a: 5.0}" },
  },

  // $mul
  {
    name: '$mul positive',
    source: mulExamples,
    doc: { _id: 1, a: 2 },
    update: { $mul: { a: 10 } },
    expect: { doc: { _id: 1, a: 20 }, modified: true },
  },
  {
    name: '$mul negative',
    source: mulExamples,
    doc: { _id: 1, a: 2 },
    update: { $mul: { a: -10 } },
    expect: { doc: { _id: 1, a: -20 }, modified: true },
  },
  {
    name: '$mul zero',
    source: mulExamples,
    doc: { _id: 1, a: 2 },
    update: { $mul: { a: 0 } },
    expect: { doc: { _id: 1, a: 0 }, modified: true },
  },
  {
    name: '$mul by 1.1',
    source: mulExamples,
    doc: { _id: 1, a: 2 },
    update: { $mul: { a: 1.1 } },
    expect: { doc: { _id: 1, a: 2.2 }, modified: true },
  },
  {
    name: '$mul by -0.1',
    source: mulExamples,
    doc: { _id: 1, a: 2 },
    update: { $mul: { a: -0.1 } },
    expect: { doc: { _id: 1, a: -0.2 }, modified: true },
  },
  {
    name: '$mul decimal and double fields',
    source: docsMul,
    doc: { _id: 1, item: 'ABC', price: NumberDecimal('10.99'), qty: 25 },
    update: { $mul: { price: NumberDecimal('1.25'), qty: 2 } },
    expect: {
      doc: { _id: 1, item: 'ABC', price: NumberDecimal('13.7375'), qty: 50 },
      modified: true,
    },
  },
  {
    name: '$mul of a missing field creates a zero of the multiplier type',
    source: docsMul,
    doc: { _id: 2, item: 'Unknown' },
    update: { $mul: { price: NumberLong(100) } },
    expect: { doc: { _id: 2, item: 'Unknown', price: NumberLong(0) }, modified: true },
  },
  {
    name: '$mul int64 by int32 gives int64',
    source: docsMul,
    doc: { _id: 3, item: 'XYZ', price: NumberLong(10) },
    update: { $mul: { price: NumberInt(5) } },
    expect: { doc: { _id: 3, item: 'XYZ', price: NumberLong(50) }, modified: true },
  },
  {
    name: '$mul of a missing field by an int32 creates int32 0',
    source: safeNum,
    doc: { _id: 1 },
    update: { $mul: { a: NumberInt(7) } },
    expect: { doc: { _id: 1, a: NumberInt(0) }, modified: true },
  },
  {
    name: '$mul of a missing field by a negative double creates -0.0',
    source: safeNum,
    doc: { _id: 1 },
    update: { $mul: { a: -1.5 } },
    expect: { doc: { _id: 1, a: -0 }, modified: true },
  },
  {
    name: '$mul int32 overflowing becomes int64',
    source: safeNum,
    doc: { _id: 1, a: NumberInt(65536) },
    update: { $mul: { a: NumberInt(65536) } },
    expect: { doc: { _id: 1, a: NumberLong('4294967296') }, modified: true },
  },
  {
    name: '$mul int64 overflowing fails',
    source: safeNum,
    doc: { _id: 1, a: NumberLong('4611686018427387904') },
    update: { $mul: { a: NumberInt(2) } },
    expect: {
      error: 2,
      message:
        'Failed to apply $mul operations to current value ((NumberLong)4611686018427387904) for document {_id: 1.0}',
    },
  },
  {
    name: '$mul by 1 of the same type is a no-op',
    source: safeNum,
    doc: { _id: 1, a: NumberInt(3) },
    update: { $mul: { a: NumberInt(1) } },
    expect: { doc: { _id: 1, a: NumberInt(3) }, modified: false },
  },
  {
    name: '$mul of a string fails',
    source: safeNum,
    doc: { _id: 1, a: 'x' },
    update: { $mul: { a: 2 } },
    expect: {
      error: 14,
      message:
        "Cannot apply $mul to a value of non-numeric type. {_id: 1.0} has the field 'a' of non-numeric type string",
    },
  },
  {
    name: '$mul with a non-numeric argument fails at parse',
    source: safeNum,
    doc: { _id: 1, a: 1 },
    update: { $mul: { a: true } },
    expect: { error: 14, message: 'Cannot multiply with non-numeric argument: {a: true}' },
  },
];
