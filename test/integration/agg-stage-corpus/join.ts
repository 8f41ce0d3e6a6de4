// Stages reading other collections or sub-pipelines: $lookup $graphLookup $facet $unionWith.

import type { Document } from 'mongodb';
import { date, jstest, l, manual, mongodSource } from './types.js';
import type { StageCase } from './types.js';

const orders: Document[] = [
  { _id: 1, item: 'almonds', price: 12, quantity: 2 },
  { _id: 2, item: 'pecans', price: 20, quantity: 1 },
  { _id: 3 },
];

const inventory: Document[] = [
  { _id: 1, sku: 'almonds', description: 'product 1', instock: 120 },
  { _id: 2, sku: 'bread', description: 'product 2', instock: 80 },
  { _id: 3, sku: 'cashews', description: 'product 3', instock: 60 },
  { _id: 4, sku: 'pecans', description: 'product 4', instock: 70 },
  { _id: 5, sku: null, description: 'Incomplete' },
  { _id: 6 },
];

const warehouses: Document[] = [
  { _id: 1, stock_item: 'almonds', warehouse: 'A', instock: 120 },
  { _id: 2, stock_item: 'pecans', warehouse: 'A', instock: 80 },
  { _id: 3, stock_item: 'almonds', warehouse: 'B', instock: 60 },
  { _id: 4, stock_item: 'cookies', warehouse: 'B', instock: 40 },
  { _id: 5, stock_item: 'cookies', warehouse: 'A', instock: 80 },
];

const holidays: Document[] = [
  { _id: 1, year: 2018, name: 'New Years', date: date('2018-01-01T00:00:00Z') },
  { _id: 2, year: 2018, name: 'Pi Day', date: date('2018-03-14T00:00:00Z') },
  { _id: 3, year: 2018, name: 'Ice Cream Day', date: date('2018-07-15T00:00:00Z') },
  { _id: 4, year: 2017, name: 'New Years', date: date('2017-01-01T00:00:00Z') },
  { _id: 5, year: 2017, name: 'Ice Cream Day', date: date('2017-07-16T00:00:00Z') },
];

const restaurants: Document[] = [
  { _id: 1, name: 'American Steak House', food: ['filet', 'sirloin'], beverages: ['beer', 'wine'] },
  {
    _id: 2,
    name: 'Honest John Pizza',
    food: ['cheese pizza', 'pepperoni pizza'],
    beverages: ['soda'],
  },
];

const lookup: StageCase[] = [
  {
    name: '$lookup equality; null and missing local values match null and missing foreign ones',
    source: manual('operator/aggregation/lookup') + ' (Perform a Single Equality Join)',
    docs: orders,
    collections: { inventory },
    pipeline: [
      {
        $lookup: {
          from: 'inventory',
          localField: 'item',
          foreignField: 'sku',
          as: 'inventory_docs',
        },
      },
    ],
    expected: [
      {
        _id: 1,
        item: 'almonds',
        price: 12,
        quantity: 2,
        inventory_docs: [inventory[0] as Document],
      },
      {
        _id: 2,
        item: 'pecans',
        price: 20,
        quantity: 1,
        inventory_docs: [inventory[3] as Document],
      },
      { _id: 3, inventory_docs: [inventory[4] as Document, inventory[5] as Document] },
    ],
  },
  {
    name: '$lookup with an array local field matches any element',
    source: manual('operator/aggregation/lookup') + ' (Use $lookup with an Array)',
    docs: [
      {
        _id: 1,
        title: 'Reading is ...',
        enrollmentlist: ['giraffe2', 'pandabear', 'artie'],
        days: ['M', 'W', 'F'],
      },
      { _id: 2, title: 'But Writing ...', enrollmentlist: ['giraffe1', 'artie'], days: ['T', 'F'] },
    ],
    collections: {
      members: [
        { _id: 1, name: 'artie', status: 'A' },
        { _id: 2, name: 'giraffe', status: 'D' },
        { _id: 3, name: 'giraffe1', status: 'A' },
        { _id: 4, name: 'panda', status: 'A' },
        { _id: 5, name: 'pandabear', status: 'A' },
        { _id: 6, name: 'giraffe2', status: 'D' },
      ],
    },
    pipeline: [
      {
        $lookup: {
          from: 'members',
          localField: 'enrollmentlist',
          foreignField: 'name',
          as: 'enrollee_info',
        },
      },
      { $project: { ids: { $sortArray: { input: '$enrollee_info._id', sortBy: 1 } } } },
    ],
    expected: [
      { _id: 1, ids: [1, 5, 6] },
      { _id: 2, ids: [1, 3] },
    ],
  },
  {
    name: '$lookup then $mergeObjects into the root',
    source: manual('operator/aggregation/lookup') + ' (Use $lookup with $mergeObjects)',
    docs: [orders[0] as Document, orders[1] as Document],
    collections: {
      items: [
        { _id: 1, item: 'almonds', description: 'almond clusters', instock: 120 },
        { _id: 2, item: 'bread', description: 'raisin and nut bread', instock: 80 },
        { _id: 3, item: 'pecans', description: 'candied pecans', instock: 60 },
      ],
    },
    pipeline: [
      { $lookup: { from: 'items', localField: 'item', foreignField: 'item', as: 'fromItems' } },
      {
        $replaceRoot: {
          newRoot: { $mergeObjects: [{ $arrayElemAt: ['$fromItems', 0] }, '$$ROOT'] },
        },
      },
      { $project: { fromItems: 0 } },
    ],
    expected: [
      {
        _id: 1,
        item: 'almonds',
        description: 'almond clusters',
        instock: 120,
        price: 12,
        quantity: 2,
      },
      {
        _id: 2,
        item: 'pecans',
        description: 'candied pecans',
        instock: 60,
        price: 20,
        quantity: 1,
      },
    ],
  },
  {
    name: '$lookup let/pipeline with multiple join conditions',
    source:
      manual('operator/aggregation/lookup') + ' (Perform Multiple Joins and a Correlated Subquery)',
    docs: [
      { _id: 1, item: 'almonds', price: 12, ordered: 2 },
      { _id: 2, item: 'pecans', price: 20, ordered: 1 },
      { _id: 3, item: 'cookies', price: 10, ordered: 60 },
    ],
    collections: { warehouses },
    pipeline: [
      {
        $lookup: {
          from: 'warehouses',
          let: { order_item: '$item', order_qty: '$ordered' },
          pipeline: [
            {
              $match: {
                $expr: {
                  $and: [
                    { $eq: ['$stock_item', '$$order_item'] },
                    { $gte: ['$instock', '$$order_qty'] },
                  ],
                },
              },
            },
            { $project: { stock_item: 0, _id: 0 } },
          ],
          as: 'stockdata',
        },
      },
    ],
    expected: [
      {
        _id: 1,
        item: 'almonds',
        price: 12,
        ordered: 2,
        stockdata: [
          { warehouse: 'A', instock: 120 },
          { warehouse: 'B', instock: 60 },
        ],
      },
      {
        _id: 2,
        item: 'pecans',
        price: 20,
        ordered: 1,
        stockdata: [{ warehouse: 'A', instock: 80 }],
      },
      {
        _id: 3,
        item: 'cookies',
        price: 10,
        ordered: 60,
        stockdata: [{ warehouse: 'A', instock: 80 }],
      },
    ],
  },
  {
    name: '$lookup uncorrelated sub-query',
    source:
      manual('operator/aggregation/lookup') + ' (Perform an Uncorrelated Subquery with $lookup)',
    docs: [
      {
        _id: 1,
        student: 'Ann Aardvark',
        sickdays: [date('2018-05-01T00:00:00Z'), date('2018-08-23T00:00:00Z')],
      },
      {
        _id: 2,
        student: 'Zoe Zebra',
        sickdays: [date('2018-02-01T00:00:00Z'), date('2018-05-23T00:00:00Z')],
      },
    ],
    collections: { holidays },
    pipeline: [
      {
        $lookup: {
          from: 'holidays',
          pipeline: [
            { $match: { year: 2018 } },
            { $project: { _id: 0, date: { name: '$name', date: '$date' } } },
            { $replaceRoot: { newRoot: '$date' } },
          ],
          as: 'holidays',
        },
      },
      { $project: { student: 1, holidays: 1 } },
    ],
    expected: [1, 2].map((id) => ({
      _id: id,
      student: id === 1 ? 'Ann Aardvark' : 'Zoe Zebra',
      holidays: [
        { name: 'New Years', date: date('2018-01-01T00:00:00Z') },
        { name: 'Pi Day', date: date('2018-03-14T00:00:00Z') },
        { name: 'Ice Cream Day', date: date('2018-07-15T00:00:00Z') },
      ],
    })),
  },
  {
    name: '$lookup concise correlated sub-query (localField/foreignField with let/pipeline)',
    source:
      manual('operator/aggregation/lookup') +
      ' (Perform a Concise Correlated Subquery with $lookup)',
    docs: [
      { _id: 1, item: 'filet', restaurant_name: 'American Steak House' },
      { _id: 2, item: 'cheese pizza', restaurant_name: 'Honest John Pizza', drink: 'lemonade' },
      { _id: 3, item: 'cheese pizza', restaurant_name: 'Honest John Pizza', drink: 'soda' },
    ],
    collections: { restaurants },
    pipeline: [
      {
        $lookup: {
          from: 'restaurants',
          localField: 'restaurant_name',
          foreignField: 'name',
          let: { orders_drink: '$drink' },
          pipeline: [{ $match: { $expr: { $in: ['$$orders_drink', '$beverages'] } } }],
          as: 'matches',
        },
      },
    ],
    expected: [
      { _id: 1, item: 'filet', restaurant_name: 'American Steak House', matches: [] },
      {
        _id: 2,
        item: 'cheese pizza',
        restaurant_name: 'Honest John Pizza',
        drink: 'lemonade',
        matches: [],
      },
      {
        _id: 3,
        item: 'cheese pizza',
        restaurant_name: 'Honest John Pizza',
        drink: 'soda',
        matches: [restaurants[1] as Document],
      },
    ],
  },
  {
    name: '$lookup from a missing collection joins nothing',
    source: manual('operator/aggregation/lookup'),
    docs: [{ _id: 1, a: 1 }],
    pipeline: [{ $lookup: { from: 'nothing', localField: 'a', foreignField: 'a', as: 'j' } }],
    expected: [{ _id: 1, a: 1, j: [] }],
  },
  {
    name: '$lookup as a dotted path',
    source: manual('operator/aggregation/lookup') + " ('as' replaces an existing field)",
    docs: [{ _id: 1, a: 1, x: { y: 5, z: 2 } }],
    collections: { f: [{ _id: 7, a: 1 }] },
    pipeline: [{ $lookup: { from: 'f', localField: 'a', foreignField: 'a', as: 'x.y' } }],
    expected: [{ _id: 1, a: 1, x: { y: [{ _id: 7, a: 1 }], z: 2 } }],
  },
  {
    name: '$lookup not an object',
    source: mongodSource('pipeline/document_source_lookup.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $lookup: 1 }],
    error: 9,
  },
  {
    name: '$lookup without as',
    source: mongodSource('pipeline/document_source_lookup.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $lookup: { from: 'f', localField: 'a', foreignField: 'a' } }],
    error: 9,
  },
  {
    name: '$lookup localField without foreignField',
    source: mongodSource('pipeline/document_source_lookup.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $lookup: { from: 'f', localField: 'a', as: 'j' } }],
    error: 9,
  },
  {
    name: '$lookup unknown argument',
    source: mongodSource('pipeline/document_source_lookup.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $lookup: { from: 'f', localField: 'a', foreignField: 'a', as: 'j', x: 1 } }],
    error: 9,
  },
  {
    name: '$lookup without from nor pipeline',
    source: jstest('aggregation/sources/documents.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $lookup: { let: { id_lookup: '$id_name' }, as: 'aa' } }],
    error: 9,
  },
  {
    name: '$out inside a $lookup pipeline',
    source:
      mongodSource('pipeline/document_source_lookup.cpp') + ' (LookupRequirement::kNotAllowed)',
    docs: [{ _id: 1 }],
    pipeline: [{ $lookup: { from: 'f', pipeline: [{ $out: 'x' }], as: 'j' } }],
    error: 51047,
  },
  {
    name: '$merge inside a $lookup pipeline',
    source:
      mongodSource('pipeline/document_source_lookup.cpp') + ' (LookupRequirement::kNotAllowed)',
    docs: [{ _id: 1 }],
    pipeline: [{ $lookup: { from: 'f', pipeline: [{ $merge: 'x' }], as: 'j' } }],
    error: 51047,
  },
  {
    name: '$lookup sub-pipelines nested deeper than 20',
    source: mongodSource('pipeline/expression_context.h') + ' (kMaxSubPipelineDepth = 20)',
    docs: [{ _id: 1 }],
    pipeline: [
      Array.from({ length: 21 }).reduce<Document>(
        (inner) => ({ $lookup: { from: 'f', pipeline: [inner], as: 'j' } }),
        { $match: {} },
      ),
    ],
    error: 232,
  },
];

const employees: Document[] = [
  { _id: 1, name: 'Dev' },
  { _id: 2, name: 'Eliot', reportsTo: 'Dev' },
  { _id: 3, name: 'Ron', reportsTo: 'Eliot' },
  { _id: 4, name: 'Andrew', reportsTo: 'Eliot' },
  { _id: 5, name: 'Asya', reportsTo: 'Ron' },
  { _id: 6, name: 'Dan', reportsTo: 'Andrew' },
];

const airports: Document[] = [
  { _id: 0, airport: 'JFK', connects: ['BOS', 'ORD'] },
  { _id: 1, airport: 'BOS', connects: ['JFK', 'PWM'] },
  { _id: 2, airport: 'ORD', connects: ['JFK'] },
  { _id: 3, airport: 'PWM', connects: ['BOS', 'LHR'] },
  { _id: 4, airport: 'LHR', connects: ['PWM'] },
];

const socialPeople: Document[] = [
  {
    _id: 1,
    name: 'Tanya Jordan',
    friends: ['Shirley Soto', 'Terry Hawkins', 'Carole Hale'],
    hobbies: ['tennis', 'unicycling', 'golf'],
  },
  {
    _id: 2,
    name: 'Carole Hale',
    friends: ['Joseph Dennis', 'Tanya Jordan', 'Terry Hawkins'],
    hobbies: ['archery', 'golf', 'woodworking'],
  },
  {
    _id: 3,
    name: 'Terry Hawkins',
    friends: ['Tanya Jordan', 'Carole Hale', 'Angelo Ward'],
    hobbies: ['knitting', 'frisbee'],
  },
  {
    _id: 4,
    name: 'Joseph Dennis',
    friends: ['Angelo Ward', 'Carole Hale'],
    hobbies: ['tennis', 'golf', 'topiary'],
  },
  {
    _id: 5,
    name: 'Angelo Ward',
    friends: ['Terry Hawkins', 'Shirley Soto', 'Joseph Dennis'],
    hobbies: ['travel', 'ceramics', 'golf'],
  },
  {
    _id: 6,
    name: 'Shirley Soto',
    friends: ['Angelo Ward', 'Tanya Jordan', 'Carole Hale'],
    hobbies: ['frisbee', 'set theory'],
  },
];

const graphXY: Document[] = [
  { _id: 0, x: 1, y: 1 },
  { _id: 1, x: 1, y: null },
  { _id: 2, x: 1, y: 1 },
  { _id: 3, x: 1 },
];

const sortArr = { $set: { arr: { $sortArray: { input: '$arr', sortBy: { _id: 1 } } } } };

const graphLookup: StageCase[] = [
  {
    name: '$graphLookup reporting hierarchy',
    source: manual('operator/aggregation/graphLookup') + ' (Within a Single Collection)',
    docs: employees,
    pipeline: [
      {
        $graphLookup: {
          from: 'input',
          startWith: '$reportsTo',
          connectFromField: 'reportsTo',
          connectToField: 'name',
          as: 'reportingHierarchy',
        },
      },
      {
        $project: {
          name: 1,
          chain: { $sortArray: { input: '$reportingHierarchy.name', sortBy: 1 } },
        },
      },
    ],
    expected: [
      { _id: 1, name: 'Dev', chain: [] },
      { _id: 2, name: 'Eliot', chain: ['Dev'] },
      { _id: 3, name: 'Ron', chain: ['Dev', 'Eliot'] },
      { _id: 4, name: 'Andrew', chain: ['Dev', 'Eliot'] },
      { _id: 5, name: 'Asya', chain: ['Dev', 'Eliot', 'Ron'] },
      { _id: 6, name: 'Dan', chain: ['Andrew', 'Dev', 'Eliot'] },
    ],
  },
  {
    name: '$graphLookup maxDepth and depthField (a long) across collections',
    source: manual('operator/aggregation/graphLookup') + ' (Across Multiple Collections)',
    docs: [
      { _id: 1, name: 'Dev', nearestAirport: 'JFK' },
      { _id: 2, name: 'Eliot', nearestAirport: 'JFK' },
      { _id: 3, name: 'Jeff', nearestAirport: 'BOS' },
    ],
    collections: { airports },
    pipeline: [
      {
        $graphLookup: {
          from: 'airports',
          startWith: '$nearestAirport',
          connectFromField: 'connects',
          connectToField: 'airport',
          maxDepth: 2,
          depthField: 'numConnections',
          as: 'destinations',
        },
      },
      {
        $project: {
          name: 1,
          d: {
            $sortArray: {
              input: {
                $map: { input: '$destinations', in: ['$$this.airport', '$$this.numConnections'] },
              },
              sortBy: 1,
            },
          },
        },
      },
    ],
    expected: [
      {
        _id: 1,
        name: 'Dev',
        d: [
          ['BOS', l(1)],
          ['JFK', l(0)],
          ['ORD', l(1)],
          ['PWM', l(2)],
        ],
      },
      {
        _id: 2,
        name: 'Eliot',
        d: [
          ['BOS', l(1)],
          ['JFK', l(0)],
          ['ORD', l(1)],
          ['PWM', l(2)],
        ],
      },
      {
        _id: 3,
        name: 'Jeff',
        d: [
          ['BOS', l(0)],
          ['JFK', l(1)],
          ['LHR', l(2)],
          ['ORD', l(2)],
          ['PWM', l(1)],
        ],
      },
    ],
  },
  {
    name: '$graphLookup maxDepth 0 stays at the start values',
    source:
      manual('operator/aggregation/graphLookup') + ' (maxDepth: 0 is a non-recursive $lookup)',
    docs: [{ _id: 1, nearestAirport: 'JFK' }],
    collections: { airports },
    pipeline: [
      {
        $graphLookup: {
          from: 'airports',
          startWith: '$nearestAirport',
          connectFromField: 'connects',
          connectToField: 'airport',
          maxDepth: 0,
          as: 'd',
        },
      },
    ],
    expected: [{ _id: 1, nearestAirport: 'JFK', d: [airports[0] as Document] }],
  },
  {
    name: '$graphLookup restrictSearchWithMatch',
    source: manual('operator/aggregation/graphLookup') + ' (With a Query Filter)',
    docs: socialPeople,
    pipeline: [
      { $match: { name: 'Tanya Jordan' } },
      {
        $graphLookup: {
          from: 'input',
          startWith: '$friends',
          connectFromField: 'friends',
          connectToField: 'name',
          as: 'golfers',
          restrictSearchWithMatch: { hobbies: 'golf' },
        },
      },
      { $project: { name: 1, golfers: { $sortArray: { input: '$golfers.name', sortBy: 1 } } } },
    ],
    expected: [
      {
        _id: 1,
        name: 'Tanya Jordan',
        golfers: ['Angelo Ward', 'Carole Hale', 'Joseph Dennis', 'Tanya Jordan'],
      },
    ],
  },
  {
    name: '$graphLookup: null matches null, not missing',
    source: jstest('aggregation/sources/graphLookup/missing_fields.js'),
    docs: graphXY,
    pipeline: [
      {
        $graphLookup: {
          from: 'input',
          startWith: '$y',
          connectFromField: 'x',
          connectToField: 'y',
          as: 'arr',
          maxDepth: 0,
        },
      },
      sortArr,
    ],
    expected: [
      { _id: 0, x: 1, y: 1, arr: [graphXY[0] as Document, graphXY[2] as Document] },
      { _id: 1, x: 1, y: null, arr: [graphXY[1] as Document] },
      { _id: 2, x: 1, y: 1, arr: [graphXY[0] as Document, graphXY[2] as Document] },
      { _id: 3, x: 1, arr: [] },
    ],
  },
  {
    name: '$graphLookup: startWith null',
    source: jstest('aggregation/sources/graphLookup/missing_fields.js'),
    docs: graphXY,
    pipeline: [
      {
        $graphLookup: {
          from: 'input',
          startWith: null,
          connectFromField: 'x',
          connectToField: 'y',
          as: 'arr',
          maxDepth: 0,
        },
      },
      { $project: { ids: '$arr._id' } },
    ],
    expected: [
      { _id: 0, ids: [1] },
      { _id: 1, ids: [1] },
      { _id: 2, ids: [1] },
      { _id: 3, ids: [1] },
    ],
  },
  {
    name: '$graphLookup: a missing connectFromField ends the search',
    source:
      mongodSource('pipeline/document_source_graph_lookup.cpp') +
      ' (connectFromField values via extractAllElementsAlongPath: none when missing)',
    docs: [{ _id: 1, start: 'a' }],
    collections: {
      g: [
        { _id: 1, name: 'a', next: 'b' },
        { _id: 2, name: 'b' },
        { _id: 3 },
        { _id: 4, name: null },
      ],
    },
    pipeline: [
      {
        $graphLookup: {
          from: 'g',
          startWith: '$start',
          connectFromField: 'next',
          connectToField: 'name',
          as: 'arr',
        },
      },
      { $project: { ids: { $sortArray: { input: '$arr._id', sortBy: 1 } } } },
    ],
    expected: [{ _id: 1, ids: [1, 2] }],
  },
  {
    name: '$graphLookup not an object',
    source: mongodSource('pipeline/document_source_graph_lookup.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $graphLookup: 1 }],
    error: 9,
  },
  {
    name: '$graphLookup from not a string',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: -1,
          startWith: { $literal: 0 },
          connectToField: 'a',
          connectFromField: 'b',
          as: 'output',
        },
      },
    ],
    error: 9,
  },
  {
    name: '$graphLookup from empty',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: '',
          startWith: { $literal: 0 },
          connectToField: 'a',
          connectFromField: 'b',
          as: 'output',
        },
      },
    ],
    error: 73,
  },
  {
    name: '$graphLookup without from',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          startWith: { $literal: 0 },
          connectToField: 'a',
          connectFromField: 'b',
          as: 'output',
        },
      },
    ],
    error: 9,
  },
  {
    name: '$graphLookup as a field path',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'f',
          startWith: { $literal: 0 },
          connectToField: 'a',
          connectFromField: 'b',
          as: '$output',
        },
      },
    ],
    error: 16410,
  },
  {
    name: '$graphLookup connectFromField a field path',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'f',
          startWith: { $literal: 0 },
          connectToField: 'a',
          connectFromField: '$b',
          as: 'output',
        },
      },
    ],
    error: 16410,
  },
  {
    name: '$graphLookup connectToField a field path',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'f',
          startWith: { $literal: 0 },
          connectToField: '$a',
          connectFromField: 'b',
          as: 'output',
        },
      },
    ],
    error: 16410,
  },
  {
    name: '$graphLookup depthField a field path',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'f',
          startWith: { $literal: 0 },
          connectToField: 'a',
          connectFromField: 'b',
          as: 'output',
          depthField: '$depth',
        },
      },
    ],
    error: 16410,
  },
  {
    name: '$graphLookup without startWith',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      { $graphLookup: { from: 'f', connectToField: 'a', connectFromField: 'b', as: 'output' } },
    ],
    error: 40105,
  },
  {
    name: '$graphLookup missing connectToField',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $graphLookup: { from: 'g', startWith: '$a', connectFromField: 'b', as: 'o' } }],
    error: 40105,
  },
  {
    name: '$graphLookup maxDepth not a number',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'g',
          startWith: '$a',
          connectFromField: 'b',
          connectToField: 'c',
          as: 'o',
          maxDepth: 'a',
        },
      },
    ],
    error: 40100,
  },
  {
    name: '$graphLookup negative maxDepth',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'g',
          startWith: '$a',
          connectFromField: 'b',
          connectToField: 'c',
          as: 'o',
          maxDepth: -1,
        },
      },
    ],
    error: 40101,
  },
  {
    name: '$graphLookup fractional maxDepth',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'g',
          startWith: '$a',
          connectFromField: 'b',
          connectToField: 'c',
          as: 'o',
          maxDepth: 2.5,
        },
      },
    ],
    error: 40102,
  },
  {
    name: '$graphLookup as not a string',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'g',
          startWith: '$a',
          connectFromField: 'b',
          connectToField: 'c',
          as: 1,
        },
      },
    ],
    error: 40103,
  },
  {
    name: '$graphLookup unknown option',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'g',
          startWith: '$a',
          connectFromField: 'b',
          connectToField: 'c',
          as: 'o',
          x: 1,
        },
      },
    ],
    error: 40104,
  },
  {
    name: '$graphLookup restrictSearchWithMatch not an object',
    source: jstest('aggregation/sources/graphLookup/error.js'),
    docs: [{ _id: 1 }],
    pipeline: [
      {
        $graphLookup: {
          from: 'g',
          startWith: '$a',
          connectFromField: 'b',
          connectToField: 'c',
          as: 'o',
          restrictSearchWithMatch: 1,
        },
      },
    ],
    error: 40185,
  },
];

const facet: StageCase[] = [
  {
    name: '$facet runs each pipeline on the same input',
    source: manual('operator/aggregation/facet'),
    docs: [
      { _id: 1, tags: ['a', 'b'], price: 10 },
      { _id: 2, tags: ['b'], price: 30 },
      { _id: 3, tags: ['b', 'c'] },
    ],
    pipeline: [
      {
        $facet: {
          byTag: [
            { $unwind: '$tags' },
            { $sortByCount: '$tags' },
            { $sort: { count: -1, _id: 1 } },
          ],
          byPrice: [
            { $match: { price: { $exists: 1 } } },
            { $bucket: { groupBy: '$price', boundaries: [0, 20, 40] } },
          ],
          total: [{ $count: 'n' }],
        },
      },
    ],
    expected: [
      {
        byTag: [
          { _id: 'b', count: 3 },
          { _id: 'a', count: 1 },
          { _id: 'c', count: 1 },
        ],
        byPrice: [
          { _id: 0, count: 1 },
          { _id: 20, count: 1 },
        ],
        total: [{ n: 3 }],
      },
    ],
  },
  {
    name: '$facet of an empty input outputs one document of empty arrays',
    source: jstest('aggregation/sources/facet/use_cases.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $match: { x: 1 } }, { $facet: { a: [{ $match: {} }], b: [{ $count: 'n' }] } }],
    expected: [{ a: [], b: [] }],
  },
  {
    name: '$facet not an object',
    source: mongodSource('pipeline/document_source_facet.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $facet: 1 }],
    error: 40169,
  },
  {
    name: '$facet empty',
    source: mongodSource('pipeline/document_source_facet.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $facet: {} }],
    error: 40169,
  },
  {
    name: '$facet value not an array',
    source: mongodSource('pipeline/document_source_facet.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $facet: { a: 1 } }],
    error: 40170,
  },
  {
    name: '$facet stage not an object',
    source: mongodSource('pipeline/document_source_facet.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $facet: { a: [1] } }],
    error: 40171,
  },
  {
    name: '$facet inside $facet',
    source: jstest('aggregation/sources/facet/facet_validate_pipelines.js'),
    docs: [{ _id: 1 }],
    pipeline: [{ $facet: { a: [{ $facet: { b: [] } }] } }],
    error: 40600,
  },
  {
    name: '$out inside $facet',
    source: mongodSource('pipeline/document_source_facet.cpp') + ' (FacetRequirement::kNotAllowed)',
    docs: [{ _id: 1 }],
    pipeline: [{ $facet: { a: [{ $out: 'x' }] } }],
    error: 40600,
  },
  {
    name: '$merge inside $facet',
    source: mongodSource('pipeline/document_source_facet.cpp') + ' (FacetRequirement::kNotAllowed)',
    docs: [{ _id: 1 }],
    pipeline: [{ $facet: { a: [{ $merge: 'x' }] } }],
    error: 40600,
  },
  {
    name: '$collStats inside $facet',
    source:
      mongodSource('pipeline/document_source_coll_stats.h') + ' (FacetRequirement::kNotAllowed)',
    docs: [{ _id: 1 }],
    pipeline: [{ $facet: { a: [{ $collStats: {} }] } }],
    error: 40600,
  },
];

const suppliers: Document[] = [
  { _id: 1, supplier: 'Aardvark and Sons', state: 'Texas' },
  { _id: 2, supplier: 'Bears Run', state: 'Delaware' },
  { _id: 3, supplier: 'Squid Mark', state: 'Ohio' },
];
const unionWarehouses: Document[] = [
  { _id: 1, warehouse: 'A', region: 'West', state: 'California' },
  { _id: 2, warehouse: 'B', region: 'Central', state: 'Colorado' },
  { _id: 3, warehouse: 'C', region: 'East', state: 'Florida' },
];

const unionWith: StageCase[] = [
  {
    name: '$unionWith with a pipeline',
    source: manual('operator/aggregation/unionWith') + ' (Report 1: All States)',
    docs: suppliers,
    collections: { warehouses: unionWarehouses },
    pipeline: [
      { $project: { state: 1, _id: 0 } },
      { $unionWith: { coll: 'warehouses', pipeline: [{ $project: { state: 1, _id: 0 } }] } },
    ],
    expected: [
      { state: 'Texas' },
      { state: 'Delaware' },
      { state: 'Ohio' },
      { state: 'California' },
      { state: 'Colorado' },
      { state: 'Florida' },
    ],
  },
  {
    name: '$unionWith string form, then $group',
    source: manual('operator/aggregation/unionWith'),
    docs: suppliers,
    collections: { warehouses: unionWarehouses },
    pipeline: [
      { $unionWith: 'warehouses' },
      { $group: { _id: '$_id', n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ],
    expected: [
      { _id: 1, n: 2 },
      { _id: 2, n: 2 },
      { _id: 3, n: 2 },
    ],
  },
  {
    name: '$unionWith a missing collection adds nothing',
    source:
      manual('operator/aggregation/unionWith') + ' (a non-existent collection is treated as empty)',
    docs: suppliers,
    pipeline: [{ $unionWith: { coll: 'nothing' } }, { $count: 'n' }],
    expected: [{ n: 3 }],
  },
  {
    name: '$unionWith not a string or object',
    source: mongodSource('pipeline/document_source_union_with.cpp'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unionWith: 1 }],
    error: 9,
  },
  {
    name: '$unionWith coll not a string',
    source: mongodSource('pipeline/document_source_union_with.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unionWith: { coll: 1 } }],
    error: 14,
  },
  {
    name: '$unionWith unknown field',
    source: mongodSource('pipeline/document_source_union_with.idl'),
    docs: [{ _id: 1 }],
    pipeline: [{ $unionWith: { coll: 'x', x: 1 } }],
    error: 40415,
  },
  {
    name: '$out inside $unionWith',
    source: mongodSource('pipeline/document_source_union_with.cpp') + ' (31441)',
    docs: [{ _id: 1 }],
    pipeline: [{ $unionWith: { coll: 'x', pipeline: [{ $out: 'y' }] } }],
    error: 31441,
  },
  {
    name: '$merge inside $unionWith',
    source: mongodSource('pipeline/document_source_union_with.cpp') + ' (31441)',
    docs: [{ _id: 1 }],
    pipeline: [{ $unionWith: { coll: 'x', pipeline: [{ $merge: 'y' }] } }],
    error: 31441,
  },
];

export const joinCases: readonly StageCase[] = [...lookup, ...graphLookup, ...facet, ...unionWith];
