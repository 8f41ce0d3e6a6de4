// Type operators and conversions. Sources: MongoDB manual pages ($type $convert $toInt $toLong
// $toDouble $toDecimal $toString $toBool $toDate $toObjectId $isNumber) and expression.cpp's
// conversion table.

import { date, dbl, dec, int, long, oid } from './helpers.js';
import type { Family } from './helpers.js';

const docs = 'MongoDB manual, aggregation operator page';

export const types: Family = {
  values: [
    { name: '$type string', expr: { $type: 'a' }, expected: 'string', source: '$type example' },
    { name: '$type int', expr: { $type: int(1) }, expected: 'int', source: docs },
    { name: '$type long', expr: { $type: long(1) }, expected: 'long', source: docs },
    { name: '$type double', expr: { $type: dbl(1) }, expected: 'double', source: docs },
    { name: '$type decimal', expr: { $type: dec('1') }, expected: 'decimal', source: docs },
    { name: '$type missing', expr: { $type: '$nope' }, expected: 'missing', source: '$type example' },
    { name: '$type array', expr: { $type: [[]] }, expected: 'array', source: docs },
    { name: '$type null', expr: { $type: null }, expected: 'null', source: docs },
    { name: '$type date', expr: { $type: '$d' }, doc: { d: date('2020-01-01T00:00:00Z') }, expected: 'date', source: docs },
    { name: '$isNumber', expr: { $isNumber: dec('1') }, expected: true, source: docs },
    { name: '$isNumber string', expr: { $isNumber: '1' }, expected: false, source: docs },
    { name: '$convert string to int', expr: { $convert: { input: '5', to: 'int' } }, expected: int(5), source: '$convert example' },
    { name: '$convert double to int truncates', expr: { $convert: { input: dbl(5.9), to: 'int' } }, expected: int(5), source: '$toInt example' },
    { name: '$convert numeric to', expr: { $convert: { input: int(5), to: int(18) } }, expected: long(5), source: '$convert: to as a type number' },
    { name: '$convert onError', expr: { $convert: { input: 'abc', to: 'int', onError: int(-1) } }, expected: int(-1), source: '$convert example' },
    { name: '$convert onNull', expr: { $convert: { input: null, to: 'int', onNull: int(0) } }, expected: int(0), source: '$convert example' },
    { name: '$convert missing input → null', expr: { $convert: { input: '$nope', to: 'int' } }, expected: null, source: docs },
    { name: '$convert null to', expr: { $convert: { input: int(1), to: null } }, expected: null, source: 'expression.cpp ExpressionConvert' },
    { name: '$toInt bool', expr: { $toInt: true }, expected: int(1), source: '$toInt example' },
    { name: '$toLong date', expr: { $toLong: '$d' }, doc: { d: date('2018-03-26T04:38:28.044Z') }, expected: long(1522039108044), source: '$toLong example' },
    { name: '$toLong string', expr: { $toLong: '-5' }, expected: long(-5), source: '$toLong example' },
    { name: '$toDouble string', expr: { $toDouble: '5.5' }, expected: dbl(5.5), source: '$toDouble example' },
    { name: '$toDouble date', expr: { $toDouble: '$d' }, doc: { d: date('2018-03-26T04:38:28.044Z') }, expected: dbl(1522039108044), source: '$toDouble example' },
    { name: '$toDecimal bool', expr: { $toDecimal: true }, expected: dec('1'), source: '$toDecimal example' },
    { name: '$toDecimal double', expr: { $toDecimal: dbl(2.5) }, expected: dec('2.50000000000000'), source: '$toDecimal example (15 significant digits)' },
    { name: '$toDecimal string', expr: { $toDecimal: '-5.5' }, expected: dec('-5.5'), source: '$toDecimal example' },
    { name: '$toString double', expr: { $toString: dbl(2.5) }, expected: '2.5', source: '$toString example' },
    { name: '$toString large double (%g)', expr: { $toString: dbl(123456789.5) }, expected: '1.23457e+08', source: 'mongo/bson/util/builder.h: StringBuilder formats doubles with %g' },
    { name: '$toString small double (%g)', expr: { $toString: dbl(0.00001234) }, expected: '1.234e-05', source: 'mongo/bson/util/builder.h (%g)' },
    { name: '$toString 0.1', expr: { $toString: dbl(0.1) }, expected: '0.1', source: '%g' },
    { name: '$toString int', expr: { $toString: int(-5) }, expected: '-5', source: '$toString example' },
    { name: '$toString date', expr: { $toString: '$d' }, doc: { d: date('2018-03-27T16:58:51.538Z') }, expected: '2018-03-27T16:58:51.538Z', source: '$toString example' },
    { name: '$toString objectId', expr: { $toString: oid('5ab9cbfa31c2ab715d42129e') }, expected: '5ab9cbfa31c2ab715d42129e', source: '$toString example' },
    { name: '$toString decimal', expr: { $toString: dec('2.40') }, expected: '2.40', source: docs },
    { name: '$toBool zero', expr: { $toBool: int(0) }, expected: false, source: '$toBool example' },
    { name: '$toBool string', expr: { $toBool: 'false' }, expected: true, source: '$toBool example (any string is true)' },
    { name: '$toBool empty string', expr: { $toBool: '' }, expected: true, source: '$toBool example' },
    { name: '$toBool date', expr: { $toBool: '$d' }, doc: { d: date('2018-03-26T04:38:28.044Z') }, expected: true, source: '$toBool example' },
    { name: '$toDate long', expr: { $toDate: long(1234567890000) }, expected: date('2009-02-13T23:31:30Z'), source: '$toDate example' },
    { name: '$toDate string', expr: { $toDate: '2018-03-03' }, expected: date('2018-03-03T00:00:00Z'), source: '$toDate example' },
    { name: '$toDate objectId', expr: { $toDate: oid('5ab9cbfa31c2ab715d42129e') }, expected: date('2018-03-27T04:43:38Z'), source: '$toDate example (ObjectId time 0x5ab9cbfa)' },
    { name: '$toObjectId', expr: { $toObjectId: '5ab9cbfa31c2ab715d42129e' }, expected: oid('5ab9cbfa31c2ab715d42129e'), source: '$toObjectId example' },
    { name: '$toInt null', expr: { $toInt: null }, expected: null, source: docs },
  ],
  errors: [
    { name: '$toInt bad string', expr: { $toInt: 'abc' }, code: 241, source: 'expression.cpp ConversionTable' },
    { name: '$toInt overflow', expr: { $toInt: dbl(1e10) }, code: 241, source: 'expression.cpp ConversionTable' },
    { name: '$toInt NaN', expr: { $toInt: dbl(NaN) }, code: 241, source: 'expression.cpp ConversionTable' },
    { name: '$toInt hex', expr: { $toInt: '0x1' }, code: 241, source: 'expression.cpp ConversionTable' },
    { name: '$toDate int unsupported', expr: { $toDate: int(1) }, code: 241, message: 'Unsupported conversion from int to date in $convert with no onError value', source: 'expression.cpp ConversionTable' },
    { name: '$toObjectId bad', expr: { $toObjectId: 'xyz' }, code: 241, source: 'expression.cpp ConversionTable' },
    { name: '$convert unknown type', expr: { $convert: { input: int(1), to: 'foo' } }, code: 2, source: 'typeFromName' },
    { name: '$convert missing to', expr: { $convert: { input: int(1) } }, code: 9, source: 'expression.cpp ExpressionConvert::parse' },
    { name: '$convert unknown arg', expr: { $convert: { input: int(1), to: 'int', x: int(1) } }, code: 9, source: 'expression.cpp' },
    { name: '$convert bad numeric to', expr: { $convert: { input: int(1), to: int(100) } }, code: 9, source: 'expression.cpp' },
    { name: '$toInt two args', expr: { $toInt: [int(1), int(2)] }, code: 50723, source: 'expression.cpp makeConversionAlias' },
  ],
};

