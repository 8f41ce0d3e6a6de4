// Splits a byte stream into whole wire messages. The length field is checked before any
// body is buffered, so a hostile length cannot make the server allocate 2 GB; a bad length
// is a ProtocolError and the connection is closed.
//
// A message inside one read is a view of that read's buffer. A message spanning reads is
// copied, read by read, into one buffer of its announced length, so its last read costs one
// small copy, not a concatenation of the whole message: on this machine fresh memory fills at
// ~250 MB/s, and concatenating a 48 MB message at its end held the event loop ~200 ms. That
// buffer is allocated once a quarter of the message has arrived (the reads until then are kept
// as they came): a client announcing a large message and sending little makes the server hold
// at most four times what it sent, and the copy at allocation is at most a quarter message.

import { limits } from '../limits.js';
import { sealBytes } from '../storage/bytes.js';
import { headerBytes, ProtocolError } from './opcodes.js';

/** Allocate a message's buffer once this fraction of it (1/n) has arrived. */
const allocateAtFraction = 4;

export class FrameReader {
  /** Reads kept as they came: under 4 bytes, or under a quarter of the announced message. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The message being filled, allocated at its announced length, and how much is filled. */
  private partial: Buffer | undefined;
  private filled = 0;

  constructor(private readonly maxMessageBytes: number = limits.messageSizeBytesMax) {}

  /** Bytes held for an incomplete message. */
  get pendingBytes(): number {
    return this.partial !== undefined ? this.filled : this.heldBytes;
  }

  /** Feed bytes; returns every message completed by them. Throws ProtocolError on a bad length. */
  push(data: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let at = 0;
    if (this.partial !== undefined) {
      const partial = this.partial;
      const n = Math.min(partial.length - this.filled, data.length);
      data.copy(partial, this.filled, 0, n);
      this.filled += n;
      if (this.filled < partial.length) return out;
      // The reader's own buffer, never written again: storage may keep views of it.
      sealBytes(partial);
      out.push(partial);
      this.partial = undefined;
      this.filled = 0;
      at = n;
    } else if (this.heldBytes > 0) {
      this.held.push(data);
      this.heldBytes += data.length;
      if (this.heldBytes < 4) return out;
      const first = this.held[0] as Buffer;
      const len = this.checkedLength(first.length >= 4 ? first : Buffer.concat(this.held), 0);
      if (this.heldBytes < len && this.heldBytes * allocateAtFraction < len) return out;
      data = Buffer.concat(this.held, this.heldBytes);
      this.held = [];
      this.heldBytes = 0;
    }
    while (at < data.length) {
      const left = data.length - at;
      if (left < 4) {
        this.hold(data.subarray(at));
        break;
      }
      const len = this.checkedLength(data, at);
      if (left >= len) {
        out.push(data.subarray(at, at + len));
        at += len;
      } else if (left * allocateAtFraction >= len) {
        this.partial = Buffer.allocUnsafe(len);
        this.filled = data.copy(this.partial, 0, at);
        break;
      } else {
        this.hold(data.subarray(at));
        break;
      }
    }
    return out;
  }

  private hold(bytes: Buffer): void {
    this.held.push(bytes);
    this.heldBytes += bytes.length;
  }

  private checkedLength(data: Buffer, at: number): number {
    const len = data.readInt32LE(at);
    if (len < headerBytes || len > this.maxMessageBytes) {
      throw new ProtocolError(
        `message length ${len} is outside [${headerBytes}, ${this.maxMessageBytes}]`,
      );
    }
    return len;
  }
}
