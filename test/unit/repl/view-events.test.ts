// View definitions are writes to <db>.system.views; with showExpandedEvents, database and
// cluster streams report them as create (nsType 'view'), modify and drop events on the view,
// as mongod's ChangeStreamViewDefinitionEventTransformation does. Collection streams, and
// streams without showExpandedEvents, see nothing of them.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Binary, Int32, Timestamp } from 'bson';
import { ChangeEventBuilder } from '../../../src/repl/change-events.js';
import type { ChangeStreamOptions } from '../../../src/repl/change-events.js';
import type { BsonDocument } from '../../../src/bson/types.js';

const options = (over: Partial<ChangeStreamOptions> = {}): ChangeStreamOptions => ({
  db: 'd',
  coll: undefined,
  fullDocument: 'default',
  fullDocumentBeforeChange: 'off',
  showExpandedEvents: true,
  showRawUpdateDescription: false,
  ...over,
});
const ui = new Binary(Buffer.alloc(16, 7), Binary.SUBTYPE_UUID);
const entry = (op: string, o: BsonDocument, i: number): BsonDocument => ({
  op,
  ns: 'd.system.views',
  ui,
  o,
  ts: new Timestamp({ t: 100, i }),
  wall: new Date(0),
});
const events = (opts: ChangeStreamOptions, e: BsonDocument): BsonDocument[] =>
  new ChangeEventBuilder(opts, () => null).eventsOf(e, undefined).map((x) => x.doc);

const definition: BsonDocument = {
  _id: 'd.v',
  viewOn: 'c',
  pipeline: [{ $match: { a: new Int32(1) } }],
};

test('insert, replacement and delete of a definition: create, modify, drop on the view', () => {
  const [create] = events(options(), entry('i', definition, 1));
  assert.equal(create?.['operationType'], 'create');
  assert.deepEqual(create?.['ns'], { db: 'd', coll: 'v' });
  assert.deepEqual(create?.['operationDescription'], {
    viewOn: 'c',
    pipeline: [{ $match: { a: new Int32(1) } }],
  });
  assert.equal(create?.['nsType'], 'view');
  assert.equal(create?.['collectionUUID'], undefined);
  assert.deepEqual(Object.keys(create ?? {}), [
    '_id',
    'operationType',
    'clusterTime',
    'wallTime',
    'ns',
    'operationDescription',
    'nsType',
  ]);

  const [modify] = events(options(), entry('u', { _id: 'd.v', viewOn: 'other', pipeline: [] }, 2));
  assert.equal(modify?.['operationType'], 'modify');
  assert.deepEqual(modify?.['ns'], { db: 'd', coll: 'v' });
  assert.deepEqual(modify?.['operationDescription'], { viewOn: 'other', pipeline: [] });

  const [drop] = events(options(), entry('d', { _id: 'd.v' }, 3));
  assert.equal(drop?.['operationType'], 'drop');
  assert.deepEqual(drop?.['ns'], { db: 'd', coll: 'v' });
  assert.equal(drop?.['operationDescription'], undefined);
});

test('a view on a time-series buckets collection is nsType timeseries', () => {
  const [create] = events(
    options(),
    entry('i', { _id: 'd.t', viewOn: 'system.buckets.t', pipeline: [] }, 1),
  );
  assert.equal(create?.['nsType'], 'timeseries');
});

test('not seen by collection streams, streams of other databases, or without showExpandedEvents', () => {
  assert.deepEqual(events(options({ coll: 'v' }), entry('i', definition, 1)), []);
  assert.deepEqual(events(options({ db: 'other' }), entry('i', definition, 1)), []);
  assert.deepEqual(events(options({ showExpandedEvents: false }), entry('i', definition, 1)), []);
  assert.equal(
    events(options({ db: undefined }), entry('i', definition, 1)).length,
    1,
    'a cluster stream sees it',
  );
});
