// OP_COMPRESSED (opcode 2012): a message whose body (everything after the 16-byte header) is
// compressed, behind a 9-byte prefix: originalOpcode, uncompressedSize, compressorId.
//
// A compressed frame gets the same limits as a plain one. Its claimed uncompressed size is
// checked against the message size limit, and against what the compressed bytes can at most
// expand to (read from their own headers), before anything is inflated; every decoder is
// bounded by the claim, so a decompression bomb stops at it; the inflated size must equal the
// claim. Any fault is a ProtocolError: the connection is closed, as mongod closes it.
//
// zlib is Node's own. snappy and zstd come from optional packages that ship prebuilt
// binaries (snappy: N-API, zstd: WebAssembly); a compressor whose package does not load is
// not offered, and naming it explicitly in --networkMessageCompressors is a startup error.

import { deflate, deflateSync, inflate, inflateSync } from 'node:zlib';
import { limits } from '../limits.js';
import { headerBytes, OpCode, ProtocolError, writeHeader } from './opcodes.js';

/** The compressor ids of the wire protocol. */
export const CompressorId = { noop: 0, snappy: 1, zlib: 2, zstd: 3 } as const;
export type CompressorName = keyof typeof CompressorId;

/** originalOpcode (4) + uncompressedSize (4) + compressorId (1). */
export const compressionHeaderBytes = 9;

/** mongod's default --networkMessageCompressors, in its order of preference. */
export const defaultNetworkMessageCompressors = 'snappy,zstd,zlib';

export interface MessageCodec {
  readonly name: CompressorName;
  readonly id: number;
  compress(body: Buffer): Promise<Buffer>;
  /**
   * Inflate to exactly `size` bytes. The decoder never produces more than `size` (a larger
   * output is an error); the caller checks the result's length.
   */
  decompress(payload: Buffer, size: number): Promise<Buffer>;
  /**
   * The most `payload` can inflate to, from its own headers, checked before inflating; throws
   * ProtocolError when the headers are malformed. undefined: the format gives no bound.
   */
  maxDecompressedBytes(payload: Buffer): number | undefined;
}

// ---- zlib (node:zlib) -------------------------------------------------------------------

/** Small messages are (de)compressed inline: a thread-pool round trip costs more than the work. */
const inline = (bytes: number): boolean => bytes <= limits.compressionInlineBytesMax;

function zlibCodec(): MessageCodec {
  return {
    name: 'zlib',
    id: CompressorId.zlib,
    compress: (body) =>
      inline(body.length)
        ? Promise.resolve(deflateSync(body))
        : new Promise((resolve, reject) =>
            deflate(body, (err, out) => (err === null ? resolve(out) : reject(err))),
          ),
    // maxOutputLength stops inflating at the claim; Node grows the output as it goes, so a
    // lying claim costs only what was really produced.
    decompress: (payload, size) => {
      const options = { maxOutputLength: Math.max(size, 1) };
      if (inline(size)) {
        try {
          return Promise.resolve(inflateSync(payload, options));
        } catch (e) {
          return Promise.reject(e instanceof Error ? e : new Error(String(e)));
        }
      }
      return new Promise((resolve, reject) =>
        inflate(payload, options, (err, out) => (err === null ? resolve(out) : reject(err))),
      );
    },
    maxDecompressedBytes: () => undefined,
  };
}

// ---- snappy (raw format: varint length, then literal and copy elements) ------------------

/** The uncompressed length a snappy block starts with, and the bytes it took. */
export function snappyPreamble(payload: Buffer): { length: number; bytes: number } {
  let length = 0;
  for (let i = 0; i < 5 && i < payload.length; i++) {
    const b = payload[i] as number;
    length += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) return { length, bytes: i + 1 };
  }
  throw new ProtocolError('snappy: invalid uncompressed length');
}

/**
 * A snappy element emits at most 64 bytes for 3 bytes of input (a copy with a 2-byte offset),
 * so n bytes of elements inflate to at most n * 64 / 3 bytes whatever the preamble claims.
 */
const snappyExpansionMax = 64 / 3;

interface SnappyModule {
  compress(input: Uint8Array): Promise<Buffer>;
  compressSync(input: Uint8Array): Buffer;
  uncompress(input: Uint8Array, options: { asBuffer: true }): Promise<string | Buffer>;
  uncompressSync(input: Uint8Array, options: { asBuffer: true }): string | Buffer;
}

function snappyCodec(snappy: SnappyModule): MessageCodec {
  return {
    name: 'snappy',
    id: CompressorId.snappy,
    compress: (body) =>
      inline(body.length) ? Promise.resolve(snappy.compressSync(body)) : snappy.compress(body),
    decompress: async (payload, size) => {
      // The decoder allocates what the preamble says: it must be the (already bounded) claim.
      if (snappyPreamble(payload).length !== size)
        throw new ProtocolError('snappy: uncompressed length does not match the message header');
      const out = inline(size)
        ? snappy.uncompressSync(payload, { asBuffer: true })
        : await snappy.uncompress(payload, { asBuffer: true });
      if (typeof out === 'string') throw new ProtocolError('snappy: unexpected string output');
      return out;
    },
    maxDecompressedBytes: (payload) => {
      const p = snappyPreamble(payload);
      return Math.min(p.length, Math.floor((payload.length - p.bytes) * snappyExpansionMax));
    },
  };
}

// ---- zstd (frames of blocks; RFC 8878) --------------------------------------------------

const zstdMagic = 0xfd2fb528;
const zstdSkippableMask = 0xfffffff0;
const zstdSkippableMagic = 0x184d2a50;
/** A block never regenerates more than 128 KiB (Block_Maximum_Size). */
const zstdBlockBytesMax = 128 * 1024;

/**
 * Walk the frames and block headers of a zstd stream (no decoding) and return the most it
 * can inflate to: raw and RLE blocks state their size, a compressed block gives at most
 * 128 KiB, and a frame that states its content size gives at most that. Malformed
 * structure is a ProtocolError.
 */
export function zstdMaxDecompressedBytes(data: Buffer): number {
  const bad = (why: string): never => {
    throw new ProtocolError(`zstd: ${why}`);
  };
  let at = 0;
  let total = 0;
  if (data.length === 0) bad('empty payload');
  while (at < data.length) {
    if (at + 4 > data.length) bad('truncated frame');
    const magic = data.readUInt32LE(at);
    if ((magic & zstdSkippableMask) >>> 0 === zstdSkippableMagic) {
      if (at + 8 > data.length) bad('truncated skippable frame');
      at += 8 + data.readUInt32LE(at + 4);
      if (at > data.length) bad('truncated skippable frame');
      continue;
    }
    if (magic !== zstdMagic) bad('not a zstd frame');
    at += 4;
    if (at >= data.length) bad('truncated frame header');
    const fhd = data[at] as number;
    at += 1;
    if ((fhd & 0x08) !== 0) bad('reserved frame header bit set');
    const singleSegment = (fhd & 0x20) !== 0;
    const fcsFlag = fhd >> 6;
    const dictionaryIdBytes = [0, 1, 2, 4][fhd & 3] as number;
    const contentSizeBytes =
      fcsFlag === 0 ? (singleSegment ? 1 : 0) : ([0, 2, 4, 8][fcsFlag] as number);
    if (!singleSegment) at += 1; // window descriptor
    at += dictionaryIdBytes;
    if (at + contentSizeBytes > data.length) bad('truncated frame header');
    let contentSize: number | undefined;
    if (contentSizeBytes === 1) contentSize = data[at];
    else if (contentSizeBytes === 2) contentSize = data.readUInt16LE(at) + 256;
    else if (contentSizeBytes === 4) contentSize = data.readUInt32LE(at);
    else if (contentSizeBytes === 8) contentSize = Number(data.readBigUInt64LE(at));
    at += contentSizeBytes;
    let frameMax = 0;
    for (;;) {
      if (at + 3 > data.length) bad('truncated block header');
      const bh =
        (data[at] as number) | ((data[at + 1] as number) << 8) | ((data[at + 2] as number) << 16);
      at += 3;
      const last = (bh & 1) === 1;
      const type = (bh >> 1) & 3;
      const size = bh >>> 3;
      if (size > zstdBlockBytesMax) bad('block larger than 128 KiB');
      if (type === 0) {
        frameMax += size; // raw
        at += size;
      } else if (type === 1) {
        frameMax += size; // RLE: one byte repeated
        at += 1;
      } else if (type === 2) {
        frameMax += zstdBlockBytesMax;
        at += size;
      } else {
        bad('reserved block type');
      }
      if (at > data.length) bad('truncated block');
      if (last) break;
    }
    if ((fhd & 0x04) !== 0) {
      at += 4; // content checksum
      if (at > data.length) bad('truncated checksum');
    }
    total += contentSize === undefined ? frameMax : Math.min(contentSize, frameMax);
  }
  return total;
}

interface ZstdModule {
  isLoaded: Promise<unknown>;
  compress(buffer: Uint8Array, level?: number): Buffer;
  decompress(buffer: Uint8Array, size: number): Buffer;
}

/** mongod compresses with ZSTD_CLEVEL_DEFAULT. */
const zstdLevel = 3;

function zstdCodec(zstd: ZstdModule): MessageCodec {
  return {
    name: 'zstd',
    id: CompressorId.zstd,
    compress: (body) => Promise.resolve(zstd.compress(body, zstdLevel)),
    // One-shot decoding into a buffer of exactly the claim (ZSTD_decompress with that
    // capacity): more output than the claim is an error, never an allocation.
    decompress: (payload, size) => {
      try {
        return Promise.resolve(zstd.decompress(payload, size));
      } catch {
        return Promise.reject(new ProtocolError('zstd: decompression failed'));
      }
    },
    maxDecompressedBytes: zstdMaxDecompressedBytes,
  };
}

// ---- noop (id 0, for tests; offered only when named) ------------------------------------

function noopCodec(): MessageCodec {
  return {
    name: 'noop',
    id: CompressorId.noop,
    compress: (body) => Promise.resolve(body),
    decompress: (payload) => Promise.resolve(payload),
    maxDecompressedBytes: (payload) => payload.length,
  };
}

// ---- registry --------------------------------------------------------------------------

function isSnappyModule(m: unknown): m is SnappyModule {
  const o = m as Partial<SnappyModule> | null;
  return (
    typeof o?.compress === 'function' &&
    typeof o.compressSync === 'function' &&
    typeof o.uncompress === 'function' &&
    typeof o.uncompressSync === 'function'
  );
}

function isZstdModule(m: unknown): m is ZstdModule {
  const o = m as Partial<ZstdModule> | null;
  return (
    typeof o?.compress === 'function' &&
    typeof o.decompress === 'function' &&
    o.isLoaded instanceof Promise
  );
}

async function loadOptional(name: string): Promise<unknown> {
  try {
    const m = (await import(name)) as { default?: unknown };
    return m.default ?? m;
  } catch {
    return undefined;
  }
}

let available: Promise<Map<CompressorName, MessageCodec>> | undefined;

/** Every compressor this process can run (loaded once). */
export function availableCodecs(): Promise<Map<CompressorName, MessageCodec>> {
  available ??= (async () => {
    const out = new Map<CompressorName, MessageCodec>();
    const snappy = await loadOptional('snappy');
    if (isSnappyModule(snappy)) out.set('snappy', snappyCodec(snappy));
    const zstd = await loadOptional('@foxglove/wasm-zstd');
    if (isZstdModule(zstd)) {
      try {
        await zstd.isLoaded;
        out.set('zstd', zstdCodec(zstd));
      } catch {
        // The WebAssembly module did not start: zstd is not offered.
      }
    }
    out.set('zlib', zlibCodec());
    out.set('noop', noopCodec());
    return out;
  })();
  return available;
}

export interface CodecCounters {
  readonly compressor: { bytesIn: number; bytesOut: number };
  readonly decompressor: { bytesIn: number; bytesOut: number };
}

/** The compressors a server uses, by name in its order of preference and by wire id. */
export class CompressorSet {
  private readonly byId: ReadonlyArray<MessageCodec | undefined>;
  readonly names: readonly string[];
  /** Bytes through each compressor, as mongod counts them (serverStatus network.compression). */
  readonly counters = new Map<string, CodecCounters>();

  constructor(readonly codecs: readonly MessageCodec[]) {
    const byId: Array<MessageCodec | undefined> = [];
    for (const c of codecs) {
      byId[c.id] = c;
      this.counters.set(c.name, {
        compressor: { bytesIn: 0, bytesOut: 0 },
        decompressor: { bytesIn: 0, bytesOut: 0 },
      });
    }
    this.byId = byId;
    this.names = codecs.map((c) => c.name);
  }

  byWireId(id: number): MessageCodec | undefined {
    return this.byId[id];
  }

  count(
    codec: MessageCodec,
    side: 'compressor' | 'decompressor',
    bytesIn: number,
    bytesOut: number,
  ): void {
    const c = this.counters.get(codec.name)?.[side];
    if (c === undefined) return;
    c.bytesIn += bytesIn;
    c.bytesOut += bytesOut;
  }
}

export class CompressorConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompressorConfigError';
  }
}

/**
 * Resolve a --networkMessageCompressors value ("disabled", or names separated by commas or
 * spaces) as mongod does: a name it does not know, or whose package is not installed, is a
 * startup error. The default list keeps only what this process can run.
 */
export async function resolveCompressors(spec: string | undefined): Promise<CompressorSet> {
  const codecs = await availableCodecs();
  if (spec === 'disabled') return new CompressorSet([]);
  const explicit = spec !== undefined;
  const names = (spec ?? defaultNetworkMessageCompressors).split(/[, ]/).filter((n) => n !== '');
  const chosen: MessageCodec[] = [];
  for (const name of names) {
    const codec = codecs.get(name as CompressorName);
    if (codec === undefined) {
      if (!explicit) continue;
      throw new CompressorConfigError(
        `Invalid network message compressor specified in configuration: ${name}`,
      );
    }
    if (!chosen.includes(codec)) chosen.push(codec);
  }
  return new CompressorSet(chosen);
}

// ---- messages --------------------------------------------------------------------------

export interface CompressedMessage {
  readonly originalOpCode: number;
  readonly uncompressedBytes: number;
  readonly codec: MessageCodec;
}

/**
 * Inflate an OP_COMPRESSED frame into the message it wraps (header rebuilt: same requestId and
 * responseTo, the original opcode). Every fault throws ProtocolError before or instead of
 * allocating what the frame claims.
 */
export async function decompressMessage(
  frame: Buffer,
  compressors: CompressorSet,
  maxMessageBytes: number = limits.messageSizeBytesMax,
): Promise<{ message: Buffer; codec: MessageCodec }> {
  if (frame.length < headerBytes + compressionHeaderBytes)
    throw new ProtocolError('Invalid compressed message header');
  const originalOpCode = frame.readInt32LE(headerBytes);
  const size = frame.readInt32LE(headerBytes + 4);
  const id = frame[headerBytes + 8] as number;
  const codec = compressors.byWireId(id);
  if (codec === undefined)
    throw new ProtocolError('Compression algorithm specified in message is not available');
  if (originalOpCode === OpCode.compressed)
    throw new ProtocolError('OP_COMPRESSED may not wrap another OP_COMPRESSED');
  if (size < 0) throw new ProtocolError('Decompressed message would be negative in size');
  if (size + headerBytes > maxMessageBytes)
    throw new ProtocolError('Decompressed message would be larger than maximum message size');
  const payload = frame.subarray(headerBytes + compressionHeaderBytes);
  const bound = codec.maxDecompressedBytes(payload);
  if (bound !== undefined && bound < size)
    throw new ProtocolError('Uncompressed message size does not match expected size');
  let body: Buffer;
  try {
    body = await codec.decompress(payload, size);
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    throw new ProtocolError(
      `${codec.name}: ${e instanceof Error ? e.message : 'decompression failed'}`,
    );
  }
  if (body.length !== size)
    throw new ProtocolError('Decompressing message returned less data than expected');
  compressors.count(codec, 'decompressor', payload.length, size);
  const message = Buffer.allocUnsafe(headerBytes + size);
  writeHeader(message, {
    messageLength: headerBytes + size,
    requestId: frame.readInt32LE(4),
    responseTo: frame.readInt32LE(8),
    opCode: originalOpCode,
  });
  message.set(body, headerBytes);
  return { message, codec };
}

/**
 * Wrap a whole message (header included) in OP_COMPRESSED with `codec`. Like mongod, a result
 * that would exceed the message size limit is not sent compressed: the original comes back.
 */
export async function compressMessage(
  message: Buffer,
  codec: MessageCodec,
  compressors?: CompressorSet,
  maxMessageBytes: number = limits.messageSizeBytesMax,
): Promise<Buffer> {
  const body = message.subarray(headerBytes);
  const packed = await codec.compress(body);
  const length = headerBytes + compressionHeaderBytes + packed.length;
  if (length > maxMessageBytes) return message;
  compressors?.count(codec, 'compressor', body.length, packed.length);
  const out = Buffer.allocUnsafe(length);
  writeHeader(out, {
    messageLength: length,
    requestId: message.readInt32LE(4),
    responseTo: message.readInt32LE(8),
    opCode: OpCode.compressed,
  });
  out.writeInt32LE(message.readInt32LE(12), headerBytes);
  out.writeInt32LE(body.length, headerBytes + 4);
  out[headerBytes + 8] = codec.id;
  out.set(packed, headerBytes + compressionHeaderBytes);
  return out;
}
