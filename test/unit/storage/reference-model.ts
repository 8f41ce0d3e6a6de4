// The simplest possible implementation of the storage contract's data model, for the
// property test to compare engines against: tables of hex-keyed maps, sorted on demand.

import type { Bytes, ScanOptions } from '../../../src/storage/engine.js';

export type ModelTables = Map<string, Map<string, Buffer>>;

const hex = (b: Bytes): string => Buffer.from(b).toString('hex');

export class ReferenceModel {
  constructor(readonly tables: ModelTables = new Map()) {}

  clone(): ReferenceModel {
    const copy: ModelTables = new Map();
    for (const [t, rows] of this.tables) copy.set(t, new Map(rows));
    return new ReferenceModel(copy);
  }

  get(table: string, key: Bytes): Buffer | undefined {
    return this.tables.get(table)?.get(hex(key));
  }

  put(table: string, key: Bytes, value: Bytes): void {
    let rows = this.tables.get(table);
    if (rows === undefined) this.tables.set(table, (rows = new Map()));
    rows.set(hex(key), Buffer.from(value));
  }

  delete(table: string, key: Bytes): boolean {
    return this.tables.get(table)?.delete(hex(key)) ?? false;
  }

  clearTable(table: string): void {
    this.tables.delete(table);
  }

  count(table: string): number {
    return this.tables.get(table)?.size ?? 0;
  }

  /** [keyHex, valueHex] pairs of the range, in scan order. */
  scan(table: string, options: ScanOptions = {}): [string, string][] {
    const rows = this.tables.get(table);
    if (rows === undefined) return [];
    const startInclusive = options.startInclusive ?? true;
    const endInclusive = options.endInclusive ?? false;
    const keys = [...rows.keys()]
      .map((k) => Buffer.from(k, 'hex'))
      .filter((k) => {
        if (options.start !== undefined) {
          const c = Buffer.compare(k, options.start);
          if (c < 0 || (c === 0 && !startInclusive)) return false;
        }
        if (options.end !== undefined) {
          const c = Buffer.compare(k, options.end);
          if (c > 0 || (c === 0 && !endInclusive)) return false;
        }
        return true;
      })
      .sort(Buffer.compare);
    if (options.reverse === true) keys.reverse();
    return keys.map((k) => [
      k.toString('hex'),
      (rows.get(k.toString('hex')) as Buffer).toString('hex'),
    ]);
  }

  tableNames(): string[] {
    return [...this.tables.keys()].filter((t) => this.count(t) > 0);
  }
}

/** [keyHex, valueHex] pairs of an engine scan, for deepEqual against the model. */
export function pairs(entries: Iterable<{ key: Bytes; value: Bytes }>): [string, string][] {
  const out: [string, string][] = [];
  for (const { key, value } of entries) out.push([hex(key), hex(value)]);
  return out;
}
