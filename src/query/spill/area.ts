// Where blocking stages spill: one directory per server (`<dbpath>/_tmp` for a durable server,
// `<os tmpdir>/secantus-<pid>-<random>` for an in-memory one), created on the first spill.
// Files belong to an operation's SpillScope, which deletes them when the cursor finishes, is
// killed or times out; the area deletes whatever is left when the server stops, and a durable
// server wipes a `_tmp` left behind by a crash when it starts.
//
// Spill files are written and read with synchronous calls: plan stages run synchronously on
// one snapshot (see src/query/exec/stages.ts), and a spill is a sequential write of a run.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { CommandError, ErrorCode } from '../../errors.js';
import { limits } from '../../limits.js';

export class SpillArea {
  private readonly live = new Set<SpillFile>();
  private created = false;
  private nextId = 1;
  /** Bytes of the files alive now, over every operation (bounded by limits.spillBytesMax). */
  bytesInUse = 0;

  private constructor(readonly dir: string) {}

  /** The area of a server: under its dbPath when durable, else a private directory in the OS temp dir. */
  static forServer(dbPath: string | undefined): SpillArea {
    if (dbPath !== undefined) return new SpillArea(path.join(dbPath, '_tmp'));
    return new SpillArea(
      path.join(os.tmpdir(), `secantus-${process.pid}-${randomBytes(4).toString('hex')}`),
    );
  }

  /** Removes the directory and everything in it (start-up after a crash, and stop). */
  wipe(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
    this.created = false;
  }

  /** Opens a new, empty spill file. */
  create(): SpillFile {
    if (!this.created) {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.created = true;
    }
    const file = new SpillFile(
      path.join(this.dir, `spill-${this.nextId++}-${randomBytes(4).toString('hex')}`),
      this,
    );
    this.live.add(file);
    return file;
  }

  /** Number of spill files alive (tests and serverStatus). */
  get fileCount(): number {
    return this.live.size;
  }

  /** Called by a file as it grows; fails the operation once the area is full. */
  reserve(bytes: number): void {
    if (this.bytesInUse + bytes > limits.spillBytesMax) {
      throw new CommandError(
        ErrorCode.OutOfDiskSpace,
        `Cannot spill to disk: spill files would exceed ${limits.spillBytesMax} bytes`,
      );
    }
    this.bytesInUse += bytes;
  }

  forget(file: SpillFile, bytes: number): void {
    this.live.delete(file);
    this.bytesInUse -= bytes;
  }

  /** Deletes every file still alive and the directory (server stop). */
  close(): void {
    for (const f of [...this.live]) f.delete();
    this.wipe();
  }
}

/**
 * An append-only file of records, read back by position. Appends go through a buffer that is
 * flushed before any read, so readers always see what was written.
 */
export class SpillFile {
  private fd: number | undefined;
  private flushed = 0;
  private readonly buffer = Buffer.allocUnsafe(64 * 1024);
  private used = 0;

  constructor(
    readonly path: string,
    private readonly area: SpillArea,
  ) {
    this.fd = fs.openSync(path, 'wx+', 0o600);
  }

  /** Bytes written so far (the offset of the next append). */
  get length(): number {
    return this.flushed + this.used;
  }

  append(bytes: Uint8Array): void {
    this.area.reserve(bytes.length);
    if (this.used + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) {
      fs.writeSync(this.openFd(), bytes, 0, bytes.length, this.flushed);
      this.flushed += bytes.length;
      return;
    }
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  flush(): void {
    if (this.used === 0) return;
    let done = 0;
    while (done < this.used)
      done += fs.writeSync(this.openFd(), this.buffer, done, this.used - done, this.flushed + done);
    this.flushed += this.used;
    this.used = 0;
  }

  /** Reads up to `length` bytes at `position` into `into`; returns how many were read. */
  read(into: Buffer, length: number, position: number): number {
    this.flush();
    let done = 0;
    while (done < length) {
      const n = fs.readSync(this.openFd(), into, done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  /** Closes and unlinks the file; safe to call twice. */
  delete(): void {
    if (this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
    fs.rmSync(this.path, { force: true });
    this.area.forget(this, this.length);
  }

  private openFd(): number {
    if (this.fd === undefined)
      throw new CommandError(ErrorCode.CursorKilled, 'spill file used after its operation ended');
    return this.fd;
  }
}

/** The spill files of one operation, deleted together when the operation's cursor goes away. */
export class SpillScope {
  private readonly files = new Set<SpillFile>();

  constructor(private readonly area: SpillArea) {}

  create(): SpillFile {
    const f = this.area.create();
    this.files.add(f);
    return f;
  }

  /** Deletes one file early (a merged run that is no longer needed). */
  drop(file: SpillFile): void {
    file.delete();
    this.files.delete(file);
  }

  release(): void {
    for (const f of this.files) f.delete();
    this.files.clear();
  }
}
