// Sorted runs in spill files. A record is one BSON document, which carries its own int32
// length prefix; a run is a byte range of a file holding records in sorted order, read back
// sequentially through a bounded buffer.

import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';
import type { SpillFile } from './area.js';

export interface Run {
  readonly file: SpillFile;
  readonly start: number;
  readonly end: number;
  readonly records: number;
}

/** Appends records to a file and returns each finished run's extent. */
export class RunWriter {
  private start: number;
  private records = 0;

  constructor(readonly file: SpillFile) {
    this.start = file.length;
  }

  add(record: Uint8Array): void {
    this.file.append(record);
    this.records++;
  }

  /** Closes the current run and starts the next one at the end of the file. */
  finishRun(): Run {
    const run: Run = {
      file: this.file,
      start: this.start,
      end: this.file.length,
      records: this.records,
    };
    this.start = this.file.length;
    this.records = 0;
    return run;
  }
}

/** Reads the records of one run in order, `limits.spillReadBufferBytes` at a time. */
export class RunReader {
  private buf: Buffer;
  /** File position of buf[0] and how many bytes of buf are valid. */
  private bufPos = 0;
  private bufLen = 0;
  private pos: number;

  constructor(
    private readonly run: Run,
    bufferBytes: number = limits.spillReadBufferBytes,
  ) {
    this.buf = Buffer.allocUnsafe(bufferBytes);
    this.pos = run.start;
    this.bufPos = run.start;
  }

  /** The next record (a copy the caller owns), or undefined at the end of the run. */
  next(): Uint8Array | undefined {
    if (this.pos >= this.run.end) return undefined;
    this.ensure(4);
    const at = this.pos - this.bufPos;
    const length = this.buf.readInt32LE(at);
    if (length < 5 || this.pos + length > this.run.end) {
      throw new CommandError(
        ErrorCode.InternalError,
        `corrupt spill file ${this.run.file.path} at offset ${this.pos}`,
      );
    }
    this.ensure(length);
    const from = this.pos - this.bufPos;
    const record = Uint8Array.prototype.slice.call(this.buf, from, from + length);
    this.pos += length;
    return record;
  }

  /** Makes buf hold at least `n` bytes from `pos` (or the rest of the run). */
  private ensure(n: number): void {
    if (this.pos + n <= this.bufPos + this.bufLen) return;
    if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n);
    const want = Math.min(this.buf.length, this.run.end - this.pos);
    this.bufLen = this.run.file.read(this.buf, want, this.pos);
    this.bufPos = this.pos;
    if (this.bufLen < Math.min(n, want)) {
      throw new CommandError(
        ErrorCode.InternalError,
        `short read from spill file ${this.run.file.path} at offset ${this.pos}`,
      );
    }
  }
}
