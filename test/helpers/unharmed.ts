// Bad-input tests check the same two things after each case: another client is still served
// and nothing stored changed; and a framing fault closes only the offending connection.

import * as assert from 'node:assert/strict';
import type { Collection, Document } from 'mongodb';
import type { TestServer } from './server.js';
import { RawConnection } from './wire-client.js';

export interface Unharmed {
  /** `coll` still holds exactly `seed`, and a ping through the test client succeeds. */
  othersUnaffected(): Promise<void>;
  /** Send `bytes` on a fresh raw connection: the server must close it, and harm no one else. */
  expectClosed(bytes: Buffer): Promise<void>;
}

export function unharmed(
  ts: () => TestServer,
  coll: () => Collection<Document>,
  seed: readonly Document[],
): Unharmed {
  const othersUnaffected = async (): Promise<void> => {
    assert.deepEqual(await coll().find().toArray(), seed, 'stored data unchanged');
    const ping = await ts().client.db('admin').command({ ping: 1 });
    assert.equal(ping['ok'], 1, 'another client keeps working');
  };
  return {
    othersUnaffected,
    async expectClosed(bytes) {
      const c = await RawConnection.connect(ts().server.port);
      c.send(bytes);
      const r = await c.next();
      assert.equal(r.kind, 'closed');
      c.close();
      await othersUnaffected();
    },
  };
}
