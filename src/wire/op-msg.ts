// OP_MSG (opcode 2013): flagBits, one kind-0 body section, any number of kind-1 document
// sequences, and an optional CRC-32C checksum over everything before it.

import { crc32c } from '@node-rs/crc32';
import { CommandError, ErrorCode } from '../errors.js';
import {
  decodeDocument,
  encodeReply,
  firstDuplicateName,
  keepBytesOfArrayField,
  keepSequenceBytes,
} from '../bson/codec.js';
import { setOwn, getOwn } from '../bson/document.js';
import type { BsonDocument } from '../bson/types.js';
import { headerBytes, OpCode, ProtocolError, writeHeader } from './opcodes.js';

export const OpMsgFlags = {
  checksumPresent: 1 << 0,
  moreToCome: 1 << 1,
  exhaustAllowed: 1 << 16,
} as const;

/** Bits 0-15 are "required": a receiver that does not know one must fail. */
const requiredBitsMask = 0xffff;
const knownBits = OpMsgFlags.checksumPresent | OpMsgFlags.moreToCome | OpMsgFlags.exhaustAllowed;

export interface OpMsgRequest {
  readonly requestId: number;
  readonly flags: number;
  /** The body with document sequences folded in as array fields. */
  readonly body: BsonDocument;
  readonly moreToCome: boolean;
  readonly exhaustAllowed: boolean;
}

function readCString(buf: Buffer, start: number, end: number): [string, number] {
  const nul = buf.indexOf(0, start);
  if (nul < 0 || nul >= end) throw new ProtocolError('unterminated cstring in OP_MSG section');
  return [buf.toString('utf8', start, nul), nul + 1];
}

/**
 * A body this much smaller than its message (and the message at least this big) is decoded
 * from its own copy of its bytes. Decoded binary values (an lsid's UUID, a filter's BinData)
 * are views of the bytes they came from, and a session or cursor keeps them long after the
 * command: a view into the message would keep all of it alive, the 48 MB of an insertMany's
 * document sequence for the 30 minutes a session lives.
 */
const ownBodyMessageBytesMin = 64 * 1024;

/** Whether `part` of `msg` is to be decoded from a copy (see ownBodyMessageBytesMin). */
function decodesFromCopy(part: number, msg: number): boolean {
  return msg >= ownBodyMessageBytesMin && part * 2 < msg;
}

/**
 * The document at `at`. A document sequence's documents (`keep`: an insert's, most often)
 * keep their bytes (pushed to `keep`), which the write unit stores as they are when nothing
 * changes them. `own`: decode from a copy when the document is a small part of `buf`
 * (decodesFromCopy), so that nothing decoded from it keeps `buf` alive.
 */
function readDocumentAt(
  buf: Buffer,
  at: number,
  end: number,
  keep?: Uint8Array[],
  own = false,
): [BsonDocument, number] {
  if (at + 5 > end)
    throw new CommandError(
      ErrorCode.InvalidBSON,
      'BSON document extends past the end of the message',
    );
  const size = buf.readInt32LE(at);
  if (size < 5 || at + size > end) {
    throw new CommandError(ErrorCode.InvalidBSON, `invalid BSON document length ${size}`);
  }
  const view = buf.subarray(at, at + size);
  const bytes = own && decodesFromCopy(size, buf.length) ? Buffer.from(view) : view;
  const doc = decodeBsonOrFail(bytes);
  keep?.push(bytes);
  return [doc, at + size];
}

/** Decode a document; any decoding failure is InvalidBSON (22), never a crash. */
export function decodeBsonOrFail(
  bytes: Uint8Array,
  decode: (bytes: Uint8Array) => BsonDocument = decodeDocument,
): BsonDocument {
  try {
    return decode(bytes);
  } catch (e) {
    const why =
      e instanceof RangeError
        ? 'document nested too deeply'
        : e instanceof Error
          ? e.message
          : String(e);
    throw new CommandError(ErrorCode.InvalidBSON, `invalid BSON: ${why}`);
  }
}

/**
 * A command body naming a field twice is refused as mongod's IDL parsers refuse it (40413),
 * not read last-wins. mongod checks a command's own fields and $db that way, and lsid,
 * txnNumber and the other session fields through another IDL struct; a few arguments it
 * reads first-wins. Drivers never send duplicates, so every top-level duplicate is refused.
 */
export function refuseDuplicateFields(body: BsonDocument, bytes: Uint8Array): void {
  const dup = firstDuplicateName(bytes);
  if (dup === undefined) return;
  const command = Object.keys(body)[0] ?? '';
  throw new CommandError(
    ErrorCode.Location40413,
    `BSON field '${command}.${dup}' is a duplicate field`,
  );
}

/**
 * Parse an OP_MSG. Envelope faults (bad flags, section structure, checksum) throw
 * ProtocolError; a body that is not valid BSON throws CommandError(InvalidBSON).
 */
export function parseOpMsg(msg: Buffer, requestId: number): OpMsgRequest {
  let end = msg.length;
  if (end < headerBytes + 5) throw new ProtocolError('OP_MSG too short');
  const flags = msg.readUInt32LE(headerBytes);
  const unknownRequired = flags & requiredBitsMask & ~knownBits;
  if (unknownRequired !== 0) {
    throw new ProtocolError(
      `OP_MSG has unknown required flag bits 0x${unknownRequired.toString(16)}`,
    );
  }
  if (flags & OpMsgFlags.checksumPresent) {
    end -= 4;
    if (end < headerBytes + 5) throw new ProtocolError('OP_MSG too short for its checksum');
    const expected = msg.readUInt32LE(end);
    const actual = crc32c(msg.subarray(0, end));
    if (expected !== actual) throw new ProtocolError('OP_MSG checksum mismatch');
  }
  let body: BsonDocument | undefined;
  const sequences: Array<[string, BsonDocument[]]> = [];
  let at = headerBytes + 4;
  while (at < end) {
    const kind = msg[at];
    at += 1;
    if (kind === 0) {
      if (body !== undefined) throw new ProtocolError('OP_MSG has more than one body section');
      const start = at;
      [body, at] = readDocumentAt(msg, at, end, undefined, true);
      refuseDuplicateFields(body, msg.subarray(start, at));
      // Drivers send an insert's documents in the body: they keep their bytes as a document
      // sequence's do (the write unit stores them as they came when nothing changed them).
      if (Object.keys(body)[0] === 'insert')
        keepBytesOfArrayField(body, msg.subarray(start, at), 'documents');
    } else if (kind === 1) {
      if (at + 4 > end) throw new ProtocolError('truncated document sequence');
      const size = msg.readInt32LE(at);
      const seqEnd = at + size;
      if (size < 5 || seqEnd > end)
        throw new ProtocolError(`invalid document sequence length ${size}`);
      const [id, start] = readCString(msg, at + 4, seqEnd);
      let p = start;
      const docs: BsonDocument[] = [];
      const bytes: Uint8Array[] = [];
      while (p < seqEnd) {
        let doc: BsonDocument;
        [doc, p] = readDocumentAt(msg, p, seqEnd, bytes);
        docs.push(doc);
      }
      keepSequenceBytes(docs, bytes);
      sequences.push([id, docs]);
      at = seqEnd;
    } else {
      throw new ProtocolError(`OP_MSG section kind ${String(kind)} is not supported`);
    }
  }
  if (body === undefined) throw new ProtocolError('OP_MSG has no body section');
  for (const [id, docs] of sequences) {
    if (getOwn(body, id) !== undefined) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        `duplicate field '${id}' in OP_MSG body and document sequence`,
      );
    }
    setOwn(body, id, docs);
  }
  return {
    requestId,
    flags,
    body,
    moreToCome: (flags & OpMsgFlags.moreToCome) !== 0,
    exhaustAllowed: (flags & OpMsgFlags.exhaustAllowed) !== 0,
  };
}

/** Encode a reply OP_MSG with a single body section. */
export function encodeOpMsg(
  body: BsonDocument,
  requestId: number,
  responseTo: number,
  flags = 0,
): Buffer {
  const out = encodeReply(body, headerBytes + 5);
  writeHeader(out, { messageLength: out.length, requestId, responseTo, opCode: OpCode.msg });
  out.writeUInt32LE(flags, headerBytes);
  out[headerBytes + 4] = 0;
  return out;
}
