// Date operators. Sources: MongoDB manual pages (the $year ... $week family share the example
// date ISODate("2014-01-01T08:15:39.736Z"); $dateToString, $dateFromString, $dateToParts,
// $dateFromParts, $dateAdd, $dateSubtract, $dateDiff, $dateTrunc examples) and expression.cpp.

import { Timestamp } from 'bson';
import { date, dbl, int, long } from './helpers.js';
import type { Family } from './helpers.js';

const d = { date: date('2014-01-01T08:15:39.736Z') };
const family = 'MongoDB manual, date expression example (2014-01-01T08:15:39.736Z)';

export const dates: Family = {
  values: [
    { name: '$year', expr: { $year: '$date' }, doc: d, expected: int(2014), source: family },
    { name: '$month', expr: { $month: '$date' }, doc: d, expected: int(1), source: family },
    {
      name: '$dayOfMonth',
      expr: { $dayOfMonth: '$date' },
      doc: d,
      expected: int(1),
      source: family,
    },
    { name: '$hour', expr: { $hour: '$date' }, doc: d, expected: int(8), source: family },
    { name: '$minute', expr: { $minute: '$date' }, doc: d, expected: int(15), source: family },
    { name: '$second', expr: { $second: '$date' }, doc: d, expected: int(39), source: family },
    {
      name: '$millisecond',
      expr: { $millisecond: '$date' },
      doc: d,
      expected: int(736),
      source: family,
    },
    { name: '$dayOfYear', expr: { $dayOfYear: '$date' }, doc: d, expected: int(1), source: family },
    { name: '$dayOfWeek', expr: { $dayOfWeek: '$date' }, doc: d, expected: int(4), source: family },
    { name: '$week', expr: { $week: '$date' }, doc: d, expected: int(0), source: family },
    { name: '$isoWeek', expr: { $isoWeek: '$date' }, doc: d, expected: int(1), source: '$isoWeek' },
    {
      name: '$isoWeekYear',
      expr: { $isoWeekYear: '$date' },
      doc: d,
      expected: int(2014),
      source: '$isoWeekYear',
    },
    {
      name: '$isoDayOfWeek',
      expr: { $isoDayOfWeek: '$date' },
      doc: d,
      expected: int(3),
      source: '$isoDayOfWeek',
    },
    {
      name: '$isoWeekYear across years',
      expr: { $isoWeekYear: { $literal: date('2016-01-01T00:00:00Z') } },
      expected: int(2015),
      source: 'ISO 8601 (Friday 2016-01-01 is in 2015-W53)',
    },
    {
      name: '$hour with timezone name',
      expr: { $hour: { date: '$date', timezone: 'America/New_York' } },
      doc: d,
      expected: int(3),
      source: family,
    },
    {
      name: '$minute with offset',
      expr: { $minute: { date: '$date', timezone: '+04:30' } },
      doc: d,
      expected: int(45),
      source: family,
    },
    {
      name: '$year null',
      expr: { $year: null },
      expected: null,
      source: 'DateExpressionAcceptingTimeZone',
    },
    {
      name: '$year array form',
      expr: { $year: ['$date'] },
      doc: d,
      expected: int(2014),
      source: 'DateExpressionAcceptingTimeZone',
    },
    {
      name: '$year of timestamp',
      expr: { $year: '$ts' },
      doc: { ts: new Timestamp({ t: 86400 * 400, i: 1 }) },
      expected: int(1971),
      source: 'Value::coerceToDate (timestamp seconds)',
    },
    {
      name: '$dateToString date only',
      expr: { $dateToString: { format: '%Y-%m-%d', date: '$date' } },
      doc: d,
      expected: '2014-01-01',
      source: '$dateToString example',
    },
    {
      name: '$dateToString NY offset',
      expr: {
        $dateToString: { format: '%H:%M:%S:%L%z', date: '$date', timezone: 'America/New_York' },
      },
      doc: d,
      expected: '03:15:39:736-0500',
      source: '$dateToString example',
    },
    {
      name: '$dateToString +04:30 offset',
      expr: { $dateToString: { format: '%H:%M:%S:%L%z', date: '$date', timezone: '+04:30' } },
      doc: d,
      expected: '12:45:39:736+0430',
      source: '$dateToString example',
    },
    {
      name: '$dateToString %Z',
      expr: { $dateToString: { format: '%Z', date: '$date', timezone: 'America/New_York' } },
      doc: d,
      expected: '-300',
      source: '$dateToString example',
    },
    {
      name: '$dateToString %Z +04:30',
      expr: { $dateToString: { format: '%Z', date: '$date', timezone: '+04:30' } },
      doc: d,
      expected: '+270',
      source: '$dateToString example',
    },
    {
      name: '$dateToString default format',
      expr: { $dateToString: { date: '$date' } },
      doc: d,
      expected: '2014-01-01T08:15:39.736Z',
      source: '$dateToString',
    },
    {
      name: '$dateToString %j %U %w',
      expr: { $dateToString: { format: '%j %U %w %u %V %G', date: '$date' } },
      doc: d,
      expected: '001 00 4 3 01 2014',
      source: '$dateToString format specifiers',
    },
    {
      name: '$dateToString onNull',
      expr: { $dateToString: { date: '$nope', onNull: 'none' } },
      expected: 'none',
      source: '$dateToString onNull',
    },
    {
      name: '$dateFromString with timezone',
      expr: {
        $dateFromString: { dateString: '2017-02-08T12:10:40.787', timezone: 'America/New_York' },
      },
      expected: date('2017-02-08T17:10:40.787Z'),
      source: '$dateFromString example',
    },
    {
      name: '$dateFromString offset in string',
      expr: { $dateFromString: { dateString: '2017-02-08T12:10:40.787+0500' } },
      expected: date('2017-02-08T07:10:40.787Z'),
      source: 'ISO 8601 offset',
    },
    {
      name: '$dateFromString format',
      expr: { $dateFromString: { dateString: '15-06-2018', format: '%d-%m-%Y' } },
      expected: date('2018-06-15T00:00:00Z'),
      source: '$dateFromString format example',
    },
    {
      name: '$dateFromString onError',
      expr: { $dateFromString: { dateString: 'not a date', onError: 'bad' } },
      expected: 'bad',
      source: '$dateFromString onError',
    },
    {
      name: '$dateFromString onNull',
      expr: { $dateFromString: { dateString: null, onNull: 'n' } },
      expected: 'n',
      source: '$dateFromString onNull',
    },
    {
      name: '$dateToParts',
      expr: { $dateToParts: { date: { $literal: date('2017-01-01T01:29:09.123Z') } } },
      expected: {
        year: int(2017),
        month: int(1),
        day: int(1),
        hour: int(1),
        minute: int(29),
        second: int(9),
        millisecond: int(123),
      },
      source: '$dateToParts example',
    },
    {
      name: '$dateToParts iso8601',
      expr: {
        $dateToParts: { date: { $literal: date('2017-01-01T01:29:09.123Z') }, iso8601: true },
      },
      expected: {
        isoWeekYear: int(2016),
        isoWeek: int(52),
        isoDayOfWeek: int(7),
        hour: int(1),
        minute: int(29),
        second: int(9),
        millisecond: int(123),
      },
      source: '$dateToParts example',
    },
    {
      name: '$dateToParts timezone',
      expr: {
        $dateToParts: {
          date: { $literal: date('2017-01-01T01:29:09.123Z') },
          timezone: 'America/New_York',
        },
      },
      expected: {
        year: int(2016),
        month: int(12),
        day: int(31),
        hour: int(20),
        minute: int(29),
        second: int(9),
        millisecond: int(123),
      },
      source: '$dateToParts example',
    },
    {
      name: '$dateFromParts',
      expr: { $dateFromParts: { year: int(2017), month: int(2), day: int(8), hour: int(12) } },
      expected: date('2017-02-08T12:00:00Z'),
      source: '$dateFromParts example',
    },
    {
      name: '$dateFromParts iso',
      expr: {
        $dateFromParts: {
          isoWeekYear: int(2017),
          isoWeek: int(6),
          isoDayOfWeek: int(3),
          hour: int(12),
        },
      },
      expected: date('2017-02-08T12:00:00Z'),
      source: '$dateFromParts example',
    },
    {
      name: '$dateFromParts timezone',
      expr: {
        $dateFromParts: {
          year: int(2016),
          month: int(12),
          day: int(31),
          hour: int(23),
          minute: int(46),
          second: int(12),
          timezone: 'America/New_York',
        },
      },
      expected: date('2017-01-01T04:46:12Z'),
      source: '$dateFromParts example',
    },
    {
      name: '$dateFromParts month overflow',
      expr: { $dateFromParts: { year: int(2017), month: int(14), day: int(1) } },
      expected: date('2018-02-01T00:00:00Z'),
      source: '$dateFromParts: values outside the range carry',
    },
    {
      name: '$dateFromParts day zero',
      expr: { $dateFromParts: { year: int(2017), month: int(3), day: int(0) } },
      expected: date('2017-02-28T00:00:00Z'),
      source: '$dateFromParts: values outside the range carry',
    },
    {
      name: '$dateAdd month clamps',
      expr: {
        $dateAdd: {
          startDate: { $literal: date('2020-10-31T12:10:05Z') },
          unit: 'month',
          amount: int(1),
        },
      },
      expected: date('2020-11-30T12:10:05Z'),
      source: '$dateAdd: adding a month',
    },
    {
      name: '$dateAdd hours',
      expr: {
        $dateAdd: {
          startDate: { $literal: date('2021-03-31T12:10:05Z') },
          unit: 'hour',
          amount: int(12),
        },
      },
      expected: date('2021-04-01T00:10:05Z'),
      source: '$dateAdd',
    },
    {
      name: '$dateAdd day across DST keeps wall time',
      expr: {
        $dateAdd: {
          startDate: { $literal: date('2021-03-13T12:00:00Z') },
          unit: 'day',
          amount: int(1),
          timezone: 'America/New_York',
        },
      },
      expected: date('2021-03-14T11:00:00Z'),
      source: '$dateAdd: days in a time zone with DST',
    },
    {
      name: '$dateSubtract',
      expr: {
        $dateSubtract: {
          startDate: { $literal: date('2021-01-31T00:00:00Z') },
          unit: 'month',
          amount: int(1),
        },
      },
      expected: date('2020-12-31T00:00:00Z'),
      source: '$dateSubtract',
    },
    {
      name: '$dateDiff days',
      expr: {
        $dateDiff: {
          startDate: { $literal: date('2021-01-01T23:00:00Z') },
          endDate: { $literal: date('2021-01-02T01:00:00Z') },
          unit: 'day',
        },
      },
      expected: long(1),
      source: '$dateDiff: boundaries crossed',
    },
    {
      name: '$dateDiff years',
      expr: {
        $dateDiff: {
          startDate: { $literal: date('2020-12-31T00:00:00Z') },
          endDate: { $literal: date('2021-01-01T00:00:00Z') },
          unit: 'year',
        },
      },
      expected: long(1),
      source: '$dateDiff',
    },
    {
      name: '$dateDiff negative',
      expr: {
        $dateDiff: {
          startDate: { $literal: date('2021-03-01T00:00:00Z') },
          endDate: { $literal: date('2021-01-15T00:00:00Z') },
          unit: 'month',
        },
      },
      expected: long(-2),
      source: '$dateDiff',
    },
    {
      name: '$dateTrunc year',
      expr: { $dateTrunc: { date: { $literal: date('2020-05-18T14:10:30Z') }, unit: 'year' } },
      expected: date('2020-01-01T00:00:00Z'),
      source: '$dateTrunc example',
    },
    {
      name: '$dateTrunc 2 hours',
      expr: {
        $dateTrunc: {
          date: { $literal: date('2020-05-18T15:10:30Z') },
          unit: 'hour',
          binSize: int(2),
        },
      },
      expected: date('2020-05-18T14:00:00Z'),
      source: '$dateTrunc example',
    },
    {
      name: '$dateTrunc week (Sunday)',
      expr: { $dateTrunc: { date: { $literal: date('2024-01-03T10:00:00Z') }, unit: 'week' } },
      expected: date('2023-12-31T00:00:00Z'),
      source: '$dateTrunc: weeks start on Sunday by default',
    },
    {
      name: '$dateTrunc week Monday',
      expr: {
        $dateTrunc: {
          date: { $literal: date('2024-01-03T10:00:00Z') },
          unit: 'week',
          startOfWeek: 'monday',
        },
      },
      expected: date('2024-01-01T00:00:00Z'),
      source: '$dateTrunc startOfWeek',
    },
  ],
  errors: [
    { name: '$year non-date', expr: { $year: 'a' }, code: 16006, source: 'Value::coerceToDate' },
    {
      name: '$year bad option',
      expr: { $year: { date: '$d', x: int(1) } },
      code: 40535,
      source: 'DateExpressionAcceptingTimeZone',
    },
    {
      name: '$year missing date',
      expr: { $year: { timezone: 'UTC' } },
      code: 40539,
      source: 'DateExpressionAcceptingTimeZone',
    },
    {
      name: '$year two-element array',
      expr: { $year: ['$a', '$b'] },
      code: 40536,
      source: 'DateExpressionAcceptingTimeZone',
    },
    {
      name: 'bad timezone',
      expr: { $hour: { date: '$date', timezone: 'Mars/Base' } },
      doc: d,
      code: 40485,
      source: 'TimeZoneDatabase::getTimeZone',
    },
    {
      name: 'timezone not a string',
      expr: { $hour: { date: '$date', timezone: int(1) } },
      doc: d,
      code: 40517,
      source: 'expression.cpp makeTimeZone',
    },
    {
      name: '$dateToString bad format',
      expr: { $dateToString: { format: '%Q', date: '$date' } },
      doc: d,
      code: 18536,
      source: 'TimeZone::validateToStringFormat',
    },
    {
      name: '$dateToString trailing %',
      expr: { $dateToString: { format: '%', date: '$date' } },
      doc: d,
      code: 18535,
      source: 'TimeZone::validateToStringFormat',
    },
    {
      name: '$dateToString missing date',
      expr: { $dateToString: { format: '%Y' } },
      code: 18628,
      source: 'expression.cpp',
    },
    {
      name: '$dateToString non-string format',
      expr: { $dateToString: { format: int(1), date: '$date' } },
      doc: d,
      code: 18533,
      source: 'expression.cpp',
    },
    {
      name: '$dateFromString non-string format',
      expr: { $dateFromString: { dateString: '$s', format: int(1) } },
      doc: { s: '2014-01-01' },
      code: 40684,
      source: 'expression.cpp',
    },
    {
      name: '$dateToString unknown arg',
      expr: { $dateToString: { date: '$date', x: int(1) } },
      code: 18534,
      source: 'expression.cpp',
    },
    {
      name: '$dateFromString bad string',
      expr: { $dateFromString: { dateString: 'not a date' } },
      code: 241,
      source: 'expression.cpp',
    },
    {
      name: '$dateFromString missing dateString',
      expr: { $dateFromString: {} },
      code: 40542,
      source: 'expression.cpp',
    },
    {
      name: '$dateFromParts mixed',
      expr: { $dateFromParts: { year: int(2017), isoWeek: int(1) } },
      code: 40489,
      source: 'expression.cpp',
    },
    {
      name: '$dateFromParts no year',
      expr: { $dateFromParts: { month: int(1) } },
      code: 40516,
      source: 'expression.cpp',
    },
    {
      name: '$dateFromParts year range',
      expr: { $dateFromParts: { year: int(0) } },
      code: 40523,
      source: 'expression.cpp',
    },
    {
      name: '$dateFromParts month range',
      expr: { $dateFromParts: { year: int(2017), month: int(40000) } },
      code: 31034,
      source: 'expression.cpp',
    },
    {
      name: '$dateFromParts non-integer',
      expr: { $dateFromParts: { year: 'x' } },
      code: 40515,
      source: 'expression.cpp',
    },
    {
      name: '$dateAdd missing amount',
      expr: { $dateAdd: { startDate: '$date', unit: 'day' } },
      code: 5166402,
      source: 'expression.cpp',
    },
    {
      name: '$dateAdd non-integral amount',
      expr: { $dateAdd: { startDate: '$date', unit: 'day', amount: dbl(1.5) } },
      doc: d,
      code: 5166405,
      source: 'expression.cpp',
    },
    {
      name: '$dateDiff bad unit',
      expr: { $dateDiff: { startDate: '$date', endDate: '$date', unit: 'fortnight' } },
      doc: d,
      code: 5439014,
      source: 'expression.cpp parseTimeUnit',
    },
    {
      name: '$dateTrunc binSize zero',
      expr: { $dateTrunc: { date: '$date', unit: 'day', binSize: int(0) } },
      doc: d,
      code: 5439018,
      source: 'expression.cpp',
    },
    {
      name: '$dateTrunc bad startOfWeek',
      expr: { $dateTrunc: { date: '$date', unit: 'week', startOfWeek: 'someday' } },
      doc: d,
      code: 5439016,
      source: 'expression.cpp',
    },
  ],
};
