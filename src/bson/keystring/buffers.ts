// Byte and bit buffers for the index key encoding (../keystring.ts). One reusable scratch
// buffer per writer keeps the encoder free of per-byte allocations: a key is built in the
// scratch buffer and copied out once.

import { InvariantError } from '../../errors.js';

const shortCopyBytes = 24;
const emptyBytes = new Uint8Array(0);

/** A growable byte buffer, reused from key to key. */
export class ByteWriter {
  /** A Buffer for its UTF-8 write/toString; `u8` is a plain view of the same memory. */
  buf: Buffer = Buffer.allocUnsafe(256);
  private u8 = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  pos = 0;

  reset(): void {
    this.pos = 0;
  }

  /** Make room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
    this.u8 = new Uint8Array(next.buffer, next.byteOffset, next.length);
  }

  byte(b: number): void {
    if (this.pos >= this.buf.length) this.ensure(1);
    this.buf[this.pos++] = b;
  }

  u16(v: number): void {
    this.ensure(2);
    const p = this.pos;
    this.buf[p] = v >>> 8;
    this.buf[p + 1] = v & 0xff;
    this.pos = p + 2;
  }

  u32(v: number): void {
    this.ensure(4);
    const p = this.pos;
    this.buf[p] = v >>> 24;
    this.buf[p + 1] = (v >>> 16) & 0xff;
    this.buf[p + 2] = (v >>> 8) & 0xff;
    this.buf[p + 3] = v & 0xff;
    this.pos = p + 4;
  }

  bytes(src: Uint8Array): void {
    this.ensure(src.length);
    this.buf.set(src, this.pos);
    this.pos += src.length;
  }

  /** XOR every byte in [from, pos) with 0xFF: the descending form of what was written. */
  invertFrom(from: number): void {
    const buf = this.buf;
    for (let i = from; i < this.pos; i++) buf[i] = ~(buf[i] as number) & 0xff;
  }

  /**
   * A fresh copy of what was written, then `extra` (the scratch buffer is reused). Measured:
   * a byte loop beats set(subarray()) for short keys, whose subarray view costs more than
   * the copy; Buffer.subarray is slower still (it builds a FastBuffer).
   */
  copy(extra?: Uint8Array): Uint8Array {
    const n = this.pos;
    const u8 = this.u8;
    if (extra === undefined && n > shortCopyBytes) return u8.slice(0, n);
    const m = extra === undefined ? 0 : extra.length;
    const out = new Uint8Array(n + m);
    if (n <= shortCopyBytes) for (let i = 0; i < n; i++) out[i] = u8[i] as number;
    else out.set(u8.subarray(0, n));
    for (let i = 0; i < m; i++) out[n + i] = (extra as Uint8Array)[i] as number;
    return out;
  }
}

/** Reads a key; `flip` is 0xFF while reading a descending (inverted) part. */
export class ByteReader {
  pos = 0;
  flip = 0;
  constructor(readonly buf: Uint8Array) {}

  byte(): number {
    const b = this.buf[this.pos];
    if (b === undefined) throw corrupt('key ends inside a value');
    this.pos++;
    return b ^ this.flip;
  }

  u16(): number {
    return (this.byte() << 8) | this.byte();
  }

  u32(): number {
    return ((this.byte() << 24) | (this.byte() << 16) | (this.byte() << 8) | this.byte()) >>> 0;
  }

  bytes(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw corrupt('key ends inside a value');
    const out = this.buf.slice(this.pos, this.pos + n);
    if (this.flip !== 0) for (let i = 0; i < n; i++) out[i] = ~(out[i] as number) & 0xff;
    this.pos += n;
    return out;
  }
}

/** Bits written most significant first; trailing zero bytes are dropped on output. */
export class BitWriter {
  private buf = new Uint8Array(64);
  private bitPos = 0;

  reset(): void {
    // Only the bytes that were touched need clearing (none when only the key was built).
    if (this.bitPos === 0) return;
    this.buf.fill(0, 0, (this.bitPos + 7) >>> 3);
    this.bitPos = 0;
  }

  /** Append the low `n` bits of `v` (n <= 31). */
  bits(v: number, n: number): void {
    if (v === 0) {
      // Zero bits are the default: only the position moves (the buffer is kept zeroed).
      this.bitPos += n;
      this.grow();
      return;
    }
    for (let i = n - 1; i >= 0; i--) {
      if ((v >>> i) & 1) {
        this.grow();
        const p = this.bitPos;
        this.buf[p >>> 3] = (this.buf[p >>> 3] as number) | (0x80 >>> (p & 7));
      }
      this.bitPos++;
    }
  }

  bytes(src: Uint8Array): void {
    for (const b of src) this.bits(b, 8);
  }

  private grow(): void {
    const need = (this.bitPos >>> 3) + 1;
    if (need <= this.buf.length) return;
    const next = new Uint8Array(Math.max(need, this.buf.length * 2));
    next.set(this.buf);
    this.buf = next;
  }

  /** The bits so far, without trailing zero bytes (all-default type info is empty). */
  copy(): Uint8Array {
    let n = (this.bitPos + 7) >>> 3;
    while (n > 0 && this.buf[n - 1] === 0) n--;
    // The usual case; a zero-length array cannot be changed, so one instance serves all.
    return n === 0 ? emptyBytes : this.buf.slice(0, n);
  }
}

/** Reads what BitWriter wrote; past the end every bit is 0 (the dropped trailing zeros). */
export class BitReader {
  private bitPos = 0;
  constructor(private readonly buf: Uint8Array) {}

  bits(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const p = this.bitPos++;
      const byte = this.buf[p >>> 3] ?? 0;
      v = (v << 1) | ((byte >>> (7 - (p & 7))) & 1);
    }
    return v >>> 0;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.bits(8);
    return out;
  }
}

export function corrupt(message: string): InvariantError {
  return new InvariantError(`index key: ${message}`);
}
