// The jsonfile engine: the data in memory (the memory engine, unchanged), every committed
// transaction appended to one human-readable log file in the data directory, replayed on open.
//
// The file (`secantus.jsonl`) is JSON lines. The first is a header; then each transaction is
// its record operations, one line each, closed by a commit line:
//
//   {"secantus":"jsonfile","version":1,"seq":41}
//   {"op":"put","table":"…","key":{"$binary":{…}},"doc":{"_id":{"$numberInt":"1"},…}}
//   {"op":"del","table":"…","key":{"$binary":{…}}}
//   {"op":"clear","table":"…"}
//   {"commit":42}
//
// Keys are Extended JSON binaries; a value that is a BSON document (every stored record is)
// is written as canonical Extended JSON under `doc` when it reads back to the very same bytes,
// otherwise as a binary under `value`. A transaction applies on replay only once its commit
// line is read, so a torn tail (a crash in the middle of an append) is ignored and cut off.
//
// Durability: each batch of commits (everything committed while the previous append was being
// written) is one append and one fdatasync; a write's promise resolves after its batch is on
// disk. Commits are visible to snapshots before their append is synced (as lmdb with
// overlappingSync); if an append fails, the engine refuses further writes until reopened.
//
// Compaction rewrites the live data as one transaction into a new file (header seq S, puts,
// commit S) and renames it over the log: on a clean close, and when the log outgrows the
// live data (limits.jsonfileCompact*). Commits made meanwhile are appended after it.

import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Binary, BSON, EJSON } from 'bson';
import type {
  Bytes,
  EngineStats,
  Snapshot,
  StorageEngine,
  TableSize,
  WriteOptions,
  WriteTxn,
} from '../engine.js';
import { MemoryEngine, type MemorySnapshot } from '../memory/memory-engine.js';
import { DirectoryLock } from '../lock-file.js';
import { DelegatingWriteTxn } from '../delegating-txn.js';
import { checkSynchronousResult, StorageClosedError } from '../validate.js';
import { limits } from '../../limits.js';
import { silentLogger, type Logger } from '../../log.js';

/** The log file inside the data directory. */
export const jsonFileName = 'secantus.jsonl';
const formatVersion = 1;

export interface JsonFileEngineOptions {
  readonly path: string;
  /** Append without fdatasync: a process crash loses nothing, a machine crash may. */
  readonly noSync?: boolean;
  readonly logger?: Logger;
  /** Smallest log compacted while open (tests); default limits.jsonfileCompactLogBytesMin. */
  readonly compactLogBytesMin?: number;
}

/** The log is not one this server wrote, or is damaged before its last line. */
export class JsonFileFormatError extends Error {
  constructor(file: string, line: number, why: string) {
    super(`${file}, line ${line}: ${why}`);
    this.name = 'JsonFileFormatError';
  }
}

const bsonRead = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;
const canonical = { relaxed: false } as const;

function asBuffer(b: Bytes): Buffer {
  return b instanceof Buffer ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

function binaryJson(b: Bytes): unknown {
  return EJSON.serialize(new Binary(asBuffer(b)), canonical);
}

/**
 * A value as JSON: the document itself when the bytes are a BSON document that comes back
 * from its Extended JSON byte for byte, else the bytes.
 */
function valueFields(value: Bytes): { doc: unknown } | { value: unknown } {
  const bytes = asBuffer(value);
  if (bytes.length >= 5 && bytes.readInt32LE(0) === bytes.length) {
    try {
      const doc = EJSON.serialize(BSON.deserialize(bytes, bsonRead), canonical);
      const back = BSON.serialize(EJSON.deserialize(doc as object, canonical) as object);
      if (Buffer.from(back.buffer, back.byteOffset, back.byteLength).equals(bytes)) return { doc };
    } catch {
      // not a document we can round-trip: written as bytes
    }
  }
  return { value: binaryJson(bytes) };
}

function putLine(table: string, key: Bytes, value: Bytes): string {
  return JSON.stringify({ op: 'put', table, key: binaryJson(key), ...valueFields(value) }) + '\n';
}

/** One record operation read back from the log. */
type Op =
  | { readonly op: 'put'; readonly table: string; readonly key: Buffer; readonly value: Buffer }
  | { readonly op: 'del'; readonly table: string; readonly key: Buffer }
  | { readonly op: 'clear'; readonly table: string };

function bytesOf(json: unknown): Buffer {
  const b = EJSON.deserialize({ b: json }, canonical)['b'] as unknown;
  if (!(b instanceof Binary)) throw new Error('expected an Extended JSON binary');
  return Buffer.from(b.buffer);
}

function parseOp(line: Record<string, unknown>): Op {
  const table = line['table'];
  if (typeof table !== 'string') throw new Error('a record operation without a table name');
  switch (line['op']) {
    case 'put': {
      const key = bytesOf(line['key']);
      const value =
        'doc' in line
          ? Buffer.from(BSON.serialize(EJSON.deserialize(line['doc'] as object, canonical)))
          : bytesOf(line['value']);
      return { op: 'put', table, key, value };
    }
    case 'del':
      return { op: 'del', table, key: bytesOf(line['key']) };
    case 'clear':
      return { op: 'clear', table };
    default:
      throw new Error(`unknown operation ${JSON.stringify(line['op'])}`);
  }
}

/** The memory engine's transaction, recording each change as a log line. */
class RecordingTxn extends DelegatingWriteTxn {
  text = '';

  put(table: string, key: Bytes, value: Bytes): void {
    this.inner.put(table, key, value); // validates first: a refused put records nothing
    this.text += putLine(table, key, value);
  }

  delete(table: string, key: Bytes): boolean {
    const existed = this.inner.delete(table, key);
    if (existed) this.text += JSON.stringify({ op: 'del', table, key: binaryJson(key) }) + '\n';
    return existed;
  }

  clearTable(table: string): void {
    this.inner.clearTable(table);
    this.text += JSON.stringify({ op: 'clear', table }) + '\n';
  }
}

/** Appended text waiting for its fdatasync, with the writes that wait for it. */
interface Pending {
  text: string;
  waiters: { resolve(): void; reject(e: unknown): void }[];
}

export class JsonFileEngine implements StorageEngine {
  readonly name = 'jsonfile';
  readonly persistent = true;

  private pending: Pending = { text: '', waiters: [] };
  private appending: Promise<void> | undefined;
  private failure: unknown;
  private closing = false;
  private closed: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Bytes of the log file, including what is being appended. */
  private logBytes: number;
  private appendedSinceOpen = false;

  private constructor(
    private readonly inner: MemoryEngine,
    private readonly file: string,
    private fh: fsp.FileHandle,
    logBytes: number,
    private readonly lock: DirectoryLock,
    options: JsonFileEngineOptions,
  ) {
    this.logBytes = logBytes;
    this.noSync = options.noSync ?? false;
    this.logger = options.logger ?? silentLogger;
    this.compactLogBytesMin = options.compactLogBytesMin ?? limits.jsonfileCompactLogBytesMin;
  }

  private readonly noSync: boolean;
  private readonly logger: Logger;
  private readonly compactLogBytesMin: number;

  get maxKeyBytes(): number {
    return this.inner.maxKeyBytes;
  }

  get committedSeq(): number {
    return this.inner.committedSeq;
  }

  static async open(options: JsonFileEngineOptions): Promise<JsonFileEngine> {
    const lock = DirectoryLock.acquire(options.path);
    try {
      const file = path.join(options.path, jsonFileName);
      if (!fs.existsSync(file)) {
        await writeFileDurably(file, headerLine(0));
      }
      const { inner, goodBytes, totalBytes, headerless } = await replay(file);
      if (headerless) await writeFileDurably(file, headerLine(0));
      else if (goodBytes < totalBytes) {
        // A torn or uncommitted tail: cut it, so appends follow the last whole transaction.
        await fsp.truncate(file, goodBytes);
        (options.logger ?? silentLogger).warn(
          'STORAGE',
          7_310_201,
          'Ignored the incomplete last transaction of the jsonfile log',
          { file, bytes: totalBytes - goodBytes },
        );
      }
      const fh = await fsp.open(file, 'a');
      return new JsonFileEngine(
        inner,
        file,
        fh,
        headerless ? Buffer.byteLength(headerLine(0)) : goodBytes,
        lock,
        options,
      );
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  snapshot(): Snapshot {
    if (this.closing) throw new StorageClosedError();
    return this.inner.snapshot();
  }

  write<T>(fn: (txn: WriteTxn) => T, options: WriteOptions): Promise<T> {
    if (this.closing) return Promise.reject(new StorageClosedError());
    if (this.failure !== undefined) return Promise.reject(this.failure);
    let synced: Promise<void> | undefined;
    const committed = this.inner.write((txn) => {
      const rec = new RecordingTxn(txn);
      const result = fn(rec);
      checkSynchronousResult(result);
      // Runs in commit order: the log's order is the seq order.
      synced = this.append(`${rec.text}{"commit":${txn.seq}}\n`);
      return result;
    }, options);
    const done = committed.then(async (result) => {
      const wait = synced;
      if (wait !== undefined && options.durable) await wait;
      else wait?.catch(() => undefined); // a failed append is reported to later writes
      return result;
    });
    this.inFlight.add(done);
    const forget = (): void => void this.inFlight.delete(done);
    done.then(forget, forget);
    return done;
  }

  private append(text: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.text += text;
      this.pending.waiters.push({ resolve, reject });
      this.appending ??= this.appendLoop();
    });
  }

  private async appendLoop(): Promise<void> {
    // One append (and one fdatasync) at a time, carrying everything committed meanwhile.
    await Promise.resolve();
    while (this.pending.waiters.length > 0) {
      const batch = this.pending;
      this.pending = { text: '', waiters: [] };
      try {
        if (this.failure !== undefined) throw this.failure;
        await this.fh.write(batch.text);
        if (!this.noSync) await this.fh.datasync();
        this.logBytes += Buffer.byteLength(batch.text);
        this.appendedSinceOpen = true;
        for (const w of batch.waiters) w.resolve();
      } catch (e) {
        if (this.failure === undefined) {
          this.failure = e;
          this.logger.error(
            'STORAGE',
            7_310_202,
            'Appending to the jsonfile log failed; refusing writes until reopened',
            { file: this.file, error: e instanceof Error ? e.message : String(e) },
          );
        }
        for (const w of batch.waiters) w.reject(e);
      }
      if (this.failure === undefined && !this.closing && this.compactionDue()) {
        await this.compact().catch((e: unknown) =>
          this.logger.warn('STORAGE', 7_310_203, 'jsonfile compaction failed; log kept as is', {
            file: this.file,
            error: e instanceof Error ? e.message : String(e),
          }),
        );
      }
    }
    this.appending = undefined;
  }

  private compactionDue(): boolean {
    const live = this.inner.stats().storageSizeBytes;
    return (
      this.logBytes >= this.compactLogBytesMin &&
      this.logBytes > live * limits.jsonfileCompactLogToDataRatio
    );
  }

  /**
   * Rewrite the log as the live data at one seq, then rename it over the old log. Runs in the
   * append loop (no append in flight): commits after the snapshot wait in `pending`.
   */
  private async compact(): Promise<void> {
    const snap = this.inner.snapshot();
    // What is pending now is exactly the commits the snapshot has and the log has not: the
    // new file carries them, so they are not appended again (their writes wait for it).
    const covered = this.pending;
    this.pending = { text: '', waiters: [] };
    const tmp = `${this.file}.compact`;
    let bytes = 0;
    try {
      bytes = await this.writeImage(snap, tmp);
      await fsp.rename(tmp, this.file);
      await syncDirectory(path.dirname(this.file));
    } catch (e) {
      // The old log stays; what it lacks goes to it first, ahead of anything newer.
      this.pending = {
        text: covered.text + this.pending.text,
        waiters: [...covered.waiters, ...this.pending.waiters],
      };
      await fsp.rm(tmp, { force: true });
      throw e;
    } finally {
      snap.release();
    }
    const old = this.fh;
    this.fh = await fsp.open(this.file, 'a');
    await old.close();
    this.logBytes = bytes;
    for (const w of covered.waiters) w.resolve();
  }

  /** Write the snapshot's data as a log file of one transaction; returns its size. */
  private async writeImage(snap: MemorySnapshot, tmp: string): Promise<number> {
    const out = await fsp.open(tmp, 'w');
    let bytes = 0;
    try {
      let chunk = headerLine(snap.seq);
      const flushChunk = async (): Promise<void> => {
        await out.write(chunk);
        bytes += Buffer.byteLength(chunk);
        chunk = '';
      };
      if (snap.seq > 0) {
        for (const table of snap.tableNames()) {
          for (const e of snap.scan(table)) {
            chunk += putLine(table, e.key, e.value);
            // Awaiting the write gives the event loop back between chunks.
            if (chunk.length >= limits.jsonfileCompactChunkChars) await flushChunk();
          }
        }
        chunk += `{"commit":${snap.seq}}\n`;
      }
      await flushChunk();
      await out.datasync();
    } finally {
      await out.close();
    }
    return bytes;
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    while (this.appending !== undefined) await this.appending;
    if (this.noSync && this.failure === undefined) await this.fh.datasync();
  }

  stats(): EngineStats {
    return { storageSizeBytes: this.logBytes };
  }

  tableSize(table: string): TableSize {
    return this.inner.tableSize(table);
  }

  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    try {
      await Promise.allSettled([...this.inFlight]);
      while (this.appending !== undefined) await this.appending;
      // A clean close leaves the smallest file: the live data, no history.
      if (this.failure === undefined && this.appendedSinceOpen) await this.compact();
    } finally {
      await this.inner.close();
      await this.fh.close();
      this.lock.release();
    }
  }
}

function headerLine(seq: number): string {
  return JSON.stringify({ secantus: 'jsonfile', version: formatVersion, seq }) + '\n';
}

async function syncDirectory(dir: string): Promise<void> {
  const d = await fsp.open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

async function writeFileDurably(file: string, text: string): Promise<void> {
  const tmp = `${file}.new`;
  const fh = await fsp.open(tmp, 'w');
  try {
    await fh.write(text);
    await fh.datasync();
  } finally {
    await fh.close();
  }
  await fsp.rename(tmp, file);
  await syncDirectory(path.dirname(file));
}

/**
 * Read the log into a memory engine. Returns the byte length of its whole transactions (what
 * follows them is a torn or uncommitted tail) and of the file.
 */
async function replay(
  file: string,
): Promise<{ inner: MemoryEngine; goodBytes: number; totalBytes: number; headerless: boolean }> {
  const totalBytes = (await fsp.stat(file)).size;
  const input = fs.createReadStream(file);
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let offset = 0;
  let goodBytes = 0;
  let lineNo = 0;
  let headerSeq: number | undefined;
  let inner: MemoryEngine | undefined;
  let ops: Op[] = [];
  let last: Promise<unknown> = Promise.resolve();
  let torn = false;
  const fail = (why: string): never => {
    throw new JsonFileFormatError(file, lineNo, why);
  };
  try {
    for await (const text of lines) {
      lineNo++;
      offset += Buffer.byteLength(text) + 1;
      // Every line is written with its newline: one without is the tail of a cut append.
      if (offset > totalBytes) {
        torn = true;
        break;
      }
      let line: Record<string, unknown>;
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
          throw new Error('not a JSON object');
        line = parsed as Record<string, unknown>;
      } catch (e) {
        fail(`not JSON (${e instanceof Error ? e.message : String(e)})`);
        break;
      }
      if (headerSeq === undefined) {
        if (line['secantus'] !== 'jsonfile' || typeof line['seq'] !== 'number')
          fail('not a SecantusDB jsonfile log (no header line)');
        if (line['version'] !== formatVersion)
          fail(`log format ${String(line['version'])}; this server reads ${formatVersion}`);
        headerSeq = line['seq'] as number;
        goodBytes = offset;
        continue;
      }
      if ('commit' in line) {
        const seq = line['commit'];
        if (typeof seq !== 'number') fail('a commit line without a seq');
        // The compacted image commits at the header's seq; later transactions follow it.
        inner ??= new MemoryEngine({
          initialSeq: seq === headerSeq ? (headerSeq as number) - 1 : (headerSeq as number),
        });
        const txnOps = ops;
        ops = [];
        const expected = inner.committedSeq + 1;
        last = inner.write(
          (t) => {
            if (t.seq !== seq) fail(`commit ${String(seq)} where ${expected} was expected`);
            for (const op of txnOps) {
              if (op.op === 'put') t.put(op.table, op.key, op.value);
              else if (op.op === 'del') t.delete(op.table, op.key);
              else t.clearTable(op.table);
            }
          },
          { durable: false },
        );
        await last; // one transaction at a time: the ops of the next are not held meanwhile
        goodBytes = offset;
        continue;
      }
      try {
        ops.push(parseOp(line));
      } catch (e) {
        fail(e instanceof Error ? e.message : String(e));
      }
    }
  } finally {
    lines.close();
    input.destroy();
  }
  if (headerSeq === undefined) {
    if (totalBytes > 0 && !torn) fail('not a SecantusDB jsonfile log (no header line)');
    // An empty file or a torn header: nothing was ever committed to it.
    return { inner: new MemoryEngine(), goodBytes: 0, totalBytes, headerless: true };
  }
  await last;
  return {
    inner: inner ?? new MemoryEngine({ initialSeq: headerSeq }),
    goodBytes,
    totalBytes,
    headerless: false,
  };
}
