// $min and $max.

import { NumberInt, NumberLong } from '../values.js';
import type { UpdateCase } from './types.js';

const examples = 'jstests/core/write/update/update_min_max_examples.js';
const docsMin = 'MongoDB manual, $min';
const docsMax = 'MongoDB manual, $max';
const compareNode = 'mongod src/mongo/db/update/compare_node.cpp (equal values are a no-op)';

const date = new Date(Date.UTC(2022, 7, 11, 12, 29, 31, 757));
const later = new Date(date.getTime() + 2);
const biggerval = 0.000000000000001000000000000001;

export const compareCases: UpdateCase[] = [
  {
    name: '$min replaces a larger number',
    source: examples,
    doc: { _id: 1, a: 2 },
    update: { $min: { a: 1 } },
    expect: { doc: { _id: 1, a: 1 }, modified: true },
  },
  {
    name: '$max keeps a larger number',
    source: examples,
    doc: { _id: 2, a: 2 },
    update: { $max: { a: 1 } },
    expect: { doc: { _id: 2, a: 2 }, modified: false },
  },
  {
    name: '$min with a later date keeps the date',
    source: examples,
    doc: { _id: 3, a: date },
    update: { $min: { a: later } },
    expect: { doc: { _id: 3, a: date }, modified: false },
  },
  {
    name: '$max with a later date takes it',
    source: examples,
    doc: { _id: 4, a: date },
    update: { $max: { a: later } },
    expect: { doc: { _id: 4, a: later }, modified: true },
  },
  {
    name: '$max with a slightly bigger double',
    source: examples,
    doc: { _id: 5, a: 1e-15 },
    update: { $max: { a: biggerval } },
    expect: { doc: { _id: 5, a: biggerval }, modified: true },
  },
  {
    name: '$min with a slightly smaller double',
    source: examples,
    doc: { _id: 6, a: biggerval },
    update: { $min: { a: 1e-15 } },
    expect: { doc: { _id: 6, a: 1e-15 }, modified: true },
  },
  {
    name: '$max with the positional operator',
    source: examples,
    doc: { _id: 7, y: [{ a: 2 }, { a: 6 }, { a: [9, 1, 1] }] },
    query: { _id: 7, 'y.a': 6 },
    positional: 1,
    update: { $max: { 'y.$.a': 7 } },
    expect: { doc: { _id: 7, y: [{ a: 2 }, { a: 7 }, { a: [9, 1, 1] }] }, modified: true },
  },
  {
    name: '$min with the positional operator',
    source: examples,
    doc: { _id: 8, y: [{ a: 2 }, { a: 6 }, { a: [9, 1, 1] }] },
    query: { _id: 8, 'y.a': 6 },
    positional: 1,
    update: { $min: { 'y.$.a': 5 } },
    expect: { doc: { _id: 8, y: [{ a: 2 }, { a: 5 }, { a: [9, 1, 1] }] }, modified: true },
  },
  {
    name: '$min lowers lowScore',
    source: docsMin,
    doc: { _id: 1, highScore: 800, lowScore: 200 },
    update: { $min: { lowScore: 150 } },
    expect: { doc: { _id: 1, highScore: 800, lowScore: 150 }, modified: true },
  },
  {
    name: '$min with a larger value does nothing',
    source: docsMin,
    doc: { _id: 1, highScore: 800, lowScore: 150 },
    update: { $min: { lowScore: 250 } },
    expect: { doc: { _id: 1, highScore: 800, lowScore: 150 }, modified: false },
  },
  {
    name: '$max raises highScore',
    source: docsMax,
    doc: { _id: 1, highScore: 800, lowScore: 200 },
    update: { $max: { highScore: 950 } },
    expect: { doc: { _id: 1, highScore: 950, lowScore: 200 }, modified: true },
  },
  {
    name: '$max with a smaller value does nothing',
    source: docsMax,
    doc: { _id: 1, highScore: 950, lowScore: 200 },
    update: { $max: { highScore: 870 } },
    expect: { doc: { _id: 1, highScore: 950, lowScore: 200 }, modified: false },
  },
  {
    name: '$min of dates',
    source: docsMin,
    doc: {
      _id: 1,
      desc: 'crafts',
      dateEntered: new Date('2013-10-01T05:00:00Z'),
      dateExpired: new Date('2013-10-01T16:38:16Z'),
    },
    update: { $min: { dateEntered: new Date('2013-09-25') } },
    expect: {
      doc: {
        _id: 1,
        desc: 'crafts',
        dateEntered: new Date('2013-09-25'),
        dateExpired: new Date('2013-10-01T16:38:16Z'),
      },
      modified: true,
    },
  },
  {
    name: '$max of dates',
    source: docsMax,
    doc: {
      _id: 1,
      desc: 'crafts',
      dateEntered: new Date('2013-10-01T05:00:00Z'),
      dateExpired: new Date('2013-10-01T16:38:16.163Z'),
    },
    update: { $max: { dateExpired: new Date('2013-09-30') } },
    expect: {
      doc: {
        _id: 1,
        desc: 'crafts',
        dateEntered: new Date('2013-10-01T05:00:00Z'),
        dateExpired: new Date('2013-10-01T16:38:16.163Z'),
      },
      modified: false,
    },
  },
  {
    name: '$min of a missing field sets it',
    source: docsMin,
    doc: { _id: 1 },
    update: { $min: { a: NumberInt(3) } },
    expect: { doc: { _id: 1, a: NumberInt(3) }, modified: true },
  },
  {
    name: '$max of a missing embedded field creates the path',
    source: docsMax,
    doc: { _id: 1 },
    update: { $max: { 'a.b': 3 } },
    expect: { doc: { _id: 1, a: { b: 3 } }, modified: true },
  },
  {
    name: '$max with an equal int32 keeps the stored double',
    source: compareNode,
    doc: { _id: 1, a: 1 },
    update: { $max: { a: NumberInt(1) } },
    expect: { doc: { _id: 1, a: 1 }, modified: false },
  },
  {
    name: '$min with an equal int64 keeps the stored int32',
    source: compareNode,
    doc: { _id: 1, a: NumberInt(5) },
    update: { $min: { a: NumberLong(5) } },
    expect: { doc: { _id: 1, a: NumberInt(5) }, modified: false },
  },
  {
    name: '$max takes an int64 that is larger than the double',
    source: compareNode,
    doc: { _id: 1, a: 1.5 },
    update: { $max: { a: NumberLong(2) } },
    expect: { doc: { _id: 1, a: NumberLong(2) }, modified: true },
  },
  {
    name: '$min across types: numbers sort below strings',
    source: 'MongoDB manual, $min (BSON comparison order)',
    doc: { _id: 1, a: 'x' },
    update: { $min: { a: 1 } },
    expect: { doc: { _id: 1, a: 1 }, modified: true },
  },
  {
    name: '$max across types: a string is above numbers',
    source: 'MongoDB manual, $max (BSON comparison order)',
    doc: { _id: 1, a: 5 },
    update: { $max: { a: 'x' } },
    expect: { doc: { _id: 1, a: 'x' }, modified: true },
  },
  {
    name: '$max over null takes the number',
    source: 'MongoDB manual, $max (BSON comparison order)',
    doc: { _id: 1, a: null },
    update: { $max: { a: 0 } },
    expect: { doc: { _id: 1, a: 0 }, modified: true },
  },
  {
    name: '$min with null takes null (null sorts below numbers)',
    source: 'MongoDB manual, $min (BSON comparison order)',
    doc: { _id: 1, a: 0 },
    update: { $min: { a: null } },
    expect: { doc: { _id: 1, a: null }, modified: true },
  },
  {
    name: '$max of documents compares field by field',
    source: compareNode,
    doc: { _id: 1, a: { x: 1 } },
    update: { $max: { a: { x: 2 } } },
    expect: { doc: { _id: 1, a: { x: 2 } }, modified: true },
  },
  {
    name: '$min of an array element',
    source: docsMin,
    doc: { _id: 1, a: [5, 6] },
    update: { $min: { 'a.1': 1 } },
    expect: { doc: { _id: 1, a: [5, 1] }, modified: true },
  },
  {
    name: '$min through a scalar fails',
    source: compareNode,
    doc: { _id: 1, a: 5 },
    update: { $min: { 'a.b': 1 } },
    expect: { error: 28 },
  },
];
