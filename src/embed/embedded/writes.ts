// Write batches of the embedded client, as the driver's bulk API builds them: ordered
// operations go in runs of one kind, unordered ones grouped by kind; each run is split to stay
// within the server's batch count and document size; write errors carry the index of the
// operation the caller gave, and an ordered bulk stops at the first.

import type { Document } from 'mongodb';
import { BSON, MongoBulkWriteError, MongoServerError, MongoWriteConcernError } from 'mongodb';
import type { EmbeddedSession } from './session.js';
import type { Transport } from './transport.js';

export type WriteKind = 'insert' | 'update' | 'delete';

export interface Statement {
  readonly kind: WriteKind;
  /** The inserted document, or the update / delete statement ({q, u, ...} / {q, limit}). */
  readonly body: Document;
}

/** What mongod accepts in one write command (maxWriteBatchSize, maxBsonObjectSize). */
const batchCountMax = 100_000;
const batchBytesMax = 16 * 1024 * 1024 - 16 * 1024;

/** A bulk write's outcome, with the fields and methods of the driver's BulkWriteResult. */
export class EmbeddedBulkWriteResult {
  ok = 1;
  insertedCount = 0;
  matchedCount = 0;
  modifiedCount = 0;
  deletedCount = 0;
  upsertedCount = 0;
  insertedIds: Record<number, unknown> = {};
  upsertedIds: Record<number, unknown> = {};
  readonly writeErrors: Document[] = [];
  writeConcernError: Document | undefined;

  isOk(): boolean {
    return this.ok === 1;
  }

  hasWriteErrors(): boolean {
    return this.writeErrors.length > 0;
  }

  getWriteErrorCount(): number {
    return this.writeErrors.length;
  }

  getWriteErrors(): Document[] {
    return this.writeErrors;
  }

  getWriteErrorAt(i: number): Document | undefined {
    return this.writeErrors[i];
  }

  getUpsertedIdAt(i: number): Document | undefined {
    const id = this.upsertedIds[i];
    return id === undefined ? undefined : { index: i, _id: id };
  }
}

interface Batch {
  readonly kind: WriteKind;
  readonly items: Array<{ readonly index: number; readonly body: Document }>;
}

function batches(statements: readonly Statement[], ordered: boolean): Batch[] {
  const runs: Batch[] = [];
  if (ordered) {
    statements.forEach((s, index) => {
      const last = runs[runs.length - 1];
      if (last !== undefined && last.kind === s.kind) last.items.push({ index, body: s.body });
      else runs.push({ kind: s.kind, items: [{ index, body: s.body }] });
    });
  } else {
    for (const kind of ['insert', 'update', 'delete'] as const) {
      const items = statements.flatMap((s, index) =>
        s.kind === kind ? [{ index, body: s.body }] : [],
      );
      if (items.length > 0) runs.push({ kind, items });
    }
  }
  const out: Batch[] = [];
  for (const run of runs) {
    let current: Batch = { kind: run.kind, items: [] };
    let bytes = 0;
    for (const item of run.items) {
      const size = BSON.calculateObjectSize(item.body, { ignoreUndefined: false });
      if (
        current.items.length > 0 &&
        (current.items.length >= batchCountMax || bytes + size > batchBytesMax)
      ) {
        out.push(current);
        current = { kind: run.kind, items: [] };
        bytes = 0;
      }
      current.items.push(item);
      bytes += size + 8;
    }
    if (current.items.length > 0) out.push(current);
  }
  return out;
}

const field: Record<WriteKind, string> = {
  insert: 'documents',
  update: 'updates',
  delete: 'deletes',
};

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** Run `statements` on `dbName.collection`; the combined result (errors are in it). */
export async function executeWrites(
  transport: Transport,
  session: EmbeddedSession | undefined,
  dbName: string,
  collection: string,
  statements: readonly Statement[],
  ordered: boolean,
  extra: Document,
): Promise<EmbeddedBulkWriteResult> {
  const result = new EmbeddedBulkWriteResult();
  for (const batch of batches(statements, ordered)) {
    const cmd: Document = {
      [batch.kind]: collection,
      [field[batch.kind]]: batch.items.map((i) => i.body),
      ordered,
      ...extra,
    };
    session?.applyTo(cmd);
    const reply = await transport.command(dbName, cmd);
    const errors: unknown = reply['writeErrors'];
    const failed = new Set<number>();
    let firstFailed = Infinity;
    if (Array.isArray(errors)) {
      for (const e of errors as Document[]) {
        const at = num(e['index']);
        failed.add(at);
        firstFailed = Math.min(firstFailed, at);
        const item = batch.items[at];
        result.writeErrors.push({ ...e, index: item === undefined ? at : item.index });
      }
    }
    const n = num(reply['n']);
    if (batch.kind === 'insert') {
      result.insertedCount += n;
      batch.items.forEach((item, at) => {
        if (!failed.has(at) && (!ordered || at < firstFailed))
          result.insertedIds[item.index] = item.body['_id'];
      });
    } else if (batch.kind === 'update') {
      const upserted: unknown = reply['upserted'];
      const ups = Array.isArray(upserted) ? (upserted as Document[]) : [];
      for (const u of ups) {
        const item = batch.items[num(u['index'])];
        if (item !== undefined) result.upsertedIds[item.index] = u['_id'];
      }
      result.upsertedCount += ups.length;
      result.matchedCount += n - ups.length;
      result.modifiedCount += num(reply['nModified']);
    } else {
      result.deletedCount += n;
    }
    const wce: unknown = reply['writeConcernError'];
    if (typeof wce === 'object' && wce !== null) result.writeConcernError = wce as Document;
    if (ordered && failed.size > 0) break;
  }
  return result;
}

/** A bulk write's failure as the driver reports it: MongoBulkWriteError, or its write concern error. */
export function throwIfFailed(result: EmbeddedBulkWriteResult): void {
  const first = result.writeErrors[0];
  if (first !== undefined) {
    throw new MongoBulkWriteError(
      {
        message: typeof first['errmsg'] === 'string' ? first['errmsg'] : 'write error',
        code: num(first['code']),
        writeErrors: result.writeErrors,
      } as unknown as ConstructorParameters<typeof MongoBulkWriteError>[0],
      result as unknown as ConstructorParameters<typeof MongoBulkWriteError>[1],
    );
  }
  if (result.writeConcernError !== undefined)
    throw new MongoWriteConcernError({ writeConcernError: result.writeConcernError } as never);
}

/** A single write's failure as the driver reports it: the write error as a MongoServerError. */
export function throwIfSingleFailed(result: EmbeddedBulkWriteResult): void {
  const first = result.writeErrors[0];
  if (first !== undefined) throw new MongoServerError(first);
  if (result.writeConcernError !== undefined)
    throw new MongoWriteConcernError({ writeConcernError: result.writeConcernError } as never);
}
