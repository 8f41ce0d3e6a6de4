// Unit tests for the runner's pure parts: requirements, argument conversion, client URIs,
// result conversion and the report table.
import { KNOWN_FAILURES, classifyKnown, isKnownButPassing } from './lib/known-failures.js';
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { Double, EJSON, Int32, Long, ObjectId } from 'bson';
import {
  compareVersions,
  parseVersion,
  requirementsUnmet,
  type ServerFacts,
} from './lib/requirements.js';
import { driverArgs, writeConcernOf, readPreferenceOf } from './lib/args.js';
import { clientUri } from './lib/entities.js';
import { bulkWriteResult, clientBulkWriteResult, updateResult } from './lib/results.js';
import { formatTable, summarize } from './lib/report.js';
import { TestFileError } from './lib/match.js';

const X = (json: string): unknown => EJSON.parse(json, { relaxed: false });

function facts(
  over: Partial<ServerFacts> = {},
  params: Record<string, unknown> | undefined = {
    enableTestCommands: true,
    acceptApiVersion2: false,
  },
): ServerFacts {
  return {
    version: [8, 0, 4],
    topology: 'replicaset',
    auth: false,
    parameters: async () => params,
    ...over,
  };
}

describe('requirements', () => {
  it('parses version strings; missing components are zero, suffixes ignored', () => {
    assert.deepEqual(parseVersion('4.0.10'), [4, 0, 10]);
    assert.deepEqual(parseVersion('4.2'), [4, 2, 0]);
    assert.deepEqual(parseVersion('5'), [5, 0, 0]);
    assert.deepEqual(parseVersion('4.9.0-alpha4-271-g7d5cf02'), [4, 9, 0]);
    assert.throws(() => parseVersion('x'), TestFileError);
  });
  it('compares versions numerically', () => {
    assert.equal(compareVersions([4, 0, 10], [4, 0, 9]), 1);
    assert.equal(compareVersions([3, 6, 0], [4, 0, 10]), -1);
    assert.equal(compareVersions([4, 2, 0], [4, 2, 0]), 0);
  });
  it('no requirements: met', async () => {
    assert.equal(await requirementsUnmet(undefined, facts()), undefined);
  });
  it('min and max server version are inclusive', async () => {
    assert.equal(await requirementsUnmet(X('[{"minServerVersion": "8.0.4"}]'), facts()), undefined);
    assert.match(
      (await requirementsUnmet(X('[{"minServerVersion": "8.0.5"}]'), facts())) ?? '',
      /minServerVersion/,
    );
    assert.equal(await requirementsUnmet(X('[{"maxServerVersion": "8.0.4"}]'), facts()), undefined);
    assert.match(
      (await requirementsUnmet(X('[{"maxServerVersion": "8.0"}]'), facts())) ?? '',
      /maxServerVersion/,
    );
  });
  it('topologies; sharded-replicaset counts as sharded only', async () => {
    assert.equal(
      await requirementsUnmet(X('[{"topologies": ["single", "replicaset"]}]'), facts()),
      undefined,
    );
    assert.match(
      (await requirementsUnmet(X('[{"topologies": ["sharded", "load-balanced"]}]'), facts())) ?? '',
      /topology replicaset/,
    );
    assert.equal(
      await requirementsUnmet(
        X('[{"topologies": ["sharded-replicaset"]}]'),
        facts({ topology: 'sharded' }),
      ),
      undefined,
    );
    assert.notEqual(
      await requirementsUnmet(X('[{"topologies": ["sharded-replicaset"]}]'), facts()),
      undefined,
    );
  });
  it('any one requirement met is enough', async () => {
    assert.equal(
      await requirementsUnmet(
        X('[{"topologies": ["sharded"]}, {"minServerVersion": "4.0"}]'),
        facts(),
      ),
      undefined,
    );
  });
  it('serverless, auth, authMechanism, csfle', async () => {
    assert.notEqual(await requirementsUnmet(X('[{"serverless": "require"}]'), facts()), undefined);
    assert.equal(await requirementsUnmet(X('[{"serverless": "forbid"}]'), facts()), undefined);
    assert.notEqual(await requirementsUnmet(X('[{"auth": true}]'), facts()), undefined);
    assert.equal(await requirementsUnmet(X('[{"auth": false}]'), facts()), undefined);
    assert.notEqual(
      await requirementsUnmet(X('[{"auth": false}]'), facts({ auth: true })),
      undefined,
    );
    assert.notEqual(await requirementsUnmet(X('[{"authMechanism": "PLAIN"}]'), facts()), undefined);
    assert.notEqual(await requirementsUnmet(X('[{"csfle": true}]'), facts()), undefined);
    assert.equal(await requirementsUnmet(X('[{"csfle": false}]'), facts()), undefined);
  });
  it('serverParameters compare flexibly; missing or failing getParameter is unmet', async () => {
    assert.equal(
      await requirementsUnmet(X('[{"serverParameters": {"enableTestCommands": true}}]'), facts()),
      undefined,
    );
    assert.notEqual(
      await requirementsUnmet(X('[{"serverParameters": {"acceptApiVersion2": true}}]'), facts()),
      undefined,
    );
    assert.notEqual(
      await requirementsUnmet(X('[{"serverParameters": {"requireApiVersion": false}}]'), facts()),
      undefined,
    );
    assert.equal(
      await requirementsUnmet(X('[{"serverParameters": {"n": 1}}]'), facts({}, { n: 1.0 })),
      undefined,
    );
    assert.notEqual(
      await requirementsUnmet(X('[{"serverParameters": {"n": 1}}]'), facts({}, undefined)),
      undefined,
    );
  });
  it('an unknown requirement field is an error in the test file', async () => {
    await assert.rejects(requirementsUnmet(X('[{"bogus": 1}]'), facts()), TestFileError);
  });
});

describe('argument conversion', () => {
  it('keeps server-bound content as BSON, turns options into JS numbers', () => {
    const a = driverArgs(
      X(
        '{"filter": {"x": 1}, "batchSize": 2, "limit": {"$numberLong": "3"}, "sort": {"_id": -1}, "upsert": true}',
      ),
    );
    assert.ok((a.filter as Record<string, unknown>).x instanceof Int32);
    assert.equal(a.batchSize, 2);
    assert.equal(a.limit, 3);
    assert.deepEqual(a.sort, { _id: -1 });
    assert.equal(a.upsert, true);
  });
  it('converts inside write models but keeps their documents', () => {
    const a = driverArgs(
      X(
        '{"requests": [{"updateOne": {"filter": {"_id": 1}, "update": {"$inc": {"x": 1}}, "upsert": true}}]}',
      ),
    );
    const m = (a.requests as Record<string, Record<string, unknown>>[])[0]?.updateOne;
    assert.ok(m !== undefined);
    assert.ok((m.filter as Record<string, unknown>)._id instanceof Int32);
    assert.ok((m.update as Record<string, Record<string, unknown>>).$inc?.x instanceof Int32);
    assert.equal(m.upsert, true);
  });
  it('large int64 options stay Long', () => {
    const a = driverArgs({ n: Long.fromString('9223372036854775807'), d: new Double(2.5) });
    assert.ok(a.n instanceof Long);
    assert.equal(a.d, 2.5);
  });
  it('write concern and read preference objects', () => {
    assert.deepEqual(writeConcernOf(X('{"w": "majority", "journal": true, "wtimeoutMS": 100}')), {
      w: 'majority',
      journal: true,
      wtimeoutMS: 100,
    });
    assert.deepEqual(writeConcernOf(X('{"w": 1}')), { w: 1 });
    assert.throws(() => writeConcernOf(X('{"x": 1}')), TestFileError);
    const rp = readPreferenceOf(X('{"mode": "secondaryPreferred", "maxStalenessSeconds": 100}'));
    assert.equal(rp?.mode, 'secondaryPreferred');
    assert.equal(rp?.maxStalenessSeconds, 100);
  });
});

describe('client URIs', () => {
  it('adds uriOptions, replacing what the base URI says', () => {
    assert.equal(clientUri('mongodb://h:1/?replicaSet=rs0', {}), 'mongodb://h:1/?replicaSet=rs0');
    assert.equal(clientUri('mongodb://h:1', { appName: 'x' }), 'mongodb://h:1/?appName=x');
    assert.equal(
      clientUri(
        'mongodb://h:1/?w=1',
        X('{"w": "majority", "retryWrites": false}') as Record<string, unknown>,
      ),
      'mongodb://h:1/?w=majority&retryWrites=false',
    );
    assert.equal(
      clientUri('mongodb://h:1/?W=1', X('{"w": 2}') as Record<string, unknown>),
      'mongodb://h:1/?w=2',
    );
  });
  it('directConnection drops the replicaSet option', () => {
    assert.equal(
      clientUri('mongodb://h:1/?replicaSet=rs0', { directConnection: true }),
      'mongodb://h:1/?directConnection=true',
    );
  });
});

describe('result conversion', () => {
  it('UpdateResult drops a null upsertedId', () => {
    assert.deepEqual(
      updateResult({
        acknowledged: true,
        matchedCount: 1,
        modifiedCount: 1,
        upsertedCount: 0,
        upsertedId: null,
      }),
      { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 },
    );
    assert.deepEqual(
      updateResult({ matchedCount: 0, modifiedCount: 0, upsertedCount: 1, upsertedId: 5 }),
      { matchedCount: 0, modifiedCount: 0, upsertedCount: 1, upsertedId: 5 },
    );
  });
  it('BulkWriteResult keeps the CRUD spec fields', () => {
    const id = new ObjectId();
    assert.deepEqual(
      bulkWriteResult({
        insertedCount: 1,
        matchedCount: 0,
        modifiedCount: 0,
        deletedCount: 0,
        upsertedCount: 0,
        insertedIds: { 0: id },
        upsertedIds: {},
        ok: 1,
      }),
      {
        deletedCount: 0,
        insertedCount: 1,
        insertedIds: { 0: id },
        matchedCount: 0,
        modifiedCount: 0,
        upsertedCount: 0,
        upsertedIds: {},
      },
    );
  });
  it('client bulk write results: Maps become documents, driver extras go', () => {
    const r = clientBulkWriteResult({
      insertedCount: 1,
      upsertedCount: 0,
      matchedCount: 1,
      modifiedCount: 1,
      deletedCount: 0,
      insertResults: new Map([[0, { insertedId: 1 }]]),
      updateResults: new Map([[1, { matchedCount: 1, modifiedCount: 1, didUpsert: false }]]),
      deleteResults: new Map(),
    });
    assert.deepEqual(r, {
      insertedCount: 1,
      upsertedCount: 0,
      matchedCount: 1,
      modifiedCount: 1,
      deletedCount: 0,
      insertResults: { 0: { insertedId: 1 } },
      updateResults: { 1: { matchedCount: 1, modifiedCount: 1 } },
      deleteResults: {},
    });
    const summary = clientBulkWriteResult({
      insertedCount: 0,
      upsertedCount: 0,
      matchedCount: 0,
      modifiedCount: 0,
      deletedCount: 0,
    });
    assert.equal(summary !== undefined && 'insertResults' in summary, false);
  });
});

describe('report', () => {
  it('summarizes per folder in the given order and totals the table', () => {
    const base = { durationMs: 0 };
    const rows = summarize(
      [
        { folder: 'b', file: 'x.json', description: '1', status: 'passed', ...base },
        { folder: 'a', file: 'y.json', description: '2', status: 'failed', reason: 'r', ...base },
        { folder: 'a', file: 'z.json', description: '3', status: 'skipped', reason: 'r', ...base },
        { folder: 'b', file: 'x.json', description: '4', status: 'known', reason: 'r', ...base },
      ],
      ['a', 'b', 'c'],
    );
    assert.deepEqual(
      rows.map((r) => [r.folder, r.files, r.tests, r.passed, r.failed, r.known, r.skipped]),
      [
        ['a', 2, 2, 0, 1, 0, 1],
        ['b', 1, 2, 1, 0, 1, 0],
      ],
    );
    const table = formatTable(rows).split('\n');
    assert.match(table[0] ?? '', /^folder\s+files\s+tests\s+passed\s+failed\s+known\s+skipped$/);
    assert.match(table.at(-2) ?? '', /^total\s+3\s+4\s+1\s+1\s+1\s+1$/);
    assert.match(table.at(-1) ?? '', /^50\.0% of the runnable tests pass/);
  });
});

describe('known failures', () => {
  const base = { durationMs: 0, folder: 'crud', file: 'bypassDocumentValidation.json' };
  it("a failure with its entry's signature is known, with the entry's reason first", () => {
    const r = classifyKnown({
      ...base,
      description: 'InsertMany passes bypassDocumentValidation: false',
      status: 'failed',
      reason:
        'expectEvents[...]: $.bypassDocumentValidation: missing; expected false (observed ...)',
    });
    assert.equal(r.status, 'known');
    assert.match(r.reason ?? '', /^driver: .*\(observed: expectEvents/);
  });
  it('a failure of a listed test for another reason stays a failure', () => {
    const failed = {
      ...base,
      description: 'InsertMany passes bypassDocumentValidation: false',
      status: 'failed' as const,
      reason: 'outcome: $: value differs',
    };
    assert.deepEqual(classifyKnown(failed), failed);
  });
  it('an unlisted test, or a test of another folder, is untouched', () => {
    const other = { ...base, folder: 'gridfs', description: 'x', status: 'failed' as const };
    assert.deepEqual(
      classifyKnown({ ...other, reason: '$.bypassDocumentValidation: missing; expected false' }),
      { ...other, reason: '$.bypassDocumentValidation: missing; expected false' },
    );
  });
  it("a test listed by description that passes is stale; a file-wide entry's passing test is not", () => {
    const passed = { status: 'passed' as const, durationMs: 0 };
    assert.equal(
      isKnownButPassing({
        ...passed,
        folder: 'retryable-writes',
        file: 'bulkWrite.json',
        description: 'First insertOne is never committed',
      }),
      true,
    );
    assert.equal(isKnownButPassing({ ...passed, ...base, description: 'anything' }), false);
  });
  it('every entry names a folder, a file and a signature, and says whose limitation it is', () => {
    for (const k of KNOWN_FAILURES) {
      assert.ok(k.folder !== '' && k.file.endsWith('.json') && k.signature !== '', k.file);
      assert.match(k.reason, /^(driver|topology): /, k.file);
    }
  });
});
