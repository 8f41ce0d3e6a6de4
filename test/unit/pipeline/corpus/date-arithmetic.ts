// $dateAdd/$dateSubtract/$dateDiff/$dateTrunc and the date formats of $dateToString/
// $dateFromString, with time zones. Sources: jstests/aggregation/expressions/
// date_add_subtract.js and date_diff.js (results and codes: null/missing arguments give null
// before any other argument is validated), the manual pages of $dateToString (format
// specifiers), $dateFromString, $dateFromParts and $dateTrunc (examples), and expression.cpp.

import { Timestamp } from 'bson';
import { date, dbl, int, long, oid } from './helpers.js';
import type { Family } from './helpers.js';

const addJs = 'jstests/aggregation/expressions/date_add_subtract.js';
const diffJs = 'jstests/aggregation/expressions/date_diff.js';
const manual = (op: string): string => `MongoDB manual, ${op}`;
const paris = { date: date('2020-12-31T12:10:05Z'), unit: 'month', timezone: 'Europe/Paris' };
const someDate = date('2020-11-01T18:23:36Z');
const d = { date: date('2014-01-01T08:15:39.736Z') };
const lit = (iso: string): { $literal: Date } => ({ $literal: date(iso) });

export const dateArithmetic: Family = {
  values: [
    {
      name: '$dateAdd day',
      expr: { $dateAdd: { startDate: lit('2020-11-30T12:10:05Z'), unit: 'day', amount: int(1) } },
      expected: date('2020-12-01T12:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateAdd 24 hours across DST (absolute)',
      expr: {
        $dateAdd: {
          startDate: lit('2020-10-24T18:10:00Z'),
          unit: 'hour',
          amount: int(24),
          timezone: 'Europe/Paris',
        },
      },
      expected: date('2020-10-25T18:10:00Z'),
      source: addJs,
    },
    {
      name: '$dateAdd 1 day across DST (wall clock)',
      expr: {
        $dateAdd: {
          startDate: lit('2020-10-24T18:10:00Z'),
          unit: 'day',
          amount: int(1),
          timezone: 'Europe/Paris',
        },
      },
      expected: date('2020-10-25T19:10:00Z'),
      source: addJs,
    },
    {
      name: '$dateAdd month, last day in a time zone',
      expr: {
        $dateAdd: {
          startDate: lit('2021-01-30T23:30:00Z'),
          unit: 'month',
          amount: int(1),
          timezone: 'Europe/Paris',
        },
      },
      expected: date('2021-02-27T23:30:00Z'),
      source: addJs,
    },
    {
      name: '$dateAdd missing startDate',
      expr: { $dateAdd: { startDate: '$dateSent', unit: 'day', amount: int(1) } },
      doc: paris,
      expected: null,
      source: addJs,
    },
    {
      name: '$dateAdd week',
      expr: { $dateAdd: { startDate: '$date', unit: 'week', amount: int(1) } },
      doc: paris,
      expected: date('2021-01-07T12:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateAdd minutes',
      expr: { $dateAdd: { startDate: '$date', unit: 'minute', amount: int(50) } },
      doc: paris,
      expected: date('2020-12-31T13:00:05Z'),
      source: addJs,
    },
    {
      name: '$dateAdd milliseconds',
      expr: { $dateAdd: { startDate: '$date', unit: 'millisecond', amount: int(1050) } },
      doc: paris,
      expected: date('2020-12-31T12:10:06.050Z'),
      source: addJs,
    },
    {
      name: '$dateAdd unit from a field',
      expr: { $dateAdd: { startDate: '$date', unit: '$unit', amount: int(1) } },
      doc: paris,
      expected: date('2021-01-31T12:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateAdd timezone from a field',
      expr: {
        $dateAdd: { startDate: '$date', unit: 'hour', amount: int(2), timezone: '$timezone' },
      },
      doc: paris,
      expected: date('2020-12-31T14:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateAdd long amount',
      expr: { $dateAdd: { startDate: '$date', unit: 'second', amount: long(60) } },
      doc: paris,
      expected: date('2020-12-31T12:11:05Z'),
      source: manual('$dateAdd'),
    },
    {
      name: '$dateAdd null amount',
      expr: { $dateAdd: { startDate: '$date', unit: 'day', amount: null } },
      doc: paris,
      expected: null,
      source: manual('$dateAdd'),
    },
    {
      name: '$dateAdd null unit',
      expr: { $dateAdd: { startDate: '$date', unit: null, amount: int(1) } },
      doc: paris,
      expected: null,
      source: manual('$dateAdd'),
    },
    {
      name: '$dateSubtract year',
      expr: { $dateSubtract: { startDate: '$date', unit: 'year', amount: int(1) } },
      doc: paris,
      expected: date('2019-12-31T12:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateSubtract quarters',
      expr: { $dateSubtract: { startDate: '$date', unit: 'quarter', amount: int(2) } },
      doc: paris,
      expected: date('2020-06-30T12:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateSubtract month from a field',
      expr: { $dateSubtract: { startDate: '$date', unit: '$unit', amount: int(1) } },
      doc: paris,
      expected: date('2020-11-30T12:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateSubtract months in Paris',
      expr: {
        $dateSubtract: { startDate: '$date', unit: '$unit', amount: int(3), timezone: '$timezone' },
      },
      doc: paris,
      expected: date('2020-09-30T11:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateSubtract days',
      expr: { $dateSubtract: { startDate: '$date', unit: 'day', amount: int(15) } },
      doc: paris,
      expected: date('2020-12-16T12:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateSubtract seconds',
      expr: { $dateSubtract: { startDate: '$date', unit: 'second', amount: int(125) } },
      doc: paris,
      expected: date('2020-12-31T12:08:00Z'),
      source: addJs,
    },
    {
      name: '$dateSubtract month end',
      expr: {
        $dateSubtract: { startDate: lit('2021-01-31T03:00:00Z'), unit: 'month', amount: int(2) },
      },
      expected: date('2020-11-30T03:00:00Z'),
      source: addJs,
    },
    {
      name: '$dateSubtract month end in New York',
      expr: {
        $dateSubtract: {
          startDate: lit('2021-01-31T03:00:00Z'),
          unit: 'month',
          amount: int(2),
          timezone: 'America/New_York',
        },
      },
      expected: date('2020-12-01T03:00:00Z'),
      source: addJs,
    },
    {
      name: '$dateSubtract of $dateAdd',
      expr: {
        $dateSubtract: {
          startDate: { $dateAdd: { startDate: '$date', unit: 'hour', amount: int(2) } },
          unit: 'hour',
          amount: int(2),
        },
      },
      doc: paris,
      expected: date('2020-12-31T12:10:05Z'),
      source: addJs,
    },
    {
      name: '$dateDiff hours',
      expr: {
        $dateDiff: {
          startDate: lit('2020-11-01T18:23:36Z'),
          endDate: lit('2020-11-02T00:00:00Z'),
          unit: 'hour',
        },
      },
      expected: long(6),
      source: diffJs,
    },
    {
      name: '$dateDiff hours in New York',
      expr: {
        $dateDiff: {
          startDate: '$s',
          endDate: '$e',
          unit: 'hour',
          timezone: 'America/New_York',
          startOfWeek: 'IGNORED',
        },
      },
      doc: { s: someDate, e: date('2020-11-02T00:00:00Z') },
      expected: long(6),
      source: diffJs,
    },
    {
      name: '$dateDiff of ObjectIds',
      expr: {
        $dateDiff: {
          startDate: '$i',
          endDate: '$i',
          unit: 'millisecond',
          timezone: 'America/New_York',
        },
      },
      doc: { i: oid('5ab9cbfa31c2ab715d42129e') },
      expected: long(0),
      source: diffJs,
    },
    {
      name: '$dateDiff of timestamps',
      expr: { $dateDiff: { startDate: '$ts', endDate: '$ts', unit: 'millisecond' } },
      doc: { ts: new Timestamp({ t: 1600000000, i: 1 }) },
      expected: long(0),
      source: diffJs,
    },
    {
      name: '$dateDiff null startDate',
      expr: { $dateDiff: { startDate: null, endDate: lit('2020-11-01T18:23:36Z'), unit: 'hour' } },
      expected: null,
      source: diffJs,
    },
    {
      name: '$dateDiff missing startDate, other arguments invalid',
      expr: {
        $dateDiff: { startDate: '$nope', endDate: int(1), unit: 'century', timezone: 'INVALID' },
      },
      expected: null,
      source: diffJs,
    },
    {
      name: '$dateDiff missing endDate, other arguments invalid',
      expr: { $dateDiff: { startDate: '', endDate: '$nope', unit: 'epoch', timezone: 'INVALID' } },
      expected: null,
      source: diffJs,
    },
    {
      name: '$dateDiff null unit',
      expr: {
        $dateDiff: {
          startDate: lit('2020-11-01T18:23:36Z'),
          endDate: lit('2020-11-01T18:23:36Z'),
          unit: null,
        },
      },
      expected: null,
      source: diffJs,
    },
    {
      name: '$dateDiff missing timezone, other arguments invalid',
      expr: {
        $dateDiff: { startDate: int(1), endDate: int(2), unit: 'century', timezone: '$nope' },
      },
      expected: null,
      source: diffJs,
    },
    {
      name: '$dateDiff week starting Monday',
      expr: {
        $dateDiff: {
          startDate: lit('2021-01-24T18:23:36Z'),
          endDate: lit('2021-01-25T02:23:36Z'),
          unit: 'week',
          timezone: 'GMT',
          startOfWeek: 'MONDAY',
        },
      },
      expected: long(1),
      source: diffJs,
    },
    {
      name: '$dateDiff week in New York, Sunday start',
      expr: {
        $dateDiff: {
          startDate: lit('2021-01-17T05:00:00Z'),
          endDate: lit('2021-01-17T04:59:00Z'),
          unit: 'week',
          timezone: 'America/New_York',
          startOfWeek: 'sunday',
        },
      },
      expected: long(-1),
      source: diffJs,
    },
    {
      name: '$dateDiff week, default Sunday',
      expr: {
        $dateDiff: {
          startDate: lit('2021-01-24T18:23:36Z'),
          endDate: lit('2021-01-25T02:23:36Z'),
          unit: 'week',
        },
      },
      expected: long(0),
      source: diffJs,
    },
    {
      name: '$dateDiff null startOfWeek',
      expr: { $dateDiff: { startDate: '$s', endDate: '$s', unit: 'week', startOfWeek: null } },
      doc: { s: someDate },
      expected: null,
      source: diffJs,
    },
    {
      name: '$dateDiff bad startOfWeek type ignored for hours',
      expr: {
        $dateDiff: {
          startDate: '$s',
          endDate: '$s',
          unit: 'hour',
          timezone: 'GMT',
          startOfWeek: int(1),
        },
      },
      doc: { s: someDate },
      expected: long(0),
      source: diffJs,
    },
    {
      name: '$dateTrunc month bins of 6',
      expr: { $dateTrunc: { date: lit('2021-09-18T11:00:00Z'), unit: 'month', binSize: int(6) } },
      expected: date('2021-07-01T00:00:00Z'),
      source: manual('$dateTrunc') + ' (bins counted from 2000-01-01)',
    },
    {
      name: '$dateTrunc quarter',
      expr: { $dateTrunc: { date: lit('2021-05-18T11:00:00Z'), unit: 'quarter' } },
      expected: date('2021-04-01T00:00:00Z'),
      source: manual('$dateTrunc'),
    },
    {
      name: '$dateTrunc day in a time zone',
      expr: {
        $dateTrunc: {
          date: lit('2021-03-20T02:30:00Z'),
          unit: 'day',
          timezone: 'America/New_York',
        },
      },
      expected: date('2021-03-19T04:00:00Z'),
      source: manual('$dateTrunc'),
    },
    {
      name: '$dateTrunc null date',
      expr: { $dateTrunc: { date: '$nope', unit: 'day' } },
      expected: null,
      source: manual('$dateTrunc'),
    },
    {
      name: '$dateTrunc null unit',
      expr: { $dateTrunc: { date: '$date', unit: null } },
      doc: d,
      expected: null,
      source: manual('$dateTrunc'),
    },
    {
      name: '$dateToString %b %B (7.0)',
      expr: { $dateToString: { format: '%b %B', date: '$date' } },
      doc: d,
      expected: 'Jan January',
      source: manual('$dateToString') + ' (%b, %B new in 7.0)',
    },
    {
      name: '$dateToString %%',
      expr: { $dateToString: { format: '100%% %Y', date: '$date' } },
      doc: d,
      expected: '100% 2014',
      source: manual('$dateToString'),
    },
    {
      name: '$dateToString before 1970',
      expr: {
        $dateToString: { format: '%Y-%m-%dT%H:%M:%S.%LZ', date: lit('1969-12-31T23:59:59.999Z') },
      },
      expected: '1969-12-31T23:59:59.999Z',
      source: 'jstests/aggregation/expressions/date_expr_before_1970.js',
    },
    {
      name: '$dateToString summer time in New York',
      expr: {
        $dateToString: {
          format: '%H:%M %z',
          date: lit('2014-07-01T08:00:00Z'),
          timezone: 'America/New_York',
        },
      },
      expected: '04:00 -0400',
      source: manual('$dateToString'),
    },
    {
      name: '$dateToString +hh offset',
      expr: { $dateToString: { format: '%H:%M', date: '$date', timezone: '+03' } },
      doc: d,
      expected: '11:15',
      source: manual('$dateToString') + ' (timezone "+hh")',
    },
    {
      name: '$dateToString null date',
      expr: { $dateToString: { format: '%Y', date: null } },
      expected: null,
      source: manual('$dateToString'),
    },
    {
      name: '$dateToString null timezone',
      expr: { $dateToString: { format: '%Y', date: '$date', timezone: null } },
      doc: d,
      expected: null,
      source: manual('$dateToString'),
    },
    {
      name: '$dateToString onNull null',
      expr: { $dateToString: { date: '$nope', onNull: null } },
      expected: null,
      source: manual('$dateToString'),
    },
    {
      name: '$dateToString of a timestamp',
      expr: { $dateToString: { format: '%Y-%m-%d', date: '$ts' } },
      doc: { ts: new Timestamp({ t: 1622731060, i: 1 }) },
      expected: '2021-06-03',
      source: manual('$dateToString'),
    },
    {
      name: '$dateFromString date only',
      expr: { $dateFromString: { dateString: '2017-02-08' } },
      expected: date('2017-02-08T00:00:00Z'),
      source: manual('$dateFromString'),
    },
    {
      name: '$dateFromString Z',
      expr: { $dateFromString: { dateString: '2017-02-08T12:10:40.787Z' } },
      expected: date('2017-02-08T12:10:40.787Z'),
      source: manual('$dateFromString'),
    },
    {
      name: '$dateFromString format with month first',
      expr: { $dateFromString: { dateString: '06-15-2018', format: '%m-%d-%Y' } },
      expected: date('2018-06-15T00:00:00Z'),
      source: manual('$dateFromString'),
    },
    {
      name: '$dateFromString format with time zone',
      expr: {
        $dateFromString: {
          dateString: '15-06-2018 10:20',
          format: '%d-%m-%Y %H:%M',
          timezone: '+02:00',
        },
      },
      expected: date('2018-06-15T08:20:00Z'),
      source: manual('$dateFromString'),
    },
    {
      name: '$dateFromString onError on a non-string',
      expr: { $dateFromString: { dateString: int(5), onError: 'bad' } },
      expected: 'bad',
      source: manual('$dateFromString') + ' (onError catches a non-string dateString)',
    },
    {
      name: '$dateFromString null timezone',
      expr: { $dateFromString: { dateString: '2017-02-08', timezone: null } },
      expected: null,
      source: manual('$dateFromString'),
    },
    {
      name: '$dateFromString missing, no onNull',
      expr: { $dateFromString: { dateString: '$nope' } },
      expected: null,
      source: manual('$dateFromString'),
    },
    {
      name: '$dateFromParts millisecond carries',
      expr: {
        $dateFromParts: { year: int(2017), month: int(1), day: int(1), millisecond: int(1000) },
      },
      expected: date('2017-01-01T00:00:01Z'),
      source: manual('$dateFromParts'),
    },
    {
      name: '$dateFromParts negative hour',
      expr: { $dateFromParts: { year: int(2017), month: int(1), day: int(2), hour: int(-1) } },
      expected: date('2017-01-01T23:00:00Z'),
      source: manual('$dateFromParts'),
    },
    {
      name: '$dateFromParts null part',
      expr: { $dateFromParts: { year: int(2017), month: null } },
      expected: null,
      source: manual('$dateFromParts'),
    },
    {
      name: '$dateFromParts offset time zone',
      expr: { $dateFromParts: { year: int(2017), month: int(1), day: int(1), timezone: '+05:30' } },
      expected: date('2016-12-31T18:30:00Z'),
      source: manual('$dateFromParts'),
    },
    {
      name: '$dateToParts null',
      expr: { $dateToParts: { date: '$nope' } },
      expected: null,
      source: manual('$dateToParts'),
    },
    {
      name: '$year in a time zone crossing the year',
      expr: { $year: { date: lit('2017-01-01T01:00:00Z'), timezone: 'America/Los_Angeles' } },
      expected: int(2016),
      source: manual('$year'),
    },
    {
      name: '$dayOfWeek before 1970',
      expr: { $dayOfWeek: lit('1969-12-31T00:00:00Z') },
      expected: int(4),
      source: 'jstests/aggregation/expressions/date_expr_before_1970.js',
    },
    {
      name: '$month of an ObjectId',
      expr: { $month: '$i' },
      doc: { i: oid('5ab9cbfa31c2ab715d42129e') },
      expected: int(3),
      source: manual('$month') + ' (an ObjectId gives its timestamp, 2018-03-27T04:43:38Z)',
    },
  ],
  errors: [
    {
      name: '$dateAdd without startDate',
      expr: { $dateAdd: { unit: 'second', amount: int(120) } },
      code: 5166402,
      source: addJs,
    },
    {
      name: '$dateSubtract without unit',
      expr: { $dateSubtract: { startDate: '$date', amount: int(1) } },
      code: 5166402,
      source: addJs,
    },
    {
      name: '$dateAdd unknown argument',
      expr: { $dateAdd: { startDate: '$date', units: 'day', amount: int(1) } },
      code: 5166401,
      source: addJs,
    },
    {
      name: '$dateSubtract string startDate',
      expr: { $dateSubtract: { startDate: 'myBirthDate', unit: 'year', amount: int(10) } },
      code: 5166403,
      source: addJs,
    },
    {
      name: '$dateAdd numeric unit',
      expr: { $dateAdd: { startDate: '$date', unit: int(1), amount: int(10) } },
      doc: paris,
      code: 5166404,
      source: addJs,
    },
    {
      name: '$dateAdd unknown unit',
      expr: { $dateAdd: { startDate: '$date', unit: 'epoch', amount: int(10) } },
      doc: paris,
      code: 9,
      source: addJs,
    },
    {
      name: '$dateSubtract fractional amount',
      expr: { $dateSubtract: { startDate: '$date', unit: 'year', amount: dbl(1.001) } },
      doc: paris,
      code: 5166405,
      source: addJs,
    },
    {
      name: '$dateSubtract unknown time zone',
      expr: {
        $dateSubtract: { startDate: '$date', unit: 'year', amount: int(1), timezone: 'Unknown' },
      },
      doc: paris,
      code: 40485,
      source: addJs,
    },
    {
      name: '$dateDiff string startDate',
      expr: { $dateDiff: { startDate: 'string', endDate: '$s', unit: 'hour' } },
      doc: { s: someDate },
      code: 5166307,
      source: diffJs,
    },
    {
      name: '$dateDiff numeric endDate',
      expr: { $dateDiff: { startDate: '$s', endDate: int(1), unit: 'hour' } },
      doc: { s: someDate },
      code: 5166307,
      source: diffJs,
    },
    {
      name: '$dateDiff numeric timezone',
      expr: { $dateDiff: { startDate: '$s', endDate: '$s', unit: 'hour', timezone: int(1) } },
      doc: { s: someDate },
      code: 40517,
      source: diffJs,
    },
    {
      name: '$dateDiff unknown timezone',
      expr: {
        $dateDiff: { startDate: '$s', endDate: '$s', unit: 'hour', timezone: 'America/Invalid' },
      },
      doc: { s: someDate },
      code: 40485,
      source: diffJs,
    },
    {
      name: '$dateDiff numeric startOfWeek',
      expr: {
        $dateDiff: {
          startDate: '$s',
          endDate: '$s',
          unit: 'week',
          timezone: 'GMT',
          startOfWeek: int(1),
        },
      },
      doc: { s: someDate },
      code: 5439015,
      source: 'expression.cpp parseDayOfWeek',
    },
    {
      name: '$dateToString year past 9999',
      expr: { $dateToString: { format: '%Y', date: lit('+010000-01-01T00:00:00Z') } },
      code: 18537,
      source: 'TimeZone::formatDate (years 0-9999)',
    },
    {
      name: '$dateFromString Z and a timezone',
      expr: { $dateFromString: { dateString: '2017-02-08T12:10:40Z', timezone: 'Europe/London' } },
      code: 241,
      source: manual('$dateFromString'),
    },
    {
      name: '$dateFromString unknown argument',
      expr: { $dateFromString: { dateString: '2017-02-08', x: int(1) } },
      code: 40541,
      source: 'expression.cpp ExpressionDateFromString::parse',
    },
    {
      name: '$dateTrunc string date',
      expr: { $dateTrunc: { date: 'x', unit: 'day' } },
      code: 5439012,
      source: 'expression.cpp ExpressionDateTrunc',
    },
    {
      name: '$dateTrunc unknown argument',
      expr: { $dateTrunc: { date: '$date', unit: 'day', x: int(1) } },
      code: 5439008,
      source: 'expression.cpp ExpressionDateTrunc::parse',
    },
    {
      name: '$dateTrunc fractional binSize',
      expr: { $dateTrunc: { date: '$date', unit: 'day', binSize: dbl(1.001) } },
      doc: d,
      code: 5439017,
      source: 'expression.cpp ExpressionDateTrunc',
    },
  ],
};
