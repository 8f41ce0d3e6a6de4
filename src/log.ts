// Structured logs, one JSON object per line, shaped like mongod's:
//   {"t":{"$date":"…"},"s":"I","c":"NETWORK","id":22943,"ctx":"conn3","msg":"…","attr":{…}}
// Secrets never reach a log line: attributes named like credentials are redacted here, so a
// careless caller cannot leak them. User data (a slow operation's command) is passed wrapped
// in `logDocument`: it is written as relaxed Extended JSON, as mongod writes it, after the
// command's own redaction (commands/operations.ts), without the name-based one.
//
// Verbosity follows mongod: informational lines and above always; debug lines (D1..D5) when the
// global logLevel or the component's logComponentVerbosity is at least their level. The last
// lines written are kept in memory for getLog ('global'), and startup warnings separately
// ('startupWarnings'), whether or not a sink writes them anywhere.

import { Binary, Double, EJSON, Int32, ObjectId } from 'bson';
import { closeSync, existsSync, openSync, renameSync, writeSync } from 'node:fs';
import { limits } from './limits.js';

export const Severity = {
  fatal: 'F',
  error: 'E',
  warning: 'W',
  info: 'I',
  debug: 'D1',
  debug2: 'D2',
  debug3: 'D3',
  debug4: 'D4',
  debug5: 'D5',
} as const;
export type SeverityName = keyof typeof Severity;

/** Severity order: lower is more severe; debug levels 1..5 follow info. */
const rank: Record<SeverityName, number> = {
  fatal: 0,
  error: 1,
  warning: 2,
  info: 3,
  debug: 4,
  debug2: 5,
  debug3: 6,
  debug4: 7,
  debug5: 8,
};
const infoRank = rank.info;

export type LogComponent =
  | 'CONTROL'
  | 'NETWORK'
  | 'COMMAND'
  | 'QUERY'
  | 'STORAGE'
  | 'REPL'
  | 'TXN'
  | 'INDEX'
  | 'ACCESS'
  | 'WRITE'
  | 'DEFAULT';

/**
 * mongod 7.0's log components by their logComponentVerbosity names, with their children. The
 * ones this server writes lines for are mapped from LogComponent below; the others are
 * accepted and reported so that tools setting them keep working.
 */
export const logComponentTree: Readonly<Record<string, readonly string[]>> = {
  accessControl: [],
  assert: [],
  command: [],
  control: [],
  executor: [],
  geo: [],
  index: [],
  network: ['asio', 'bridge', 'connectionPool'],
  processHealth: [],
  query: ['optimizer', 'ce'],
  queryStats: [],
  replication: ['election', 'heartbeats', 'initialSync', 'rollback'],
  sharding: ['rangeDeleter', 'shardingCatalogRefresh', 'migration', 'reshard', 'migrationPerf'],
  storage: ['recovery', 'journal', 'wt'],
  write: [],
  ftdc: [],
  tracking: [],
  transaction: [],
  tenantMigration: [],
  test: [],
  resourceConsumption: [],
  streams: [],
};

const componentPath: Record<Exclude<LogComponent, 'DEFAULT'>, string> = {
  CONTROL: 'control',
  NETWORK: 'network',
  COMMAND: 'command',
  QUERY: 'query',
  STORAGE: 'storage',
  REPL: 'replication',
  TXN: 'transaction',
  INDEX: 'index',
  ACCESS: 'accessControl',
  WRITE: 'write',
};

/** The verbosity settings of one server (setParameter logLevel / logComponentVerbosity / quiet). */
export class LogSettings {
  private global = 0;
  /** Component path ("storage", "storage.journal") → verbosity; absent: inherit. */
  private readonly levels = new Map<string, number>();
  /** Effective debug level per emitted component, recomputed on change (a lookup on hot paths). */
  private effective: Record<LogComponent, number> = this.compute();
  /** mongod's --quiet: connection and some command lines are left out. */
  quiet = false;

  get logLevel(): number {
    return this.global;
  }

  set logLevel(level: number) {
    this.global = Math.max(0, Math.trunc(level));
    this.effective = this.compute();
  }

  /** The verbosity set for a component path, or -1 when it inherits. */
  componentLevel(path: string): number {
    return this.levels.get(path) ?? -1;
  }

  /** Set (level >= 0) or clear (negative) a component's verbosity. */
  setComponentLevel(path: string, level: number): void {
    if (level < 0) this.levels.delete(path);
    else this.levels.set(path, Math.trunc(level));
    this.effective = this.compute();
  }

  /** The debug level up to which lines of `component` are written. */
  levelOf(component: LogComponent): number {
    return this.effective[component];
  }

  private compute(): Record<LogComponent, number> {
    const out = { DEFAULT: this.global } as Record<LogComponent, number>;
    for (const [c, path] of Object.entries(componentPath)) {
      out[c as LogComponent] = this.levels.get(path) ?? this.global;
    }
    return out;
  }
}

export interface LogSink {
  write(line: string): void;
}

/** Marks a BSON document as user data to log as relaxed Extended JSON, not name-redacted. */
export class LoggedDocument {
  constructor(readonly doc: unknown) {}
}

export function logDocument(doc: unknown): LoggedDocument {
  return new LoggedDocument(doc);
}

const secretKey =
  /pass(word)?|pwd|secret|token|key(?!Pattern|Value|s?Examined|s?Inserted|s?Deleted)|credential|payload|authorization/i;
/** Attribute names the pattern above catches that hold no secret (mongod logs them as is). */
const publicKeys = new Set(['planCacheKey']);

/** mongod writes UUIDs as {"$uuid": "…"} in its logs. */
function uuidText(b: Binary): string {
  const hex = Buffer.from(b.buffer.subarray(0, b.position)).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * An object for logged fields: without a prototype, so that a field named `__proto__` is a
 * field like the others (JSON.stringify writes it), not the object's prototype.
 */
function fieldMap(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

function relaxed(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > limits.bsonDepthMax + 2) return '…';
  if (value instanceof Binary && value.sub_type === Binary.SUBTYPE_UUID)
    return { $uuid: uuidText(value) };
  // The common scalars by hand, as EJSON writes them: EJSON.serialize costs microseconds a
  // value, and a filter of 20k numbers was logged in ~70 ms.
  if (value instanceof Int32) return value.value;
  if (value instanceof Double && Number.isFinite(value.value)) return value.value;
  if (value instanceof ObjectId) return { $oid: value.toHexString() };
  if ('_bsontype' in value) return EJSON.serialize(value, { relaxed: true });
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Array.isArray(value)) return value.map((v) => relaxed(v, depth + 1));
  if (value instanceof Uint8Array) return EJSON.serialize(new Binary(value), { relaxed: true });
  const out = fieldMap();
  for (const [k, v] of Object.entries(value)) out[k] = relaxed(v, depth + 1);
  return out;
}

/** JSON's length for an ObjectId in relaxed EJSON: {"$oid":"<24 hex digits>"}. */
const oidJsonLength = '{"$oid":""}'.length + 24;

/**
 * jsonLength(relaxed(value, depth)) without building the relaxed copy: the slow-query line of a
 * 10k-document insert measured its command by converting every document, then dropped it.
 */
function relaxedJsonLength(value: unknown, depth: number): number {
  if (value === null || typeof value !== 'object') return jsonLength(value);
  if (depth > limits.bsonDepthMax + 2) return jsonLength('…');
  if (value instanceof Int32) return jsonLength(value.value);
  if (value instanceof Double && Number.isFinite(value.value)) return jsonLength(value.value);
  if (value instanceof ObjectId) return oidJsonLength;
  if (value instanceof Date && !Number.isNaN(value.getTime()))
    return '{"$date":""}'.length + value.toISOString().length;
  if (Array.isArray(value)) {
    let n = 1 + Math.max(value.length, 1);
    for (const x of value)
      n += x === undefined || typeof x === 'function' ? 4 : relaxedJsonLength(x, depth + 1);
    return n;
  }
  if ('_bsontype' in value || value instanceof Date || value instanceof Uint8Array)
    return jsonLength(relaxed(value, depth));
  let n = 2;
  let fields = 0;
  const doc = value as Record<string, unknown>;
  // for..in over a decoded document (own enumerable fields only) allocates no entry arrays.
  for (const k in doc) {
    if (!Object.hasOwn(doc, k)) continue;
    const x = doc[k];
    if (x === undefined || typeof x === 'function') continue;
    n += stringJsonLength(k) + 1 + relaxedJsonLength(x, depth + 1);
    fields++;
  }
  return n + Math.max(fields - 1, 0);
}

/** What an attribute is written as: a logged document in relaxed EJSON, the rest redacted. */
function redact(value: unknown, depth: number): unknown {
  if (value instanceof LoggedDocument) return relaxed(value.doc, 0);
  if (depth > 8 || value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? value.toString() : value;
  }
  if ('_bsontype' in value || value instanceof Date) return relaxed(value, 0);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Error) return { name: value.name, message: value.message };
  const out = fieldMap();
  for (const [k, v] of Object.entries(value)) {
    out[k] = secretKey.test(k) && !publicKeys.has(k) ? '###' : redact(v, depth + 1);
  }
  return out;
}

/**
 * The length JSON.stringify(v) has, without building it: a 16 MB command is measured in
 * microseconds, not stringified in tens of milliseconds. Exact except for strings longer than
 * the attribute limit, counted without their escapes (they are over the limit either way).
 */
function jsonLength(v: unknown): number {
  if (typeof v === 'string') return stringJsonLength(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return digits(v);
  if (
    v === null ||
    typeof v !== 'object' ||
    typeof (v as { toJSON?: unknown }).toJSON === 'function'
  )
    return (JSON.stringify(v) ?? 'null').length;
  if (Array.isArray(v)) {
    let n = 1 + Math.max(v.length, 1);
    for (const x of v) n += x === undefined || typeof x === 'function' ? 4 : jsonLength(x);
    return n;
  }
  let n = 2;
  let fields = 0;
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined || typeof x === 'function') continue;
    n += stringJsonLength(k) + 1 + jsonLength(x);
    fields++;
  }
  return n + Math.max(fields - 1, 0);
}

/** The number of decimal digits of a safe non-negative integer. */
function digits(v: number): number {
  let d = 1;
  for (let p = 10; v >= p; p *= 10) d++;
  return d;
}

/** What JSON.stringify escapes in a string: quotes, backslashes, controls, lone surrogates. */
// eslint-disable-next-line no-control-regex -- the controls are what JSON escapes
const jsonEscaped = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(s).length, without building it when nothing in `s` needs escaping. */
function stringJsonLength(s: string): number {
  if (s.length > limits.logAttributeBytesMax || !jsonEscaped.test(s)) return s.length + 2;
  return JSON.stringify(s).length;
}

/**
 * The attributes redacted, each cut to the attribute limit: an attribute longer than the limit
 * keeps its leading fields that fit; `truncated` and `size` say which were cut and how big it
 * was, in the spirit of mongod's log truncation. A logged document is measured before it is
 * converted, and only the fields kept are converted.
 */
function redactAttributes(attr: Record<string, unknown>): Record<string, unknown> {
  const out = fieldMap();
  let truncated: Record<string, unknown> | undefined;
  let size: Record<string, number> | undefined;
  for (const [k, v] of Object.entries(attr)) {
    if (secretKey.test(k) && !publicKeys.has(k)) {
      out[k] = '###';
      continue;
    }
    const logged = v instanceof LoggedDocument && isFieldMap(v.doc);
    const value = logged ? (v.doc as Record<string, unknown>) : redact(v, 1);
    if (value === null || typeof value !== 'object') {
      out[k] = value;
      continue;
    }
    // A document's fields are measured once: its length is the sum of theirs (a 10k-document
    // insert was walked twice, once for the total and once more field by field).
    const measure = logged ? (x: unknown): number => relaxedJsonLength(x, 1) : jsonLength;
    const byField = logged || !(Array.isArray(value) || hasToJson(value));
    const fields = byField ? measureFields(value, measure) : undefined;
    const length =
      fields !== undefined
        ? fields.reduce((n, f) => n + f[2], 1 + (fields.length === 0 ? 1 : 0))
        : jsonLength(value);
    if (length <= limits.logAttributeBytesMax) {
      out[k] = logged ? relaxed(value, 0) : value;
      continue;
    }
    const kept = fieldMap();
    let used = 2;
    let omitted = 0;
    for (const [fk, fv, field] of fields ?? measureFields(value, measure)) {
      if (used + field > limits.logAttributeBytesMax) {
        omitted++;
        continue;
      }
      used += field;
      kept[fk] = logged ? relaxed(fv, 1) : fv;
    }
    out[k] = kept;
    (truncated ??= {})[k] = { omittedFields: omitted };
    (size ??= {})[k] = length;
  }
  if (truncated === undefined) return out;
  return { ...out, truncated, size };
}

/**
 * Each own field of `value` that JSON writes, with its length in an object: the name as JSON
 * writes it (quotes and escapes), a colon, the value, and a comma.
 */
function measureFields(
  value: object,
  measure: (x: unknown) => number,
): Array<[string, unknown, number]> {
  const out: Array<[string, unknown, number]> = [];
  for (const [k, x] of Object.entries(value)) {
    if (x === undefined || typeof x === 'function') continue;
    out.push([k, x, stringJsonLength(k) + 1 + measure(x) + 1]);
  }
  return out;
}

function hasToJson(v: object): boolean {
  return typeof (v as { toJSON?: unknown }).toJSON === 'function';
}

/** A document-like object whose fields the logger can measure one by one. */
function isFieldMap(v: unknown): boolean {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    !('_bsontype' in v) &&
    !(v instanceof Date) &&
    !(v instanceof Uint8Array)
  );
}

/** The last lines logged, bounded by count and bytes (mongod's RamLog). */
export class RamLog {
  private lines: string[] = [];
  private bytes = 0;
  totalLinesWritten = 0;

  constructor(
    private readonly linesMax: number = limits.logRamLinesMax,
    private readonly bytesMax: number = limits.logRamBytesMax,
  ) {}

  add(line: string): void {
    this.totalLinesWritten++;
    this.lines.push(line);
    this.bytes += line.length;
    let drop = 0;
    while (
      this.lines.length - drop > this.linesMax ||
      (this.bytes > this.bytesMax && this.lines.length - drop > 1)
    ) {
      this.bytes -= (this.lines[drop] as string).length;
      drop++;
    }
    if (drop > 0) this.lines = this.lines.slice(drop);
  }

  get(): string[] {
    return [...this.lines];
  }
}

/** What every logger of one server shares: where lines go, the settings, the in-memory logs. */
export class LogState {
  readonly settings = new LogSettings();
  readonly global = new RamLog();
  readonly startupWarnings = new RamLog();

  constructor(public sink: LogSink | undefined) {}
}

/** mongod's iso8601-local timestamps: local time with its UTC offset. */
function timestamp(d: Date): string {
  const offsetMin = -d.getTimezoneOffset();
  const local = new Date(d.getTime() + offsetMin * 60_000).toISOString().slice(0, 23);
  const sign = offsetMin >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMin);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}

export class Logger {
  private readonly floor: number;

  /**
   * @param sink where lines go (none: kept in memory only, for getLog)
   * @param level the least severe lines written at all (embedders may raise it; debug lines also
   *   need the verbosity settings)
   */
  constructor(
    sink: LogSink | undefined,
    private readonly level: SeverityName = 'debug5',
    private readonly ctx = 'main',
    readonly state: LogState = new LogState(sink),
  ) {
    this.floor = rank[level];
  }

  /** A logger for another context (a connection, a background job), same state. */
  child(ctx: string): Logger {
    return new Logger(this.state.sink, this.level, ctx, this.state);
  }

  get settings(): LogSettings {
    return this.state.settings;
  }

  /** Whether a line of this severity (and component, for debug lines) would be written. */
  enabled(severity: SeverityName, component: LogComponent = 'DEFAULT'): boolean {
    const r = rank[severity];
    if (r > this.floor) return false;
    return r <= infoRank || r - infoRank <= this.state.settings.levelOf(component);
  }

  log(
    severity: SeverityName,
    component: LogComponent,
    id: number,
    msg: string,
    attr?: Record<string, unknown>,
  ): void {
    if (!this.enabled(severity, component)) return;
    const line = this.format(severity, component, id, msg, attr);
    this.state.global.add(line);
    this.state.sink?.write(line + '\n');
  }

  /**
   * A startup warning, tagged as mongod tags them: logged, kept for getLog 'startupWarnings',
   * and returned as its line.
   */
  startupWarning(
    component: LogComponent,
    id: number,
    msg: string,
    attr?: Record<string, unknown>,
  ): string {
    const line = this.format('warning', component, id, msg, attr, ['startupWarnings']);
    this.state.global.add(line);
    this.state.startupWarnings.add(line);
    if (this.enabled('warning', component)) this.state.sink?.write(line + '\n');
    return line;
  }

  private format(
    severity: SeverityName,
    component: LogComponent,
    id: number,
    msg: string,
    attr?: Record<string, unknown>,
    tags?: readonly string[],
  ): string {
    const entry: Record<string, unknown> = {
      t: { $date: timestamp(new Date()) },
      s: Severity[severity],
      c: component === 'DEFAULT' ? '-' : component,
      id,
      ctx: this.ctx,
      msg,
    };
    if (attr !== undefined) entry['attr'] = redactAttributes(attr);
    if (tags !== undefined) entry['tags'] = tags;
    try {
      return JSON.stringify(entry);
    } catch {
      return JSON.stringify({ ...entry, attr: { unserializable: true } });
    }
  }

  info(component: LogComponent, id: number, msg: string, attr?: Record<string, unknown>): void {
    this.log('info', component, id, msg, attr);
  }
  warn(component: LogComponent, id: number, msg: string, attr?: Record<string, unknown>): void {
    this.log('warning', component, id, msg, attr);
  }
  error(component: LogComponent, id: number, msg: string, attr?: Record<string, unknown>): void {
    this.log('error', component, id, msg, attr);
  }
  fatal(component: LogComponent, id: number, msg: string, attr?: Record<string, unknown>): void {
    this.log('fatal', component, id, msg, attr);
  }
  /** A D1 line. */
  debug(component: LogComponent, id: number, msg: string, attr?: Record<string, unknown>): void {
    this.log('debug', component, id, msg, attr);
  }
  /** A D2 line. */
  debug2(component: LogComponent, id: number, msg: string, attr?: Record<string, unknown>): void {
    this.log('debug2', component, id, msg, attr);
  }
}

/** A logger that writes nothing anywhere (storage tests, tools). */
export const silentLogger = new Logger(undefined, 'fatal');

export function streamSink(stream: NodeJS.WritableStream): LogSink {
  return { write: (line) => void stream.write(line) };
}

/** The name a rotated log file gets: `<path>.<UTC time>` (mongod's rename mode). */
function rotatedName(path: string, now: Date): string {
  const stamp = now.toISOString().slice(0, 19).replace(/:/g, '-');
  let name = `${path}.${stamp}`;
  for (let i = 1; existsSync(name); i++) name = `${path}.${stamp}.${i}`;
  return name;
}

/**
 * A log file written synchronously, line by line: whatever was logged is in the file when the
 * process exits, however it exits. Without `append`, an existing file is first moved aside
 * (mongod without --logappend); `rotate()` renames the file and starts a new one (logRotate,
 * SIGUSR1).
 */
export class FileLogSink implements LogSink {
  private fd: number;

  constructor(
    readonly path: string,
    options: { append: boolean },
  ) {
    if (!options.append && existsSync(path)) renameSync(path, rotatedName(path, new Date()));
    this.fd = openSync(path, 'a');
  }

  write(line: string): void {
    if (this.fd >= 0) writeSync(this.fd, line);
  }

  /** Renames the current file and opens a new one; returns the name it was renamed to. */
  rotate(): string {
    const to = rotatedName(this.path, new Date());
    renameSync(this.path, to);
    const old = this.fd;
    this.fd = openSync(this.path, 'a');
    closeSync(old);
    return to;
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}

/** Whether a sink can rotate (a log file). */
export function isRotatable(sink: LogSink | undefined): sink is FileLogSink {
  return sink instanceof FileLogSink;
}
