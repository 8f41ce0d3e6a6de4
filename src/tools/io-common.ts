// What secantus-export and secantus-import share: their failure kinds and how they are
// printed (as mongoexport/mongoimport: a setup error alone, a run-time one after "Failed: "),
// writing to a stream with back-pressure, and field lists (--fields, --fieldFile).

import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { MongoError } from 'mongodb';
import { ToolError } from './tool-error.js';
import type { ToolLog } from './tool-log.js';

/** A bad command line or option: printed without "Failed: ", as mongo-tools' setup errors. */
export class SetupError extends ToolError {
  constructor(
    message: string,
    /** A second line, e.g. "try 'secantus-export --help' for more information". */
    readonly hint?: string,
  ) {
    super(message);
  }
}

export function shortUsage(tool: string): string {
  return `try '${tool} --help' for more information`;
}

/** Prints a failure; returns the exit code (1). */
export function reportToolFailure(log: ToolLog, e: unknown, tool: string): number {
  log.stopBars();
  if (e instanceof SetupError) {
    log.plain(e.message);
    if (e.hint !== undefined) log.plain(e.hint);
  } else if (e instanceof ToolError && e.message.startsWith('error parsing command line options')) {
    log.plain(e.message);
    log.plain(shortUsage(tool));
  } else if (e instanceof ToolError || e instanceof MongoError) log.failure(e.message);
  else log.failure(e instanceof Error ? (e.stack ?? e.message) : String(e));
  return 1;
}

/** The connection string as the log shows it: a password is hidden. */
export function sanitizeUri(uri: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^:@/]*):[^@/]*@/, '$1:[**REDACTED**]@');
}

/** Writes to a stream, waiting when its buffer is full. */
export async function writeOut(out: Writable, chunk: string | Uint8Array): Promise<void> {
  if (!out.write(chunk))
    await new Promise<void>((resolve, reject) => {
      const onDrain = (): void => {
        out.off('error', onError);
        resolve();
      };
      const onError = (e: Error): void => {
        out.off('drain', onDrain);
        reject(e);
      };
      out.once('drain', onDrain);
      out.once('error', onError);
    });
}

/** Creates the directory of an output file, as mongoexport does. */
export async function prepareOutputFile(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o750 });
}

/** Field names of a --fieldFile: one a line, blank lines skipped. */
export async function fieldsFromFile(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch((e: unknown) => {
    throw new SetupError(`error reading field file: ${e instanceof Error ? e.message : String(e)}`);
  });
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** mongoimport's checks of a field list (for --fields, --headerline, --upsertFields). */
export function validateFields(fields: readonly string[]): void {
  for (const f of fields) {
    if (f.endsWith('.')) throw new ToolError(`field \`${f}\` cannot end with a '.'`);
    if (f.startsWith('.')) throw new ToolError(`field \`${f}\` cannot start with a '.'`);
    if (f.startsWith('$')) throw new ToolError(`field \`${f}\` cannot start with a '$'`);
    if (f.includes('..'))
      throw new ToolError(`field \`${f}\` cannot contain consecutive '.' characters`);
  }
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f)) throw new ToolError(`fields cannot be identical: \`${f}\` and \`${f}\``);
    seen.add(f);
  }
  for (const f of fields)
    for (const g of fields)
      if (g.startsWith(`${f}.`))
        throw new ToolError(`fields \`${f}\` and \`${g}\` are incompatible`);
}
