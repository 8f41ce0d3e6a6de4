// queryHash and planCacheKey as mongod computes them from a query's shape, the same in explain,
// the slow-query log line (51803) and system.profile; and the profile and log fields that go
// with them (queryFramework, a getMore's originatingCommand, the user of a profiled operation).
//
// Expected behaviour: mongod 7.0's canonical_query_encoder.cpp (what is shape and what is not:
// values are not, kinds, paths, regex flags, sort, projection and collation are; a logical
// node's children are sorted), plan_cache_key_factory / plan_cache_indexability (planCacheKey
// adds the indexes the predicates can use), curop.cpp (OpDebug::report and OpDebug::append:
// queryHash, planCacheKey, queryFramework, originatingCommand; appendUserInfo).

import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MinKey } from 'mongodb';
import type { Collection, Db, Document, FindOptions } from 'mongodb';
import { Logger } from '../../src/log.js';
import { freshCollection } from '../helpers/driver.js';
import type { TestDoc } from '../helpers/driver.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

interface Hashes {
  queryHash: string;
  planCacheKey: string;
}

async function hashesOf(
  c: Collection<TestDoc>,
  filter: Document,
  options: FindOptions = {},
): Promise<Hashes> {
  const explained = await c.find(filter, options).explain('queryPlanner');
  const planner = explained['queryPlanner'] as Document;
  const h = { queryHash: planner['queryHash'], planCacheKey: planner['planCacheKey'] };
  assert.match(String(h.queryHash), /^[0-9A-F]{8}$/);
  assert.match(String(h.planCacheKey), /^[0-9A-F]{8}$/);
  return h as Hashes;
}

describe('queryHash and planCacheKey: the shape of a query', () => {
  let ts: TestServer;
  let c: Collection<TestDoc>;
  const lines: string[] = [];
  const logged = (id: number): Array<{ attr: Record<string, unknown> }> =>
    lines
      .filter((l) => l.includes(`"id":${id},`))
      .map((l) => JSON.parse(l) as { attr: Record<string, unknown> });

  before(async () => {
    ts = await startTestServer({ logger: new Logger({ write: (l) => lines.push(l) }) });
    c = await freshCollection(
      ts.client.db('shape'),
      'c',
      Array.from({ length: 20 }, (_, i) => ({ _id: i, a: i, b: i % 3, s: `s${i}` })),
    );
  });
  after(() => ts.stop());

  test('values are not shape: the same hashes for the same shape', async () => {
    const pairs: Array<[Document, Document]> = [
      [{ a: 1 }, { a: 2 }],
      [
        { a: 1, b: 2 },
        { b: 0, a: 7 },
      ],
      [{ $and: [{ a: 1 }, { b: 1 }] }, { b: 2, a: 3 }],
      [{ a: { $in: [1, 2] } }, { a: { $in: [3, 4, 5] } }],
      [{ a: { $in: [1] } }, { a: 9 }],
      [{ $or: [{ a: 1 }, { b: 1 }] }, { $or: [{ b: 5 }, { a: 6 }] }],
      [{ s: /x/i }, { s: /y/i }],
      [{ a: { $gt: 1, $lt: 5 } }, { a: { $lt: 50, $gt: 10 } }],
    ];
    for (const [x, y] of pairs) {
      assert.deepEqual(
        await hashesOf(c, x),
        await hashesOf(c, y),
        `${JSON.stringify(x)} and ${JSON.stringify(y)} have one shape`,
      );
    }
    assert.deepEqual(
      await hashesOf(c, { a: 1 }, { sort: { b: 1 }, projection: { a: 1 } }),
      await hashesOf(c, { a: 5 }, { sort: { b: 1 }, projection: { a: 1 } }),
    );
  });

  test('kinds, paths, regex flags, sort, projection and collation are shape', async () => {
    const base = (await hashesOf(c, { a: 1 })).queryHash;
    const others: Array<[string, Promise<Hashes>]> = [
      ['another path', hashesOf(c, { b: 1 })],
      ['another operator', hashesOf(c, { a: { $gt: 1 } })],
      ['a second predicate', hashesOf(c, { a: 1, b: 1 })],
      ['$or', hashesOf(c, { $or: [{ a: 1 }, { b: 1 }] })],
      ['a sort', hashesOf(c, { a: 1 }, { sort: { b: 1 } })],
      ['a projection', hashesOf(c, { a: 1 }, { projection: { a: 1 } })],
      ['a collation', hashesOf(c, { a: 1 }, { collation: { locale: 'fr' } })],
      ['$gt MinKey', hashesOf(c, { a: { $gt: new MinKey() } })],
    ];
    const seen = new Map<string, string>([[base, '{a: 1}']]);
    for (const [what, p] of others) {
      const h = (await p).queryHash;
      assert.ok(!seen.has(h), `${what} differs from ${seen.get(h) ?? ''}`);
      seen.set(h, what);
    }
    const sortUp = await hashesOf(c, { a: 1 }, { sort: { b: 1 } });
    const sortDown = await hashesOf(c, { a: 1 }, { sort: { b: -1 } });
    assert.notEqual(sortUp.queryHash, sortDown.queryHash, 'the sort direction is shape');
    const regexI = await hashesOf(c, { s: /x/i });
    const regex = await hashesOf(c, { s: /x/ });
    assert.notEqual(regexI.queryHash, regex.queryHash, 'regex flags are shape');
    const inRe = await hashesOf(c, { s: { $in: ['a', /b/] } });
    const inPlain = await hashesOf(c, { s: { $in: ['a', 'b'] } });
    assert.notEqual(inRe.queryHash, inPlain.queryHash, '$in with a regex is its own shape');
  });

  test('planCacheKey also names the usable indexes: a new index on the path changes it, not queryHash', async () => {
    const d = await freshCollection(ts.client.db('shape'), 'indexed', [{ _id: 1, a: 1, z: 1 }]);
    const before = await hashesOf(d, { a: 1 });
    await d.createIndex({ z: 1 });
    assert.deepEqual(
      await hashesOf(d, { a: 1 }),
      before,
      'an index on another path changes nothing',
    );
    await d.createIndex({ a: 1 });
    const after = await hashesOf(d, { a: 1 });
    assert.equal(after.queryHash, before.queryHash);
    assert.notEqual(after.planCacheKey, before.planCacheKey);
    await d.createIndex({ a: 1, z: 1 }, { sparse: true });
    const sparse = await hashesOf(d, { a: 1 });
    assert.equal(sparse.queryHash, before.queryHash);
    assert.notEqual(sparse.planCacheKey, after.planCacheKey);
  });

  test('the slow-query line and system.profile carry explain’s hashes and queryFramework; a getMore its originatingCommand', async () => {
    const db = ts.client.db('shape');
    await db.command({ profile: 2, slowms: 0 });
    const filter = { b: 1 };
    const options: FindOptions = { sort: { a: -1 }, projection: { a: 1, b: 1 } };
    try {
      const cursor = c.find(filter, { ...options, batchSize: 2, comment: 'shape-find' });
      assert.equal((await cursor.toArray()).length, 7, 'a first batch and getMores');
    } finally {
      await db.command({ profile: 0, slowms: 100 });
    }
    const expected = await hashesOf(c, filter, options);
    const entries = await db
      .collection('system.profile')
      .find({
        ns: 'shape.c',
        $or: [{ 'command.comment': 'shape-find' }, { 'originatingCommand.comment': 'shape-find' }],
      })
      .toArray();
    const find = entries.find((e) => e['op'] === 'query');
    const getMore = entries.find((e) => e['op'] === 'getmore');
    assert.ok(find !== undefined && getMore !== undefined, 'the find and a getMore are profiled');
    for (const e of [find, getMore]) {
      assert.equal(e['queryHash'], expected.queryHash);
      assert.equal(e['planCacheKey'], expected.planCacheKey);
      assert.equal(e['queryFramework'], 'classic');
    }
    assert.equal(find['originatingCommand'], undefined);
    assert.equal((getMore['originatingCommand'] as Document)['find'], 'c');
    assert.equal((getMore['originatingCommand'] as Document)['comment'], 'shape-find');
    assert.deepEqual(
      Object.keys(getMore)
        .filter((k) => k !== '_id')
        .slice(0, 4),
      ['op', 'ns', 'command', 'originatingCommand'],
    );
    assert.deepEqual(find['allUsers'], []);
    assert.equal(find['user'], '');

    const slow = logged(51803).filter((l) => l.attr['ns'] === 'shape.c');
    const slowFind = slow.find(
      (l) => (l.attr['command'] as Document | undefined)?.['comment'] === 'shape-find',
    );
    const slowGetMore = slow.find(
      (l) => (l.attr['originatingCommand'] as Document | undefined)?.['comment'] === 'shape-find',
    );
    assert.ok(slowFind !== undefined && slowGetMore !== undefined);
    for (const l of [slowFind, slowGetMore]) {
      assert.equal(l.attr['queryHash'], expected.queryHash);
      assert.equal(l.attr['planCacheKey'], expected.planCacheKey);
      assert.equal(l.attr['queryFramework'], 'classic');
    }
    assert.equal((slowGetMore.attr['command'] as Document)['getMore'] !== undefined, true);
    const keys = Object.keys(slowGetMore.attr);
    assert.equal(keys.indexOf('originatingCommand'), keys.indexOf('command') + 1);
  });
});

describe('system.profile with access control', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ auth: { username: 'root', password: 'rootpw' } });
    await ts.client.db('admin').command({
      createUser: 'prof',
      pwd: 'profpw',
      roles: ['readWriteAnyDatabase', 'dbAdminAnyDatabase'],
    });
  });
  after(() => ts.stop());

  test('a profiled operation names its user: allUsers [{user, db}] and user "name@db"', async () => {
    const client = await ts.newClient(
      {},
      `mongodb://prof:profpw@${ts.server.host}/?replicaSet=rs0&authSource=admin`,
    );
    const db: Db = client.db('profauth');
    await db.collection<TestDoc>('c').insertOne({ _id: 1 });
    await db.command({ profile: 2 });
    await db.collection<TestDoc>('c').find({ _id: 1 }).comment('who').toArray();
    await db.command({ profile: 0 });
    const entry = await db.collection('system.profile').findOne({ 'command.comment': 'who' });
    assert.ok(entry !== null);
    assert.deepEqual(entry['allUsers'], [{ user: 'prof', db: 'admin' }]);
    assert.equal(entry['user'], 'prof@admin');
  });
});
