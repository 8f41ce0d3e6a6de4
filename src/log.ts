// Structured logs, one JSON object per line, shaped like mongod's:
//   {"t":{"$date":"…"},"s":"I","c":"NETWORK","id":22943,"ctx":"conn3","msg":"…","attr":{…}}
// Secrets never reach a log line: attributes named like credentials are redacted here, so a
// careless caller cannot leak them.

export const Severity = { fatal: 'F', error: 'E', warning: 'W', info: 'I', debug: 'D1' } as const;
export type SeverityName = keyof typeof Severity;

const rank: Record<SeverityName, number> = { fatal: 0, error: 1, warning: 2, info: 3, debug: 4 };

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

export interface LogSink {
  write(line: string): void;
}

const secretKey =
  /pass(word)?|pwd|secret|token|key(?!Pattern|Value|s?Examined)|credential|payload|authorization/i;

function redact(value: unknown, depth: number): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Error) return { name: value.name, message: value.message };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = secretKey.test(k) ? '###' : redact(v, depth + 1);
  }
  return out;
}

export class Logger {
  private readonly threshold: number;

  constructor(
    private readonly sink: LogSink | undefined,
    private readonly level: SeverityName = 'info',
    private readonly ctx = 'main',
  ) {
    this.threshold = rank[level];
  }

  /** A logger for another context (a connection, a background job), same sink and level. */
  child(ctx: string): Logger {
    return new Logger(this.sink, this.level, ctx);
  }

  enabled(severity: SeverityName): boolean {
    return this.sink !== undefined && rank[severity] <= this.threshold;
  }

  log(
    severity: SeverityName,
    component: LogComponent,
    id: number,
    msg: string,
    attr?: Record<string, unknown>,
  ): void {
    if (!this.enabled(severity) || this.sink === undefined) return;
    this.sink.write(this.format(severity, component, id, msg, attr) + '\n');
  }

  /**
   * A startup warning, tagged as mongod tags them: logged, and returned as its log line for
   * getLog: 'startupWarnings' (returned even when this logger writes nothing).
   */
  startupWarning(
    component: LogComponent,
    id: number,
    msg: string,
    attr?: Record<string, unknown>,
  ): string {
    const line = this.format('warning', component, id, msg, attr, ['startupWarnings']);
    if (this.enabled('warning') && this.sink !== undefined) this.sink.write(line + '\n');
    return line;
  }

  private format(
    severity: SeverityName,
    component: LogComponent,
    id: number,
    msg: string,
    attr: Record<string, unknown> | undefined,
    tags?: readonly string[],
  ): string {
    const entry: Record<string, unknown> = {
      t: { $date: new Date().toISOString() },
      s: Severity[severity],
      c: component,
      id,
      ctx: this.ctx,
      msg,
    };
    if (attr !== undefined) entry['attr'] = redact(attr, 0);
    if (tags !== undefined) entry['tags'] = tags;
    try {
      return JSON.stringify(entry, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
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
  debug(component: LogComponent, id: number, msg: string, attr?: Record<string, unknown>): void {
    this.log('debug', component, id, msg, attr);
  }
}

/** A logger that writes nothing (the in-process test server's default). */
export const silentLogger = new Logger(undefined);

export function streamSink(stream: NodeJS.WritableStream): LogSink {
  return { write: (line) => void stream.write(line) };
}
