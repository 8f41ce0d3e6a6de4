// The operation registry and the pure parts of currentOp's report: secrets never shown, the
// command form's truncation, mongod's date text, opids, kills.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Binary, Int32 } from 'bson';
import {
  OperationRegistry,
  interruptibleSleep,
  redactCommand,
} from '../../../src/commands/operations.js';
import { localIsoString, truncateCommand } from '../../../src/commands/diag/current-op.js';
import type { BsonDocument } from '../../../src/bson/types.js';
import type { ConnectionState } from '../../../src/commands/context.js';
import { ConnectionAuth } from '../../../src/auth/session.js';

/** The 1 of `{ ping: 1 }` as the server decodes it (int32; JS numbers are not BSON values). */
const one = new Int32(1);

const client = (id: number): ConnectionState => ({
  id,
  remote: `127.0.0.1:${40000 + id}`,
  local: '127.0.0.1:27017',
  clientMetadata: undefined,
  auth: new ConnectionAuth(true),
  appName: undefined,
});

describe('redactCommand', () => {
  test('passwords and SASL payloads are replaced (mongod shows "xxx")', () => {
    assert.deepEqual(redactCommand({ createUser: 'u', pwd: 'secret', roles: [] }), {
      createUser: 'u',
      pwd: 'xxx',
      roles: [],
    });
    assert.deepEqual(redactCommand({ updateUser: 'u', pwd: 'secret' }), {
      updateUser: 'u',
      pwd: 'xxx',
    });
    const payload = new Binary(Buffer.from('n,,n=user,r=nonce'));
    assert.deepEqual(redactCommand({ saslStart: one, mechanism: 'SCRAM-SHA-256', payload }), {
      saslStart: one,
      mechanism: 'SCRAM-SHA-256',
      payload: 'xxx',
    });
    assert.deepEqual(
      redactCommand({ hello: one, speculativeAuthenticate: { saslStart: one, payload } }),
      { hello: one, speculativeAuthenticate: 'xxx' },
    );
  });

  test('other commands are shown as sent, even with a field named pwd', () => {
    const find = { find: 'c', filter: { pwd: 'not a secret here' } };
    assert.equal(redactCommand(find), find);
  });

  test('the registry keeps only the redacted command', () => {
    const r = new OperationRegistry();
    const op = r.begin(client(1), { createUser: 'u', pwd: 'secret', $db: 'admin' }, 'admin');
    assert.equal(op.command['pwd'], 'xxx');
    assert.ok(!JSON.stringify(r.operations().map((o) => o.command)).includes('secret'));
    r.end(op);
  });
});

describe('truncateCommand (the currentOp command form)', () => {
  test('a command up to 1000 bytes is kept', () => {
    const cmd = { find: 'c', filter: { a: 'x'.repeat(100) } };
    assert.equal(truncateCommand(cmd), cmd);
  });

  test('a longer one becomes {$truncated: text of 1000 characters ending in "..."}, comment kept aside', () => {
    const out = truncateCommand({ find: 'c', filter: { a: 'x'.repeat(2000) }, comment: 'why' });
    assert.deepEqual(Object.keys(out), ['$truncated', 'comment']);
    const text = out['$truncated'] as string;
    assert.equal(text.length, 1000);
    assert.ok(text.startsWith('{ find: "c", filter: { a: "xxx'));
    assert.ok(text.endsWith('...'));
    assert.equal(out['comment'], 'why');
  });
});

describe('localIsoString (Date_t::toString)', () => {
  test('ISO 8601 with milliseconds and the UTC offset', () => {
    const text = localIsoString(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)));
    assert.match(text, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
    assert.equal(Date.parse(text), Date.UTC(2024, 0, 2, 3, 4, 5, 6));
  });
});

describe('OperationRegistry', () => {
  test('opids are positive, distinct and increasing; an ended op is gone', () => {
    const r = new OperationRegistry();
    const a = r.begin(client(1), { ping: one }, 'admin');
    const b = r.begin(client(2), { ping: one }, 'admin');
    assert.ok(a.opid > 0 && b.opid > a.opid);
    assert.deepEqual(
      r.operations().map((o) => o.opid),
      [a.opid, b.opid],
    );
    r.end(a);
    assert.deepEqual(
      r.operations().map((o) => o.opid),
      [b.opid],
    );
    assert.equal(r.kill(a.opid), false, 'an ended op cannot be killed');
    r.end(b);
  });

  test('op and ns as mongod reports them', () => {
    const r = new OperationRegistry();
    const cases: Array<[BsonDocument, string, string]> = [
      [{ find: 'c' }, 'query', 'db.c'],
      [{ getMore: one, collection: 'c' }, 'getmore', 'db.c'],
      [{ insert: 'c' }, 'insert', 'db.c'],
      [{ update: 'c' }, 'update', 'db.c'],
      [{ delete: 'c' }, 'remove', 'db.c'],
      [{ aggregate: 'c' }, 'command', 'db.c'],
      [{ aggregate: one }, 'command', 'db.$cmd.aggregate'],
      [{ ping: one }, 'command', 'db.$cmd'],
    ];
    for (const [body, logicalOp, ns] of cases) {
      const op = r.begin(client(1), body, 'db');
      assert.equal(op.logicalOp, logicalOp, JSON.stringify(body));
      assert.equal(op.ns, ns, JSON.stringify(body));
      r.end(op);
    }
  });

  test('kill aborts the signal and makes killPending; a sleep on it fails with Interrupted', async () => {
    const r = new OperationRegistry();
    const op = r.begin(client(1), { ping: one }, 'admin');
    const sleeping = interruptibleSleep(10_000, op.signal);
    assert.equal(op.killPending, false);
    assert.equal(r.kill(op.opid), true);
    assert.equal(op.killPending, true);
    await assert.rejects(sleeping, (e: unknown) => (e as { code?: number }).code === 11601);
    r.end(op);
  });
});
