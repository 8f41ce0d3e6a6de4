// A raw wire-protocol client for bad-input tests: sends exact bytes and reports what came
// back — a reply frame, or the connection closing.

import * as net from 'node:net';
import { serialize, deserialize } from 'bson';

export interface RawReply {
  readonly kind: 'reply';
  readonly opCode: number;
  readonly body: Record<string, unknown>;
  readonly requestId: number;
  readonly responseTo: number;
  /** OP_MSG flagBits (0 for OP_REPLY). */
  readonly flags: number;
}
export interface RawClosed {
  readonly kind: 'closed';
}

let requestId = 1000;

export function opMsg(body: Record<string, unknown>, flags = 0): Buffer {
  const doc = serialize(body);
  const len = 16 + 4 + 1 + doc.length;
  const b = Buffer.alloc(len);
  b.writeInt32LE(len, 0);
  b.writeInt32LE(requestId++, 4);
  b.writeInt32LE(0, 8);
  b.writeInt32LE(2013, 12);
  b.writeUInt32LE(flags, 16);
  b[20] = 0;
  b.set(doc, 21);
  return b;
}

/** An OP_MSG whose body section is the given raw bytes (possibly invalid BSON). */
export function opMsgRaw(sectionBytes: Buffer, flags = 0, opCode = 2013): Buffer {
  const len = 16 + 4 + sectionBytes.length;
  const b = Buffer.alloc(len);
  b.writeInt32LE(len, 0);
  b.writeInt32LE(requestId++, 4);
  b.writeInt32LE(0, 8);
  b.writeInt32LE(opCode, 12);
  b.writeUInt32LE(flags, 16);
  sectionBytes.copy(b, 20);
  return b;
}

export class RawConnection {
  private buffered = Buffer.alloc(0);
  private closed = false;
  private waiters: Array<() => void> = [];

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, d]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ port, host }, () => resolve(new RawConnection(s)));
      s.once('error', reject);
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next reply, or 'closed' if the server closes the connection first. */
  async next(timeoutMs = 5000): Promise<RawReply | RawClosed> {
    const frame = await this.nextFrame(timeoutMs);
    if (frame === 'closed') return { kind: 'closed' };
    const opCode = frame.readInt32LE(12);
    const bodyStart = opCode === 1 ? 36 : 21;
    return {
      kind: 'reply',
      opCode,
      body: deserialize(frame.subarray(bodyStart)),
      requestId: frame.readInt32LE(4),
      responseTo: frame.readInt32LE(8),
      flags: opCode === 2013 ? frame.readUInt32LE(16) : 0,
    };
  }

  /** The next whole frame as bytes (header included), or 'closed'. */
  async nextFrame(timeoutMs = 5000): Promise<Buffer | 'closed'> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.buffered.length >= 4) {
        const len = this.buffered.readInt32LE(0);
        if (this.buffered.length >= len) {
          const frame = this.buffered.subarray(0, len);
          this.buffered = this.buffered.subarray(len);
          return frame;
        }
      }
      if (this.closed) return 'closed';
      if (Date.now() > deadline) throw new Error('no reply and no close within timeout');
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Run one command on its own connection, bypassing the driver (which attaches its own
 * session to every command): for tests that must control lsid / txnNumber exactly.
 */
export async function rawCommand(
  port: number,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const c = await RawConnection.connect(port);
  try {
    c.send(opMsg(body));
    const r = await c.next();
    if (r.kind === 'closed') throw new Error('connection closed');
    return r.body;
  } finally {
    c.close();
  }
}
