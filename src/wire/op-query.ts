// Legacy OP_QUERY (2004), kept only for the handshake: drivers open each connection with
// `isMaster`/`hello` on `admin.$cmd` over OP_QUERY and expect an OP_REPLY (1).

import { encodeDocument } from '../bson/codec.js';
import type { BsonDocument } from '../bson/types.js';
import { decodeBsonOrFail } from './op-msg.js';
import { headerBytes, OpCode, ProtocolError, writeHeader } from './opcodes.js';

export interface OpQueryRequest {
  readonly requestId: number;
  readonly fullCollectionName: string;
  readonly query: BsonDocument;
}

export function parseOpQuery(msg: Buffer, requestId: number): OpQueryRequest {
  let at = headerBytes + 4; // flags
  const nul = msg.indexOf(0, at);
  if (nul < 0) throw new ProtocolError('OP_QUERY collection name is not terminated');
  const fullCollectionName = msg.toString('utf8', at, nul);
  at = nul + 1 + 8; // numberToSkip, numberToReturn
  if (at + 5 > msg.length) throw new ProtocolError('OP_QUERY too short');
  const size = msg.readInt32LE(at);
  if (size < 5 || at + size > msg.length)
    throw new ProtocolError(`OP_QUERY query length ${size} is invalid`);
  const query = decodeBsonOrFail(msg.subarray(at, at + size));
  return { requestId, fullCollectionName, query };
}

export function encodeOpReply(doc: BsonDocument, requestId: number, responseTo: number): Buffer {
  const bytes = encodeDocument(doc);
  const length = headerBytes + 20 + bytes.length;
  const out = Buffer.allocUnsafe(length);
  writeHeader(out, { messageLength: length, requestId, responseTo, opCode: OpCode.reply });
  out.writeInt32LE(8, headerBytes); // responseFlags: AwaitCapable
  out.writeBigInt64LE(0n, headerBytes + 4); // cursorID
  out.writeInt32LE(0, headerBytes + 12); // startingFrom
  out.writeInt32LE(1, headerBytes + 16); // numberReturned
  out.set(bytes, headerBytes + 20);
  return out;
}
