// Pulls exact byte counts out of a stream of chunks (a file, a gunzip stream, stdin), holding
// only the chunks not consumed yet: memory stays about one chunk plus the largest document
// asked for. Used for .bson files (documents back to back) and for archives.

import { limits } from '../limits.js';
import { ToolError } from './tool-error.js';

export class ByteReader {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private consumed = 0;
  private readonly iterator: AsyncIterator<unknown>;

  constructor(
    source: AsyncIterable<unknown>,
    /** What the input is, for messages ("archive", "dump/test/foo.bson"). */
    readonly name: string,
  ) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  /** Bytes handed out so far. */
  get position(): number {
    return this.consumed;
  }

  /** Reads until at least `n` bytes are buffered or the input ends; returns what is buffered. */
  private async fill(n: number): Promise<number> {
    while (this.buffered < n && !this.ended) {
      const next = await this.iterator.next();
      if (next.done === true) {
        this.ended = true;
        break;
      }
      const value: unknown = next.value;
      const chunk = Buffer.isBuffer(value)
        ? value
        : value instanceof Uint8Array
          ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
          : Buffer.from(String(value));
      if (chunk.length === 0) continue;
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    return this.buffered;
  }

  /** True when nothing is left to read. */
  async atEnd(): Promise<boolean> {
    return (await this.fill(1)) === 0;
  }

  /** The next `n` bytes; `undefined` when the input ended before any of them, an error when it ended inside them. */
  async read(n: number): Promise<Buffer | undefined> {
    const have = await this.fill(n);
    if (have === 0 && n > 0) return undefined;
    if (have < n)
      throw new ToolError(
        `unexpected end of ${this.name} at byte ${this.consumed + have}: needed ${n} bytes, found ${have}`,
      );
    return this.take(n);
  }

  /**
   * The next BSON document (length prefix included), `undefined` at the end of the input, or
   * `'terminator'` when the next four bytes are 0xFFFFFFFF and `allowTerminator` is set.
   */
  async readDocument(allowTerminator = false): Promise<Buffer | 'terminator' | undefined> {
    const have = await this.fill(4);
    if (have === 0) return undefined;
    if (have < 4)
      throw new ToolError(
        `unexpected end of ${this.name} at byte ${this.consumed + have}: a document length needs 4 bytes, found ${have}`,
      );
    const size = this.peekUint32();
    if (allowTerminator && size === 0xffffffff) {
      this.take(4);
      return 'terminator';
    }
    if (size < 5 || size > limits.toolDocumentBytesMax)
      throw new ToolError(
        `corrupt ${this.name} at byte ${this.consumed}: ${size} is neither a valid BSON length` +
          (allowTerminator ? ' nor an archive terminator' : ''),
      );
    const doc = await this.read(size);
    if (doc === undefined) throw new ToolError(`unexpected end of ${this.name}`);
    if (doc[size - 1] !== 0)
      throw new ToolError(
        `corrupt ${this.name} at byte ${this.consumed - size}: a document of ${size} bytes does not end with a null byte`,
      );
    return doc;
  }

  private peekUint32(): number {
    const first = this.chunks[0];
    if (first !== undefined && first.length >= 4) return first.readUInt32LE(0);
    return Buffer.concat(this.chunks).readUInt32LE(0);
  }

  private take(n: number): Buffer {
    this.consumed += n;
    this.buffered -= n;
    const first = this.chunks[0];
    if (first !== undefined && first.length >= n) {
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      // A slice would keep the whole chunk alive; small pieces are copied out.
      return first.length > 4 * n ? Buffer.from(first.subarray(0, n)) : first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    while (at < n) {
      const chunk = this.chunks[0];
      if (chunk === undefined) break;
      const part = Math.min(chunk.length, n - at);
      chunk.copy(out, at, 0, part);
      at += part;
      if (part === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(part);
    }
    return out;
  }
}
