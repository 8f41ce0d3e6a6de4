// Table images for engines that cannot share structure: a copy of a table's entries, taken
// from a snapshot in chunks (yielding to the event loop between them), and put back into a
// write transaction with puts. The memory engine hands out its own O(1) images instead
// (Snapshot.exportTable) and adopts them with WriteTxn.importTable.

import type { Entry, Snapshot, TableImage, WriteTxn } from './engine.js';
import { copyBytes } from './bytes.js';

/** A table's entries, copied out of the engine. */
export class CopiedTableImage implements TableImage {
  readonly count: number;
  readonly bytes: number;

  constructor(private readonly copied: readonly Entry[]) {
    this.count = copied.length;
    let bytes = 0;
    for (const e of copied) bytes += e.key.length + e.value.length;
    this.bytes = bytes;
  }

  entries(): IterableIterator<Entry> {
    return this.copied.values();
  }
}

export interface CopyTableOptions {
  /** Entries copied between two yields to the event loop. */
  readonly chunkEntries: number;
}

/**
 * The table as `snap` sees it: the engine's own image when it has one, else a copy made in
 * chunks. `snap` must stay unreleased until this resolves.
 */
export async function exportTableImage(
  snap: Snapshot,
  table: string,
  options: CopyTableOptions,
): Promise<TableImage> {
  const own = snap.exportTable?.(table);
  if (own !== undefined) return own;
  const copied: Entry[] = [];
  let inChunk = 0;
  for (const { key, value } of snap.scan(table)) {
    // Engines may reuse what they return once the read moves on: keep private copies.
    copied.push({ key: copyBytes(key), value: copyBytes(value) });
    if (++inChunk >= options.chunkEntries) {
      inChunk = 0;
      await new Promise<void>((r) => setImmediate(r));
    }
  }
  return new CopiedTableImage(copied);
}

/** Replace the table's contents with the image: in O(1) where the engine adopts it. */
export function importImage(txn: WriteTxn, table: string, image: TableImage): void {
  if (txn.importTable !== undefined) {
    txn.importTable(table, image);
    return;
  }
  txn.clearTable(table);
  for (const { key, value } of image.entries()) txn.put(table, key, value);
}
