// Splits a byte stream into whole wire messages. The length field is checked before any
// body is buffered, so a hostile length cannot make the server allocate 2 GB; a bad length
// is a ProtocolError and the connection is closed.

import { limits } from '../limits.js';
import { headerBytes, ProtocolError } from './opcodes.js';

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private expected = -1;

  constructor(private readonly maxMessageBytes: number = limits.messageSizeBytesMax) {}

  /** Bytes held for an incomplete message. */
  get pendingBytes(): number {
    return this.buffered;
  }

  /** Feed bytes; returns every message completed by them. Throws ProtocolError on a bad length. */
  push(data: Buffer): Buffer[] {
    this.chunks.push(data);
    this.buffered += data.length;
    const out: Buffer[] = [];
    for (;;) {
      if (this.expected < 0) {
        if (this.buffered < 4) break;
        const len = this.peekInt32();
        if (len < headerBytes || len > this.maxMessageBytes) {
          throw new ProtocolError(
            `message length ${len} is outside [${headerBytes}, ${this.maxMessageBytes}]`,
          );
        }
        this.expected = len;
      }
      if (this.buffered < this.expected) break;
      out.push(this.take(this.expected));
      this.expected = -1;
    }
    return out;
  }

  private peekInt32(): number {
    const first = this.chunks[0];
    if (first !== undefined && first.length >= 4) return first.readInt32LE(0);
    return this.concat().readInt32LE(0);
  }

  private concat(): Buffer {
    const whole =
      this.chunks.length === 1
        ? (this.chunks[0] as Buffer)
        : Buffer.concat(this.chunks, this.buffered);
    this.chunks = [whole];
    return whole;
  }

  private take(n: number): Buffer {
    const whole = this.concat();
    const msg = whole.subarray(0, n);
    const rest = whole.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return msg;
  }
}
