// What a parsed OP_MSG keeps alive. Decoded binary values are views of the bytes they were
// decoded from, and sessions and cursors keep some of them (an lsid's UUID) long after the
// command: a body decoded in place from a large message would pin all of it.

import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Binary, Int32, UUID, serialize } from 'bson';
import { parseOpMsg } from '../../../src/wire/op-msg.js';
import { headerBytes, OpCode } from '../../../src/wire/opcodes.js';
import { SessionCatalog } from '../../../src/txn/sessions.js';
import type { BsonDocument } from '../../../src/bson/types.js';

/** An OP_MSG: the body section, then one document sequence. */
function opMsg(body: BsonDocument, sequence?: { id: string; docs: BsonDocument[] }): Buffer {
  const parts: Buffer[] = [
    Buffer.from([0, 0, 0, 0]),
    Buffer.from([0]),
    Buffer.from(serialize(body)),
  ];
  if (sequence !== undefined) {
    const docs = sequence.docs.map((d) => Buffer.from(serialize(d)));
    const id = Buffer.from(`${sequence.id}\0`);
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + id.length + docs.reduce((n, d) => n + d.length, 0));
    parts.push(Buffer.from([1]), size, id, ...docs);
  }
  const payload = Buffer.concat(parts);
  const header = Buffer.alloc(headerBytes);
  header.writeInt32LE(headerBytes + payload.length, 0);
  header.writeInt32LE(7, 4);
  header.writeInt32LE(OpCode.msg, 12);
  return Buffer.concat([header, payload]);
}

/** The memory under a binary value (compared by identity: never print it, it is large). */
function memoryOf(v: unknown): ArrayBufferLike {
  assert.ok(v instanceof Binary);
  return v.buffer.buffer;
}

const lsid = { id: new UUID() };
const docs: BsonDocument[] = Array.from({ length: 400 }, (_, i) => ({
  _id: new Int32(i),
  b: new Binary(Buffer.alloc(300, i)),
}));

describe('OP_MSG: what the parsed command keeps alive', () => {
  test('a small body of a large message is decoded from its own copy', () => {
    const msg = opMsg({ insert: 'c', lsid, $db: 'x' }, { id: 'documents', docs });
    assert.ok(msg.length > 100_000);
    const { body } = parseOpMsg(msg, 7);
    const id = (body['lsid'] as BsonDocument)['id'];
    assert.ok(memoryOf(id) !== msg.buffer, 'the lsid must not be a view of the message');
    assert.equal((id as Binary).toString('hex'), lsid.id.toHexString(false));
    // The documents of the sequence are read in place (they are stored from their bytes).
    const first = (body['documents'] as BsonDocument[])[0] as BsonDocument;
    assert.ok(memoryOf(first['b']) === msg.buffer);
  });

  test('a body that is most of its message is read in place', () => {
    const msg = opMsg({ insert: 'c', documents: docs, lsid, $db: 'x' });
    const { body } = parseOpMsg(msg, 7);
    assert.ok(memoryOf((body['lsid'] as BsonDocument)['id']) === msg.buffer);
  });

  test('a session keeps a copy of its lsid, not a view of the command that opened it', () => {
    const msg = opMsg({ insert: 'c', documents: docs, lsid, $db: 'x' });
    const { body } = parseOpMsg(msg, 7);
    const sessions = new SessionCatalog({ onSessionGone: () => undefined });
    const session = sessions.acquire(body['lsid'] as BsonDocument);
    assert.ok(memoryOf(session.lsid['id']) !== msg.buffer, 'the session keeps a view');
    assert.equal(sessions.acquire({ id: lsid.id }), session);
  });
});
