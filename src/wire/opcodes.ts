// Wire protocol opcodes and header layout (all integers little-endian).

export const OpCode = {
  reply: 1,
  update: 2001,
  insert: 2002,
  query: 2004,
  getMore: 2005,
  delete: 2006,
  killCursors: 2007,
  compressed: 2012,
  msg: 2013,
} as const;

export const headerBytes = 16;

export interface MessageHeader {
  readonly messageLength: number;
  readonly requestId: number;
  readonly responseTo: number;
  readonly opCode: number;
}

export function readHeader(buf: Uint8Array): MessageHeader {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return {
    messageLength: view.getInt32(0, true),
    requestId: view.getInt32(4, true),
    responseTo: view.getInt32(8, true),
    opCode: view.getInt32(12, true),
  };
}

export function writeHeader(buf: Buffer, header: MessageHeader): void {
  buf.writeInt32LE(header.messageLength, 0);
  buf.writeInt32LE(header.requestId, 4);
  buf.writeInt32LE(header.responseTo, 8);
  buf.writeInt32LE(header.opCode, 12);
}

/** A fault in the framing or envelope of a message: the connection is closed. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}
