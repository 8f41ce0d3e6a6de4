// Where the tools write and read bytes: files, standard output and input, with gzip when asked.
// Writes wait for the stream to drain (backpressure), so memory stays bounded however fast the
// server sends documents; a stream error fails the next write or the end.

import { createReadStream, createWriteStream } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { ToolError } from './tool-error.js';

export interface OutputSink {
  write(bytes: Buffer): Promise<void>;
  /** Flushes and closes (standard output is flushed, not closed). */
  end(): Promise<void>;
}

class StreamSink implements OutputSink {
  private failure: Error | undefined;

  constructor(
    private readonly head: Writable,
    /** The stream whose 'finish' means everything is written (the file under a gzip stream). */
    private readonly tail: Writable,
    private readonly closeTail: boolean,
    private readonly name: string,
  ) {
    const fail = (e: Error): void => {
      this.failure ??= e;
    };
    head.on('error', fail);
    if (tail !== head) tail.on('error', fail);
  }

  private check(): void {
    if (this.failure !== undefined)
      throw new ToolError(`error writing ${this.name}: ${this.failure.message}`);
  }

  async write(bytes: Buffer): Promise<void> {
    this.check();
    if (this.head.write(bytes)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.head.off('drain', done);
        this.head.off('error', done);
        this.tail.off('error', done);
        resolve();
      };
      this.head.on('drain', done);
      this.head.on('error', done);
      this.tail.on('error', done);
    });
    this.check();
  }

  async end(): Promise<void> {
    this.check();
    await new Promise<void>((resolve) => {
      const done = (): void => resolve();
      this.tail.once('error', done);
      if (this.closeTail || this.head !== this.tail) {
        this.tail.once(this.closeTail ? 'close' : 'finish', done);
        this.head.end();
      } else this.head.write(Buffer.alloc(0), () => done());
    });
    this.check();
  }
}

/** A file (created or truncated), gzip-compressed when `gzip` is set. */
export function fileSink(path: string, gzip: boolean): OutputSink {
  const file = createWriteStream(path);
  if (!gzip) return new StreamSink(file, file, true, path);
  const z = createGzip();
  z.pipe(file);
  return new StreamSink(z, file, true, path);
}

/** A stream the tool does not own (standard output): flushed at the end, never closed. */
export function streamSink(out: Writable, gzip: boolean, name: string): OutputSink {
  if (!gzip) return new StreamSink(out, out, false, name);
  const z = createGzip();
  z.pipe(out, { end: false });
  // The gzip stream ends (its trailer written) before the tool returns; the target stays open.
  const sink = new StreamSink(z, z, false, name);
  return {
    write: (b) => sink.write(b),
    end: async () => {
      await new Promise<void>((resolve, reject) => {
        z.once('error', reject);
        z.once('end', resolve);
        z.end();
      });
      await new Promise<void>((resolve) => out.write(Buffer.alloc(0), () => resolve()));
    },
  };
}

/** A file's bytes, gunzipped when `gzip` is set. */
export function fileSource(path: string, gzip: boolean): Readable {
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  if (!gzip) return file;
  const z = createGunzip();
  file.on('error', (e) => z.destroy(e));
  return file.pipe(z);
}

/** A stream's bytes (standard input), gunzipped when `gzip` is set. */
export function streamSource(input: Readable, gzip: boolean): Readable {
  if (!gzip) return input;
  const z = createGunzip();
  input.on('error', (e) => z.destroy(e));
  return input.pipe(z);
}
