// Miscellaneous operators: $rand, $tsSecond, $tsIncrement, $bsonSize, $binarySize, $meta,
// $function, and operator names that mongod 7.0 does not know as expressions. Sources: the
// manual pages ($rand: a double in [0, 1), no arguments; $tsSecond/$tsIncrement: a long, null
// for null/missing; $bsonSize: the document's BSON size as an int, null for null/missing;
// $binarySize: bytes of a string (UTF-8) or BinData), expression.cpp for the codes, and
// jstests/aggregation/expressions/{bsonSize,binarySize}.js.

import { Binary, Timestamp } from 'bson';
import { dbl, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const manual = (op: string): string => `MongoDB manual, ${op}`;
const ts = new Timestamp({ t: 1622731060, i: 10 });

const hasherTest = 'src/mongo/db/hasher_test.cpp (BSONElementHasher test vectors)';

export const misc: Family = {
  values: [
    {
      name: '$toHashedIndexKey of an int',
      expr: { $toHashedIndexKey: int(42) },
      expected: long(-944302157085130861n),
      source: hasherTest,
    },
    {
      name: '$toHashedIndexKey: a double hashes as its truncation',
      expr: { $toHashedIndexKey: dbl(42.123) },
      expected: long(-944302157085130861n),
      source: hasherTest,
    },
    {
      name: '$toHashedIndexKey of a string',
      expr: { $toHashedIndexKey: { $literal: 'abc' } },
      expected: long(8478485326885698097n),
      source: hasherTest,
    },
    {
      name: '$toHashedIndexKey of an array (hashed whole, no error)',
      expr: { $toHashedIndexKey: [{ $literal: 'bar' }, { $literal: 'baz' }, { $literal: 'qux' }] },
      expected: long(-2938911267422831539n),
      source: hasherTest,
    },
    {
      name: '$toHashedIndexKey of an empty document',
      expr: { $toHashedIndexKey: { $literal: {} } },
      expected: long(7980500913326740417n),
      source: hasherTest,
    },
    {
      name: '$rand is a double',
      expr: { $type: { $rand: {} } },
      expected: 'double',
      source: manual('$rand'),
    },
    {
      name: '$rand in [0, 1)',
      expr: {
        $let: {
          vars: { r: { $rand: {} } },
          in: { $and: [{ $gte: ['$$r', int(0)] }, { $lt: ['$$r', int(1)] }] },
        },
      },
      expected: true,
      source: manual('$rand'),
    },
    {
      name: '$tsSecond',
      expr: { $tsSecond: { $literal: ts } },
      expected: long(1622731060),
      source: manual('$tsSecond'),
    },
    {
      name: '$tsSecond of a field',
      expr: { $tsSecond: '$t' },
      doc: { t: ts },
      expected: long(1622731060),
      source: manual('$tsSecond'),
    },
    {
      name: '$tsSecond null',
      expr: { $tsSecond: null },
      expected: null,
      source: manual('$tsSecond'),
    },
    {
      name: '$tsSecond missing',
      expr: { $tsSecond: '$nope' },
      expected: null,
      source: manual('$tsSecond'),
    },
    {
      name: '$tsIncrement',
      expr: { $tsIncrement: '$t' },
      doc: { t: ts },
      expected: long(10),
      source: manual('$tsIncrement'),
    },
    {
      name: '$tsIncrement null',
      expr: { $tsIncrement: null },
      expected: null,
      source: manual('$tsIncrement'),
    },
    {
      name: '$bsonSize empty document',
      expr: { $bsonSize: { $literal: {} } },
      expected: int(5),
      source: 'BSON spec: int32 length + terminating 0',
    },
    {
      name: '$bsonSize one int field',
      expr: { $bsonSize: '$$ROOT' },
      doc: { a: int(1) },
      expected: int(12),
      source: 'BSON spec: 4 + (1 + 2 + 4) + 1',
    },
    {
      name: '$bsonSize string field',
      expr: { $bsonSize: '$o' },
      doc: { o: { s: 'abc' } },
      expected: int(16),
      source: 'BSON spec: 4 + (1 + 2 + 4 + 4) + 1',
    },
    {
      name: '$bsonSize null',
      expr: { $bsonSize: null },
      expected: null,
      source: manual('$bsonSize'),
    },
    {
      name: '$bsonSize missing',
      expr: { $bsonSize: '$nope' },
      expected: null,
      source: manual('$bsonSize'),
    },
    {
      name: '$binarySize string',
      expr: { $binarySize: 'abc' },
      expected: int(3),
      source: manual('$binarySize'),
    },
    {
      name: '$binarySize UTF-8',
      expr: { $binarySize: 'é€' },
      expected: int(5),
      source: manual('$binarySize'),
    },
    {
      name: '$binarySize empty string',
      expr: { $binarySize: '' },
      expected: int(0),
      source: manual('$binarySize'),
    },
    {
      name: '$binarySize BinData',
      expr: { $binarySize: '$b' },
      doc: { b: new Binary(Buffer.from([1, 2, 3, 4])) },
      expected: int(4),
      source: manual('$binarySize'),
    },
    {
      name: '$binarySize null',
      expr: { $binarySize: null },
      expected: null,
      source: manual('$binarySize'),
    },
    {
      name: '$binarySize missing',
      expr: { $binarySize: '$nope' },
      expected: null,
      source: manual('$binarySize'),
    },
  ],
  errors: [
    {
      name: '$rand with an argument',
      expr: { $rand: { a: int(1) } },
      code: 3040501,
      source: 'expression.cpp ExpressionRandom::parse',
    },
    {
      name: '$rand not an object',
      expr: { $rand: int(1) },
      code: 3040501,
      source: 'expression.cpp ExpressionRandom::parse',
    },
    {
      name: '$tsSecond not a timestamp',
      expr: { $tsSecond: int(1) },
      code: 5687301,
      source: 'expression.cpp ExpressionTsSecond',
    },
    {
      name: '$tsIncrement not a timestamp',
      expr: { $tsIncrement: dbl(1) },
      code: 5687302,
      source: 'expression.cpp ExpressionTsIncrement',
    },
    {
      name: '$tsSecond two arguments',
      expr: { $tsSecond: [ts, ts] },
      code: 16020,
      source: 'ExpressionFixedArity',
    },
    {
      name: '$bsonSize not a document',
      expr: { $bsonSize: 'a' },
      code: 31393,
      source: 'jstests/aggregation/expressions/bsonSize.js',
    },
    {
      name: '$bsonSize array',
      expr: { $bsonSize: [[int(1)]] },
      code: 31393,
      source: 'jstests/aggregation/expressions/bsonSize.js',
    },
    {
      name: '$binarySize number',
      expr: { $binarySize: int(1) },
      code: 51276,
      source: 'jstests/aggregation/expressions/binarySize.js',
    },
    {
      name: '$meta not a string',
      expr: { $meta: int(1) },
      code: 17307,
      source: 'expression.cpp ExpressionMeta::parse',
    },
    {
      name: '$meta unknown name',
      expr: { $meta: 'nope' },
      code: 17308,
      source: 'expression.cpp ExpressionMeta::parse',
    },
    {
      name: '$function without JavaScript',
      expr: { $function: { body: 'function(a) { return a; }', args: [int(1)], lang: 'js' } },
      code: 31264,
      source: 'mongod with scripting disabled',
    },
    {
      name: '$function unknown argument',
      expr: { $function: { body: 'f', args: [], lang: 'js', x: int(1) } },
      code: 31267,
      source: 'expression_function.cpp',
    },
    {
      // The args type is checked when evaluated, after the engine (31264 without one).
      name: '$function args not an array',
      expr: { $function: { body: 'f', args: int(1), lang: 'js' } },
      code: 31264,
      source: 'expression_function.cpp (evaluate: the engine, then 31266)',
    },
    {
      name: '$function other language',
      expr: { $function: { body: 'f', args: [], lang: 'py' } },
      code: 31419,
      source: 'expression_function.cpp',
    },
    {
      name: '$top is not an expression in 7.0',
      expr: { $top: { input: [int(1)], sortBy: { a: int(1) } } },
      code: 168,
      source:
        'jstests/aggregation/expressions/top.js needs fcv 8.3; 7.0: "Unrecognized expression"',
    },
    {
      name: '$bottom is not an expression in 7.0',
      expr: { $bottom: { input: [int(1)] } },
      code: 168,
      source: 'jstests/aggregation/expressions/bottom.js needs fcv 8.3',
    },
    {
      name: '$topN is not an expression in 7.0',
      expr: { $topN: { n: int(1), input: [int(1)] } },
      code: 168,
      source: 'jstests/aggregation/expressions/topN.js needs fcv 8.3',
    },
    {
      name: '$bottomN is not an expression in 7.0',
      expr: { $bottomN: { n: int(1), input: [int(1)] } },
      code: 168,
      source: 'jstests/aggregation/expressions/bottomN.js needs fcv 8.3',
    },
    {
      name: '$push is an accumulator only',
      expr: { $push: int(1) },
      code: 168,
      source: 'expression.cpp parseExpression',
    },
    {
      name: '$toUUID is 8.0',
      expr: { $toUUID: 'x' },
      code: 168,
      source: 'expression.cpp parseExpression (7.0)',
    },
  ],
};
