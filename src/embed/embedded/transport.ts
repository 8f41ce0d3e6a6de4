// How the embedded client runs a command: the command document is encoded as a driver
// encodes an OP_MSG body, handed to the server's in-process connection, and the reply decoded
// with the driver's default options (promoted numbers, Buffers as Binary), so values have the
// types a MongoClient returns. A reply with ok: 0 becomes the driver's MongoServerError.

// bson comes through the driver: `bson` imported as an ES module would be a second copy of
// its classes beside the driver's CommonJS one, and instanceof checks against the driver's
// ObjectId or Int32 would fail.
import { BSON, MongoClientClosedError, MongoServerError, MongoWriteConcernError } from 'mongodb';
import type { Document, Double } from 'mongodb';

type DeserializeOptions = BSON.DeserializeOptions;
const { deserialize, serialize } = BSON;
import type { InProcessConnection } from '../../server/in-process.js';

export class Transport {
  private closedByClient = false;
  /** Idle connections. One per request in flight, as a driver's pool: a request waiting on a lock never holds up another. */
  private readonly idle: InProcessConnection[] = [];
  private readonly all = new Set<InProcessConnection>();

  constructor(private readonly connect: () => InProcessConnection) {}

  get isClosed(): boolean {
    return this.closedByClient;
  }

  markClosed(): void {
    this.closedByClient = true;
  }

  private async run(body: Uint8Array): Promise<Uint8Array> {
    let c = this.idle.pop();
    if (c === undefined || c.isClosed) {
      c = this.connect();
      this.all.add(c);
    }
    try {
      return await c.run(body);
    } finally {
      if (c.isClosed) this.all.delete(c);
      else this.idle.push(c);
    }
  }

  /**
   * Run `command` on `dbName`; the reply, or a MongoServerError when the server said ok: 0
   * (MongoWriteConcernError when the reply carries a writeConcernError, as the driver does).
   * `decode` takes the driver's per-command BSON options (promoteValues, promoteLongs, ...).
   */
  async command(
    dbName: string,
    command: Document,
    decode: DeserializeOptions = {},
  ): Promise<Document> {
    if (this.isClosed) throw new MongoClientClosedError();
    const body = serialize(
      { ...command, $db: dbName },
      { checkKeys: false, ignoreUndefined: false, serializeFunctions: false },
    );
    const bytes = await this.run(body);
    const reply = deserialize(bytes, decode);
    const okValue: unknown = reply['ok'];
    const ok =
      typeof okValue === 'number' ? okValue : Number((okValue as Double | undefined)?.valueOf());
    if (ok !== 1) throw new MongoServerError(reply);
    if (reply['writeConcernError'] !== undefined)
      throw new MongoWriteConcernError(
        reply as ConstructorParameters<typeof MongoWriteConcernError>[0],
      );
    return reply;
  }
}

/** The BSON decoding options a command's options may carry, as the driver reads them. */
export function decodeOptions(options: Document | undefined): DeserializeOptions {
  const out: DeserializeOptions = {};
  if (options === undefined) return out;
  for (const k of [
    'promoteValues',
    'promoteLongs',
    'promoteBuffers',
    'bsonRegExp',
    'useBigInt64',
  ] as const) {
    const v: unknown = options[k];
    if (typeof v === 'boolean') out[k] = v;
  }
  return out;
}

/** The own field `key` of a document given by the caller (never a prototype's). */
export function own(doc: Document, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(doc, key) ? doc[key] : undefined;
}
