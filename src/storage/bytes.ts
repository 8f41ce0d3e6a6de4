// Byte-string helpers shared by the engines: memcmp order, copies, prefix bounds, and the
// checks every engine applies to table names and keys before it touches its own structures.

import type { Bytes } from './engine.js';

/**
 * Unsigned byte order, shorter prefix first (memcmp, then length), as a sign-only number.
 * A JS loop beats `Buffer.compare` by ~2× for the short keys indexes produce (the native call
 * costs more than the comparison); long keys go to the native version.
 */
export function compareBytes(a: Bytes, b: Bytes): number {
  const n = a.length < b.length ? a.length : b.length;
  if (n > 64) return Buffer.compare(a, b);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export function bytesEqual(a: Bytes, b: Bytes): boolean {
  return a.length === b.length && compareBytes(a, b) === 0;
}

/**
 * Below this size a value is always copied: copying it is cheap, and a small buffer may be a
 * slice of Node's shared allocation pool, which must never be sealed.
 */
const sealedShareBytesMin = 64 * 1024;

/** Memory nobody changes any more (sealBytes): an engine may keep a view instead of a copy. */
const sealed = new WeakSet<ArrayBufferLike>();

/**
 * Declares that the memory under `b` (its whole ArrayBuffer) is never changed again: a
 * message as it came off the wire, an encoding made for one put. An engine that would copy a
 * value to keep it private (copyBytes) keeps such bytes as they are when they are large and
 * cover most of that memory: copying a 16 MiB document into fresh memory holds the event
 * loop ~10 ms each time. A small buffer is not sealed (see sealedShareBytesMin).
 */
export function sealBytes(b: Uint8Array): void {
  if (b.buffer.byteLength >= sealedShareBytesMin) sealed.add(b.buffer);
}

/**
 * A private copy: the caller may reuse its buffer after `put` returns. Bytes of sealed
 * memory (sealBytes) are not copied when they are at least half of it (a view of a small
 * part would keep the rest of a large message alive).
 */
export function copyBytes(b: Bytes): Buffer {
  if (
    b.byteLength >= sealedShareBytesMin &&
    b.byteLength * 2 >= b.buffer.byteLength &&
    sealed.has(b.buffer)
  )
    return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return Buffer.from(b); // Buffer.from(Uint8Array) copies
}

/** Node's shared pool serves Buffer.from / allocUnsafe copies shorter than this (8 KiB / 2). */
const nodePoolItemBytesMax = 4 * 1024;

/**
 * Copies of small byte strings that are kept for a long time (a memory engine's keys and
 * values), carved from slabs of their own.
 *
 * Buffer.from(bytes) puts a small copy into Node's shared 8 KiB pool, which every temporary
 * buffer of the process also comes from: one stored key keeps its whole slab alive, and most
 * of that slab was temporaries. A heap snapshot of the fairness benchmark's daemon held
 * 18,000 such slabs (141 MiB) for the memory engine's tables. Here a slab holds only stored
 * bytes, so it is dense, and it is freed with the last copy it holds (an oplog pruned in order
 * frees its slabs in order). Copies past `itemBytesMax` get memory of their own.
 */
export class ByteArena {
  private slab: ArrayBuffer | undefined;
  private used = 0;

  constructor(
    private readonly slabBytes: number,
    private readonly itemBytesMax: number,
  ) {}

  /** A private copy of `b` (see copyBytes for the large sealed case). */
  copy(b: Bytes): Buffer {
    const n = b.byteLength;
    if (n > this.itemBytesMax) {
      if (n >= nodePoolItemBytesMax) return copyBytes(b);
      const out = Buffer.allocUnsafeSlow(n);
      out.set(b);
      return out;
    }
    if (this.slab === undefined || this.used + n > this.slabBytes) {
      this.slab = new ArrayBuffer(this.slabBytes);
      this.used = 0;
    }
    const out = Buffer.from(this.slab, this.used, n);
    out.set(b);
    // 8-byte aligned, as Node aligns pool slices (a Float64Array view must be).
    this.used = (this.used + n + 7) & ~7;
    return out;
  }
}

export function concatBytes(a: Bytes, b: Bytes): Buffer {
  const out = Buffer.allocUnsafe(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * The smallest byte string greater than every string that starts with `prefix`, or
 * undefined when there is none (the prefix is all 0xff bytes, or empty).
 */
export function prefixUpperBound(prefix: Bytes): Buffer | undefined {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return undefined;
  const out = Buffer.from(prefix.subarray(0, end));
  out[end - 1] = (out[end - 1] as number) + 1;
  return out;
}
