// Progress on stderr, so that stdout carries only the markdown report (pipe it to a file).
// A terminal gets a cli-progress bar; anything else (CI logs, a smoke test) gets one line
// per phase, because a redrawn bar in a log file is noise.

import cliProgress from 'cli-progress';
import { onCleanup } from './cleanup.js';

export class Progress {
  private bar: cliProgress.SingleBar | undefined;
  private unregister: (() => void) | undefined;
  private value = 0;
  private label = '';
  private started = 0;
  private readonly tty: boolean;

  constructor(private readonly enabled = true) {
    this.tty = process.stderr.isTTY === true;
  }

  /** Begin a phase of `total` steps. */
  start(label: string, total: number): void {
    this.stop();
    this.label = label;
    this.value = 0;
    this.started = performance.now();
    if (!this.enabled) return;
    if (this.tty) {
      this.bar = new cliProgress.SingleBar(
        {
          format: `${label.padEnd(28)} [{bar}] {value}/{total} | {duration_formatted} | {step}`,
          barsize: 30,
          hideCursor: true,
          clearOnComplete: true,
          stream: process.stderr,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(total, 0, { step: '' });
      const bar = this.bar;
      this.unregister = onCleanup(() => bar.stop());
    } else {
      process.stderr.write(`bench: ${label} (${total} steps)\n`);
    }
  }

  /** One step done; `step` names what runs next (shown on the bar only). */
  tick(step = ''): void {
    this.value++;
    this.bar?.update(this.value, { step });
  }

  /** Name what is running now without advancing. */
  status(step: string): void {
    this.bar?.update(this.value, { step });
  }

  stop(): void {
    if (this.bar !== undefined) {
      this.bar.stop();
      this.bar = undefined;
      this.unregister?.();
      this.unregister = undefined;
    }
    if (this.label !== '' && this.enabled && !this.tty) {
      process.stderr.write(
        `bench: ${this.label} done in ${((performance.now() - this.started) / 1000).toFixed(1)} s\n`,
      );
    }
    this.label = '';
  }
}
