// A change stream's tryNext after a resumable error, as the drivers' change-streams spec tests
// it (change-streams-resume-errorLabels.json): failGetMoreAfterCursorCheckout fails one getMore
// once its cursor is checked out, and the server labels the error ResumableChangeStreamError
// (drivers for 4.4+ servers resume on that label alone); the driver opens a new change stream
// with resumeAfter set to the token it had, and the events after it arrive once each. failCommand
// fails a getMore before its cursor is known, so mongod adds no label: the driver resumes only
// if the failpoint gives the label itself, else the error reaches the application.
//
// Expected behaviour: mongod 7.0's error_labels.cpp (isResumableChangeStreamError: a getMore
// whose cursor's originating command is a change stream, failing with a resumable code) and the
// change-streams spec's "resume" prose and unified tests.

import { after, before, beforeEach, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MongoServerError } from 'mongodb';
import type {
  ChangeStream,
  ChangeStreamDocument,
  CommandStartedEvent,
  Collection,
  Db,
  Document,
  MongoClient,
} from 'mongodb';
import type { TestDoc } from '../helpers/driver.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

type Stream = ChangeStream<TestDoc, ChangeStreamDocument<TestDoc>>;

/** The next event, asking (tryNext) until one comes: each tryNext is one getMore at most. */
async function nextEvent(cs: Stream): Promise<Document> {
  for (let i = 0; i < 50; i++) {
    const ev = await cs.tryNext();
    if (ev !== null) return ev as unknown as Document;
  }
  assert.fail('no event came');
}

describe('change stream tryNext and resumable errors', () => {
  let ts: TestServer;
  let admin: Db;
  let client: MongoClient;
  let coll: Collection<TestDoc>;
  const started: CommandStartedEvent[] = [];

  before(async () => {
    ts = await startTestServer();
    admin = ts.client.db('admin');
    client = await ts.newClient({ monitorCommands: true });
    client.on('commandStarted', (e) => started.push(e));
  });
  after(async () => {
    await admin.command({ configureFailPoint: 'failCommand', mode: 'off' });
    await admin.command({ configureFailPoint: 'failGetMoreAfterCursorCheckout', mode: 'off' });
    await ts.stop();
  });
  beforeEach(async () => {
    const db = client.db('csr');
    await db.dropDatabase();
    await db.createCollection('c');
    coll = db.collection('c');
    started.length = 0;
  });

  /** Fails the next getMore once its cursor is checked out. */
  const failCheckedOut = (data: Document): Promise<Document> =>
    admin.command({
      configureFailPoint: 'failGetMoreAfterCursorCheckout',
      mode: { times: 1 },
      data,
    });
  /** Fails the next getMore before it runs (failCommand). */
  const failGetMore = (data: Document): Promise<Document> =>
    admin.command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['getMore'], ...data },
    });

  const names = (): string[] =>
    started
      .map((e) => e.commandName)
      .filter((n) => n === 'aggregate' || n === 'getMore' || n === 'killCursors');

  test('a resumable getMore error: tryNext resumes with resumeAfter and misses nothing', async () => {
    const cs: Stream = coll.watch();
    assert.equal(await cs.tryNext(), null, 'nothing yet');
    await coll.insertOne({ _id: 1 });
    const first = await nextEvent(cs);
    assert.equal(first['documentKey']['_id'], 1);
    await failCheckedOut({ errorCode: 6 }); // HostUnreachable
    await coll.insertOne({ _id: 2 });
    await coll.insertOne({ _id: 3 });
    started.length = 0;
    const second = await nextEvent(cs);
    assert.equal(second['documentKey']['_id'], 2, 'the event after the one delivered');
    const third = await nextEvent(cs);
    assert.equal(third['documentKey']['_id'], 3);
    // The failed getMore, then a new aggregate resuming after the token the driver held.
    const seen = names();
    assert.equal(seen[0], 'getMore');
    const resumeAt = seen.indexOf('aggregate');
    assert.ok(resumeAt > 0, `a new aggregate after the failed getMore: ${seen.join(', ')}`);
    const aggregate = started.filter((e) => e.commandName === 'aggregate')[0]?.command;
    const stage = (aggregate?.['pipeline'] as Document[])[0]?.['$changeStream'] as Document;
    assert.ok(stage['resumeAfter'] !== undefined, 'resumeAfter is set');
    assert.equal(stage['startAtOperationTime'], undefined);
    assert.deepEqual(
      (stage['resumeAfter'] as Document)['_data'],
      (first['_id'] as Document)['_data'],
      'resumed after the last event delivered (its token is the batch’s postBatchResumeToken)',
    );
    assert.equal(await cs.tryNext(), null, 'no event twice');
    await cs.close();
  });

  test('the server labels a change stream getMore’s resumable error, and only that', async () => {
    const db = ts.client.db('csr');
    const opened = await db.command({
      aggregate: 'c',
      pipeline: [{ $changeStream: {} }],
      cursor: {},
    });
    const id = opened['cursor']['id'];
    const failure = async (body: Document): Promise<MongoServerError> => {
      const e = await db.command(body).then(
        () => assert.fail('the getMore failed'),
        (err: unknown) => err,
      );
      assert.ok(e instanceof MongoServerError);
      return e;
    };
    await failCheckedOut({ errorCode: 6 });
    const e = await failure({ getMore: id, collection: 'c' });
    assert.equal(e.code, 6);
    assert.ok(e.hasErrorLabel('ResumableChangeStreamError'), 'labelled resumable');
    // failCommand fails the getMore before its cursor is known: no label, as mongod.
    await failGetMore({ errorCode: 6 });
    const early = await failure({ getMore: id, collection: 'c' });
    assert.equal(early.code, 6);
    assert.ok(!early.hasErrorLabel('ResumableChangeStreamError'));
    // A code outside the resumable set is not labelled.
    await failCheckedOut({ errorCode: 2 });
    const bad = await failure({ getMore: id, collection: 'c' });
    assert.equal(bad.code, 2);
    assert.ok(!bad.hasErrorLabel('ResumableChangeStreamError'));
    // Nor is a plain cursor's getMore failing the same way.
    await coll.insertMany([{ _id: 10 }, { _id: 11 }, { _id: 12 }]);
    const found = await db.command({ find: 'c', batchSize: 1 });
    await failCheckedOut({ errorCode: 6 });
    const plain = await failure({ getMore: found['cursor']['id'], collection: 'c' });
    assert.equal(plain.code, 6);
    assert.ok(!plain.hasErrorLabel('ResumableChangeStreamError'));
  });

  test('failCommand with the ResumableChangeStreamError label: tryNext resumes', async () => {
    const cs: Stream = coll.watch();
    assert.equal(await cs.tryNext(), null);
    await failGetMore({ errorCode: 50, errorLabels: ['ResumableChangeStreamError'] });
    await coll.insertOne({ _id: 1 });
    started.length = 0;
    const ev = await nextEvent(cs);
    assert.equal(ev['documentKey']['_id'], 1);
    assert.ok(names().includes('aggregate'), 'resumed');
    await cs.close();
  });

  test('an error without the label reaches tryNext’s caller and no aggregate is sent', async () => {
    const cs: Stream = coll.watch();
    assert.equal(await cs.tryNext(), null);
    // HostUnreachable from failCommand, without the label: not resumed (the spec's test).
    await failGetMore({ errorCode: 6 });
    started.length = 0;
    const e = await cs.tryNext().then(
      () => assert.fail('tryNext failed'),
      (err: unknown) => err,
    );
    assert.ok(e instanceof MongoServerError);
    assert.equal(e.code, 6);
    assert.ok(!names().includes('aggregate'), 'not resumed');
    await cs.close();
  });
});
