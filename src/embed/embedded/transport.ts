// How the embedded client runs a command: the command document is encoded as a driver
// encodes an OP_MSG body, handed to the server's in-process connection, and the reply decoded
// with the driver's default options (promoted numbers, Buffers as Binary), so values have the
// types a MongoClient returns. A reply with ok: 0 becomes the driver's MongoServerError.

import { deserialize, serialize } from 'bson';
import type { Document } from 'bson';
import { MongoClientClosedError, MongoServerError } from 'mongodb';
import type { InProcessConnection } from '../../server/in-process.js';

export class Transport {
  private closedByClient = false;

  constructor(private readonly connection: InProcessConnection) {}

  get isClosed(): boolean {
    return this.closedByClient || this.connection.isClosed;
  }

  markClosed(): void {
    this.closedByClient = true;
  }

  /** Run `command` on `dbName`; the reply, or a MongoServerError when the server said ok: 0. */
  async command(dbName: string, command: Document): Promise<Document> {
    if (this.isClosed) throw new MongoClientClosedError();
    const body = serialize(
      { ...command, $db: dbName },
      { checkKeys: false, ignoreUndefined: false, serializeFunctions: false },
    );
    const reply = deserialize(await this.connection.run(body));
    if (reply['ok'] !== 1) throw new MongoServerError(reply);
    return reply;
  }
}

/** The own field `key` of a document given by the caller (never a prototype's). */
export function own(doc: Document, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(doc, key) ? doc[key] : undefined;
}
