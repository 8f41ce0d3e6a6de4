// What the tools print, on standard error, as mongodump and mongorestore print it: one line per
// event, "<local time, 2006-01-02T15:04:05.000-0700>\t<message>". --verbose (-v, repeatable)
// shows more, --quiet hides everything but the final failure. On a terminal, collections in
// progress show progress bars (cli-progress); log lines are printed above the bars.

import type { Writable } from 'node:stream';
import cliProgress from 'cli-progress';

export interface ToolStreams {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: NodeJS.ReadableStream & AsyncIterable<unknown>;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Go's "2006-01-02T15:04:05.000-0700" in local time. */
export function toolTimestamp(d: Date): string {
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` +
    `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}` +
    `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`
  );
}

export interface ProgressBar {
  /** Sets the amount done (documents or bytes). */
  update(done: number): void;
  stop(): void;
}

/** Width of a progress bar, in characters. */
const barWidth = 24;

const noBar: ProgressBar = { update: () => undefined, stop: () => undefined };

export class ToolLog {
  private bars: cliProgress.MultiBar | undefined;
  private barCount = 0;

  constructor(
    private readonly out: Writable & { isTTY?: boolean; columns?: number },
    private readonly verbosity: number,
    private readonly quiet: boolean,
  ) {}

  private line(message: string): void {
    const text = `${toolTimestamp(new Date())}\t${message}\n`;
    if (this.bars !== undefined) this.bars.log(text);
    else this.out.write(text);
  }

  /** mongo-tools' "Always" level. */
  always(message: string): void {
    if (!this.quiet) this.line(message);
  }

  /** -v */
  info(message: string): void {
    if (!this.quiet && this.verbosity >= 1) this.line(message);
  }

  /** -vv */
  debug(message: string): void {
    if (!this.quiet && this.verbosity >= 2) this.line(message);
  }

  /** A message printed even with --quiet (a setup error, as mongo-tools print them). */
  plain(message: string): void {
    this.line(message);
  }

  /** The final failure, printed even with --quiet. */
  failure(message: string): void {
    this.line(`Failed: ${message}`);
  }

  /** A progress bar on a terminal; nothing elsewhere (the log lines say when a collection is done). */
  bar(name: string, total: number, unit: 'documents' | 'bytes' = 'documents'): ProgressBar {
    if (this.quiet || this.out.isTTY !== true) return noBar;
    this.bars ??= new cliProgress.MultiBar(
      {
        stream: this.out,
        format: ' {bar} {name}  {value}/{total} {unit}  ({percentage}%)',
        barsize: barWidth,
        hideCursor: false,
        clearOnComplete: false,
        stopOnComplete: false,
        autopadding: true,
        fps: 5,
      },
      cliProgress.Presets.legacy,
    );
    const bar = this.bars.create(Math.max(total, 0), 0, { name, unit });
    this.barCount++;
    let shown = 0;
    return {
      update: (done: number) => {
        shown = done;
        if (done > bar.getTotal()) bar.setTotal(done);
        bar.update(done);
      },
      stop: () => {
        // The bar is redrawn at most `fps` times a second, so a collection that finishes
        // between two redraws would leave no trace of its final count: as mongodump does,
        // the final state stays on screen as a log line above the remaining bars.
        this.line(finalBar(name, shown, bar.getTotal(), unit));
        bar.stop();
        this.bars?.remove(bar);
        if (--this.barCount === 0) this.stopBars();
      },
    };
  }

  /** Removes the bars (at the end, or before the summary line). */
  stopBars(): void {
    this.bars?.stop();
    this.bars = undefined;
  }
}

/** A finished bar as a permanent line, drawn like the live one. */
function finalBar(name: string, value: number, total: number, unit: string): string {
  const fraction = total > 0 ? Math.min(value / total, 1) : 1;
  const filled = Math.round(fraction * barWidth);
  const bar = '='.repeat(filled) + '-'.repeat(barWidth - filled);
  return `[${bar}] ${name}  ${value}/${total} ${unit}  (${Math.round(fraction * 100)}%)`;
}
