// Per-folder table, conformance/results.json, and the expected-pass list.

import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type TestResult } from './runner.js';

export interface FolderSummary {
  folder: string;
  files: number;
  tests: number;
  passed: number;
  failed: number;
  /** Failed for a listed reason outside the server (known-failures.ts). */
  known: number;
  skipped: number;
}

export function testKey(r: Pick<TestResult, 'folder' | 'file' | 'description'>): string {
  return `${r.folder}/${r.file} :: ${r.description}`;
}

export function summarize(
  results: readonly TestResult[],
  folders: readonly string[],
): FolderSummary[] {
  const out: FolderSummary[] = [];
  for (const folder of folders) {
    const rs = results.filter((r) => r.folder === folder);
    if (rs.length === 0) continue;
    out.push({
      folder,
      files: new Set(rs.map((r) => r.file)).size,
      tests: rs.length,
      passed: rs.filter((r) => r.status === 'passed').length,
      failed: rs.filter((r) => r.status === 'failed').length,
      known: rs.filter((r) => r.status === 'known').length,
      skipped: rs.filter((r) => r.status === 'skipped').length,
    });
  }
  return out;
}

export function formatTable(rows: readonly FolderSummary[]): string {
  const total: FolderSummary = {
    folder: 'total',
    files: 0,
    tests: 0,
    passed: 0,
    failed: 0,
    known: 0,
    skipped: 0,
  };
  for (const r of rows) {
    total.files += r.files;
    total.tests += r.tests;
    total.passed += r.passed;
    total.failed += r.failed;
    total.known += r.known;
    total.skipped += r.skipped;
  }
  const header = ['folder', 'files', 'tests', 'passed', 'failed', 'known', 'skipped'];
  const cells = [...rows, total].map((r) => [
    r.folder,
    String(r.files),
    String(r.tests),
    String(r.passed),
    String(r.failed),
    String(r.known),
    String(r.skipped),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]): string =>
    c.map((x, i) => (i === 0 ? x.padEnd(widths[i] ?? 0) : x.padStart(widths[i] ?? 0))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const body = cells.map(line);
  const runnable = total.passed + total.failed;
  const share =
    runnable === 0
      ? ''
      : `\n${((100 * total.passed) / runnable).toFixed(1)}% of the runnable tests pass (passed / (passed + failed); known failures and skips apart)`;
  return [line(header), rule, ...body.slice(0, -1), rule, body.at(-1) ?? ''].join('\n') + share;
}

export interface ResultsFile {
  server: { source: string; version: string; topology: string };
  runner: { schemaVersion: string; testTimeoutMs: number };
  selection: { folders: string[]; file?: string; test?: string; listedOnly: boolean };
  summary: FolderSummary[];
  tests: { folder: string; file: string; description: string; status: string; reason?: string }[];
}

/** Writes results.json. No timings or dates, so a re-run on an unchanged server gives no diff. */
export async function writeResults(path: string, data: ResultsFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(data, null, 2)}\n`);
}

export async function readExpected(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ENOENT') return [];
    throw e;
  }
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

export async function writeExpected(path: string, keys: Iterable<string>): Promise<void> {
  const sorted = [...new Set(keys)].sort();
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, sorted.length === 0 ? '' : `${sorted.join('\n')}\n`);
}
