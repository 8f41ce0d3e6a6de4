// Change stream resume tokens: `{_data: <hex>}`, opaque to clients. The hex string encodes
// the position of an event in the oplog so that a stream can restart right after it:
//
//   byte 0      format marker (0x82)
//   bytes 1-8   clusterTime (Timestamp, big-endian seconds then increment)
//   byte 9      token type: 0 = high-water mark (no event; everything at or before
//               clusterTime has been seen), 128 = an event
//   bytes 10-13 position of the event inside its oplog entry (applyOps index; 0 otherwise)
//   byte 14     flags: 1 if the token is the one of an `invalidate` event, 2 if it names one
//               fragment of a split event ($changeStreamSplitLargeEvent)
//   bytes 15-   optional: the collection UUID (16 bytes) then the BSON of the event's
//               identifier (documentKey, or {operationType}), which make tokens unique the
//               way mongod's are; positions alone already order them.
//   last 4      with flag 2: the fragment's index (0-based), after everything else
//
// Tokens compare in the order of their hex strings, like mongod's.

import { Binary, Timestamp } from 'bson';
import { encodeDocument, decodeDocument } from '../bson/codec.js';
import type { BsonDocument } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import { ErrorCode, fail } from '../errors.js';

const marker = 0x82;
const headerBytes = 15;
export const tokenTypeHighWaterMark = 0;
export const tokenTypeEvent = 128;

export interface ResumeTokenData {
  readonly clusterTime: Timestamp;
  readonly tokenType: number;
  readonly txnOpIndex: number;
  readonly fromInvalidate: boolean;
  readonly uuid?: Binary | undefined;
  readonly eventIdentifier?: BsonDocument | undefined;
  /** The fragment of a split event the token names (0-based). */
  readonly fragmentNum?: number | undefined;
}

const flagInvalidate = 1;
const flagFragment = 2;

export function encodeResumeToken(d: ResumeTokenData): BsonDocument {
  const head = Buffer.alloc(headerBytes);
  head.writeUInt8(marker, 0);
  head.writeUInt32BE(d.clusterTime.t >>> 0, 1);
  head.writeUInt32BE(d.clusterTime.i >>> 0, 5);
  head.writeUInt8(d.tokenType, 9);
  head.writeUInt32BE(d.txnOpIndex >>> 0, 10);
  head.writeUInt8(
    (d.fromInvalidate ? flagInvalidate : 0) | (d.fragmentNum !== undefined ? flagFragment : 0),
    14,
  );
  const parts: Buffer[] = [head];
  if (d.uuid !== undefined) {
    parts.push(Buffer.from(d.uuid.buffer));
    if (d.eventIdentifier !== undefined) parts.push(Buffer.from(encodeDocument(d.eventIdentifier)));
  }
  if (d.fragmentNum !== undefined) {
    const frag = Buffer.alloc(4);
    frag.writeUInt32BE(d.fragmentNum >>> 0, 0);
    parts.push(frag);
  }
  return { _data: Buffer.concat(parts).toString('hex').toUpperCase() };
}

export function highWaterMarkToken(ts: Timestamp): BsonDocument {
  return encodeResumeToken({
    clusterTime: ts,
    tokenType: tokenTypeHighWaterMark,
    txnOpIndex: 0,
    fromInvalidate: false,
  });
}

function invalid(why: string): never {
  fail(ErrorCode.InvalidResumeToken, `Invalid resume token: ${why}`);
}

/** Decodes a token a client sent (resumeAfter/startAfter); anything malformed is 260. */
export function decodeResumeToken(token: unknown): ResumeTokenData {
  if (!isPlainDocument(token)) invalid('the resume token must be an object');
  for (const k of Object.keys(token))
    if (k !== '_data' && k !== '_typeBits') invalid(`unexpected field '${k}'`);
  const data = token['_data'];
  if (typeof data !== 'string') invalid("the resume token's _data must be a string");
  if (data.length < headerBytes * 2 || data.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(data))
    invalid('malformed _data');
  const whole = Buffer.from(data, 'hex');
  if (whole.readUInt8(0) !== marker) invalid('unknown token format');
  const flags = whole.readUInt8(14);
  if ((flags & ~(flagInvalidate | flagFragment)) !== 0) invalid('malformed flags');
  const fragmented = (flags & flagFragment) !== 0;
  if (fragmented && whole.length < headerBytes + 4) invalid('truncated fragment number');
  const b = fragmented ? whole.subarray(0, whole.length - 4) : whole;
  const tokenType = b.readUInt8(9);
  if (tokenType !== tokenTypeEvent && tokenType !== tokenTypeHighWaterMark)
    invalid('unknown token type');
  const clusterTime = new Timestamp({ t: b.readUInt32BE(1), i: b.readUInt32BE(5) });
  let uuid: Binary | undefined;
  let eventIdentifier: BsonDocument | undefined;
  if (b.length > headerBytes) {
    if (b.length < headerBytes + 16) invalid('truncated collection UUID');
    uuid = new Binary(b.subarray(headerBytes, headerBytes + 16), Binary.SUBTYPE_UUID);
    if (b.length > headerBytes + 16) {
      try {
        eventIdentifier = decodeDocument(b.subarray(headerBytes + 16));
      } catch {
        invalid('malformed event identifier');
      }
    }
  }
  return {
    clusterTime,
    tokenType,
    txnOpIndex: b.readUInt32BE(10),
    fromInvalidate: (flags & flagInvalidate) !== 0,
    uuid,
    eventIdentifier,
    fragmentNum: fragmented ? whole.readUInt32BE(whole.length - 4) : undefined,
  };
}
