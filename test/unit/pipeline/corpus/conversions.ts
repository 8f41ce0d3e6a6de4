// Type conversion and type promotion beyond the basics in types.ts and arithmetic.ts. Sources:
// the manual pages of $convert (conversion table: a timestamp converts only to bool and date;
// onError catches conversion failures only; onNull answers null and missing input), $toDate,
// $toString, $toBool, $isNumber, $type, and jstests/aggregation/expressions/add.js ($add of
// doubles is a plain left-to-right sum, not the compensated one $sum uses).

import { Timestamp } from 'bson';
import { MISSING, date, dbl, dec, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const manual = (op: string): string => `MongoDB manual, ${op}`;
const ts = new Timestamp({ t: 1622731060, i: 10 });

// jstests/aggregation/expressions/add.js: 50 doubles whose $add must equal arr.reduce((a, b) => a + b).
const doubles = [
  1.4831356930199802e-5, -3.121724665346865, 3041897608700.073, 1001318343149.7166, -1714.6229586696593, 1731390114894580.8, 6.256645803154374e-8,
  -107144114533844.25, -0.08839485091750919, -265119153.02185738, -0.02450615965231944, 0.0002684331017079073, 32079040427.68358, -0.04733295911845742,
  0.061381859083076085, -25329.59126796951, -0.0009567520620034965, -1553879364344.9932, -2.1101077525869814e-8, -298421079729.5547, 0.03182394834273594,
  22.201944843278916, -33.35667991109125, 11496013.960449915, -40652595.33210472, 3.8496066090328163, 2.5074042398147304e-8, -0.02208724071782122,
  -134211.37290639878, 0.17640433666616578, 4.463787499171126, 9.959669945399718, 129265976.35224283, 1.5865526187526546e-7, -4746011.710555799,
  -712048598925.0789, 582214206210.4034, 0.025236204812875362, 530078170.91147506, -14.865307666195053, 1.6727994895185032e-5, -113386276.03121366,
  -6.135827207137054, 10644945799901.145, -100848907797.1582, 2.2404406961625282e-8, 1.315662618424494e-9, -0.832190208349044, -9.779323414999364,
  -546522170658.2997,
];

export const conversions: Family = {
  values: [
    { name: '$add of 50 double fields is a plain sum', expr: { $add: doubles.map((_, i) => `$f${i}`) }, doc: Object.fromEntries(doubles.map((x, i) => [`f${i}`, dbl(x)])), expected: dbl(doubles.reduce((a, b) => a + b)), source: 'jstests/aggregation/expressions/add.js' },
    { name: '$toDate of a timestamp is its seconds', expr: { $toDate: '$t' }, doc: { t: ts }, expected: date('2021-06-03T14:37:40Z'), source: manual('$toDate') },
    { name: '$convert timestamp to date', expr: { $convert: { input: { $literal: ts }, to: 'date' } }, expected: date('2021-06-03T14:37:40Z'), source: manual('$convert') },
    { name: '$toBool of a timestamp', expr: { $toBool: '$t' }, doc: { t: ts }, expected: true, source: manual('$toBool') },
    { name: '$convert timestamp to long with onError', expr: { $convert: { input: '$t', to: 'long', onError: 'no' } }, doc: { t: ts }, expected: 'no', source: manual('$convert') + ' (timestamp → long unsupported)' },
    { name: '$type of a timestamp', expr: { $type: '$t' }, doc: { t: ts }, expected: 'timestamp', source: manual('$type') },
    { name: '$isNumber of a timestamp', expr: { $isNumber: '$t' }, doc: { t: ts }, expected: false, source: manual('$isNumber') },
    { name: '$isNumber missing', expr: { $isNumber: '$nope' }, expected: false, source: manual('$isNumber') },
    { name: '$isNumber long', expr: { $isNumber: long(1) }, expected: true, source: manual('$isNumber') },
    { name: '$convert onNull for missing', expr: { $convert: { input: '$nope', to: 'int', onNull: 'was missing' } }, expected: 'was missing', source: manual('$convert') },
    { name: '$convert onNull may be missing itself', expr: { $convert: { input: null, to: 'int', onNull: '$nope' } }, expected: MISSING, source: manual('$convert') },
    { name: '$convert onError not used when it works', expr: { $convert: { input: '12', to: 'int', onError: int(0) } }, expected: int(12), source: manual('$convert') },
    { name: '$convert to bool from a type number', expr: { $convert: { input: int(0), to: int(8) } }, expected: false, source: manual('$convert') },
    { name: '$convert to decimal by name', expr: { $convert: { input: long(5), to: 'decimal' } }, expected: dec('5'), source: manual('$convert') },
    { name: '$convert to a type held in a field', expr: { $convert: { input: '1.5', to: '$t' } }, doc: { t: 'double' }, expected: dbl(1.5), source: manual('$convert') },
    { name: '$toInt of a decimal truncates', expr: { $toInt: dec('-5.9') }, expected: int(-5), source: manual('$toInt') },
    { name: '$toLong of a double truncates', expr: { $toLong: dbl(-5.9) }, expected: long(-5), source: manual('$toLong') },
    { name: '$toDouble of a decimal', expr: { $toDouble: dec('2.5') }, expected: dbl(2.5), source: manual('$toDouble') },
    { name: '$toDouble of a bool', expr: { $toDouble: false }, expected: dbl(0), source: manual('$toDouble') },
    { name: '$toDecimal of an int', expr: { $toDecimal: int(-7) }, expected: dec('-7'), source: manual('$toDecimal') },
    { name: '$toDecimal of a date', expr: { $toDecimal: { $literal: date('2018-03-26T04:38:28.044Z') } }, expected: dec('1522039108044'), source: manual('$toDecimal') },
    { name: '$toString of a long', expr: { $toString: long(9007199254740993n) }, expected: '9007199254740993', source: manual('$toString') },
    { name: '$toString of a bool', expr: { $toString: true }, expected: 'true', source: manual('$toString') },
    { name: '$toString of a string', expr: { $toString: 'x' }, expected: 'x', source: manual('$toString') },
    { name: '$toString missing', expr: { $toString: '$nope' }, expected: null, source: manual('$toString') },
    { name: '$toBool of an ObjectId-like string', expr: { $toBool: '0' }, expected: true, source: manual('$toBool') },
    { name: '$toBool of a decimal zero', expr: { $toBool: dec('0') }, expected: false, source: manual('$toBool') },
    { name: '$toObjectId null', expr: { $toObjectId: null }, expected: null, source: manual('$toObjectId') },
    { name: '$toInt of a long that fits', expr: { $toInt: long(-2147483648) }, expected: int(-2147483648), source: manual('$toInt') },
    { name: '$type array form of one', expr: { $type: [{ $literal: int(1) }] }, expected: 'int', source: manual('$type') },
    { name: '$multiply long overflow → double', expr: { $multiply: [long(9223372036854775807n), int(2)] }, expected: dbl(18446744073709551614), source: 'expression.cpp MultiplyState' },
    { name: '$multiply decimal', expr: { $multiply: [dec('1.5'), int(2)] }, expected: dec('3.0'), source: 'IEEE 754 decimal' },
    { name: '$subtract int overflow → long', expr: { $subtract: [int(-2147483648), int(1)] }, expected: long(-2147483649), source: 'expression.cpp ExpressionSubtract' },
    { name: '$subtract double and long', expr: { $subtract: [dbl(1.5), long(1)] }, expected: dbl(0.5), source: 'expression.cpp ExpressionSubtract' },
    { name: '$subtract decimal', expr: { $subtract: [dec('1.5'), int(1)] }, expected: dec('0.5'), source: 'expression.cpp ExpressionSubtract' },
    { name: '$divide longs → double', expr: { $divide: [long(7), long(2)] }, expected: dbl(3.5), source: manual('$divide') },
    { name: '$mod decimal', expr: { $mod: [dec('7.5'), int(2)] }, expected: dec('1.5'), source: manual('$mod') },
    { name: '$abs long', expr: { $abs: long(-3) }, expected: long(3), source: manual('$abs') },
    { name: '$abs decimal', expr: { $abs: dec('-1.5') }, expected: dec('1.5'), source: manual('$abs') },
    { name: '$floor long unchanged', expr: { $floor: long(5) }, expected: long(5), source: manual('$floor') },
    { name: '$trunc long negative place', expr: { $trunc: [long(1234), int(-2)] }, expected: long(1200), source: manual('$trunc') },
    { name: '$sqrt decimal', expr: { $sqrt: dec('4') }, expected: dec('2'), source: manual('$sqrt') },
    { name: '$pow decimal', expr: { $pow: [dec('2'), int(3)] }, expected: dec('8'), source: manual('$pow') },
    { name: '$exp null', expr: { $exp: null }, expected: null, source: manual('$exp') },
    { name: '$ln missing', expr: { $ln: '$nope' }, expected: null, source: manual('$ln') },
    { name: '$log null base', expr: { $log: [int(8), null] }, expected: null, source: manual('$log') },
  ],
  errors: [
    { name: '$toLong of a timestamp', expr: { $toLong: '$t' }, doc: { t: ts }, code: 241, message: 'Unsupported conversion from timestamp to long', source: manual('$convert') },
    { name: '$toInt of a timestamp', expr: { $toInt: '$t' }, doc: { t: ts }, code: 241, source: manual('$convert') },
    { name: '$toDouble of a timestamp', expr: { $toDouble: '$t' }, doc: { t: ts }, code: 241, source: manual('$convert') },
    { name: '$toString of a timestamp (7.0)', expr: { $toString: '$t' }, doc: { t: ts }, code: 241, source: manual('$toString') + ' (7.0 table: no timestamp)' },
    { name: '$convert onError does not catch a bad "to"', expr: { $convert: { input: int(1), to: 'nope', onError: int(0) } }, code: 2, source: manual('$convert') },
    { name: '$convert fractional type number', expr: { $convert: { input: int(1), to: dbl(1.5) } }, code: 9, source: 'expression.cpp ExpressionConvert' },
    { name: '$toDate of a bool', expr: { $toDate: true }, code: 241, source: manual('$toDate') },
    { name: '$toObjectId of an int', expr: { $toObjectId: int(1) }, code: 241, source: manual('$toObjectId') },
    { name: '$toInt overflow from a long', expr: { $toInt: long(2147483648) }, code: 241, source: manual('$toInt') },
    { name: '$toLong of a decimal NaN', expr: { $toLong: dec('NaN') }, code: 241, source: manual('$toLong') },
    { name: '$toDouble of a bad string', expr: { $toDouble: '1.5x' }, code: 241, source: manual('$toDouble') },
    { name: '$multiply date', expr: { $multiply: ['$d', int(2)] }, doc: { d: date('2020-01-01T00:00:00Z') }, code: 14, source: 'expression.cpp' },
    { name: '$subtract number minus date', expr: { $subtract: [int(1), '$d'] }, doc: { d: date('2020-01-01T00:00:00Z') }, code: 14, source: 'expression.cpp' },
    { name: '$exp string', expr: { $exp: 'a' }, code: 28765, source: 'ExpressionSingleNumericArg' },
    { name: '$pow exponent string', expr: { $pow: [int(2), 'a'] }, code: 28763, source: 'expression.cpp' },
    { name: '$log base string', expr: { $log: [int(2), 'a'] }, code: 28757, source: 'expression.cpp' },
    { name: '$log negative argument', expr: { $log: [int(-1), int(10)] }, code: 28758, source: 'expression.cpp' },
    { name: '$trunc string precision', expr: { $trunc: [dbl(1.5), 'a'] }, code: 16003, source: 'expression.cpp' },
  ],
};
