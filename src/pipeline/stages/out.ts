// $out: replaces the contents of a collection with the pipeline's output. The target keeps its
// indexes and options (mongod builds a temporary collection and renames it over the target; one
// write transaction gives the same all-or-nothing result here). The target may be the source.

import { isPlainDocument } from '../../bson/types.js';
import type { BsonDocument } from '../../bson/types.js';
import { validateCollectionName } from '../../catalog/namespace.js';
import { ErrorCode, fail, missingFieldError } from '../../errors.js';
import { typeName } from '../values.js';
import { deleteDocument, insertDocument } from '../../catalog/write-unit.js';
import type { WriteStage } from './write.js';
import type { PipelineContext, StageDefinition } from './types.js';

class OutStage implements WriteStage {
  readonly name = '$out';
  readonly constraints = { last: true, writes: true, notInFacet: true, notInLookup: true } as const;
  constructor(
    private readonly db: string,
    private readonly coll: string,
  ) {}
  serialize(): BsonDocument {
    return { $out: { db: this.db, coll: this.coll } };
  }
  attach(): never {
    fail(ErrorCode.InternalError, '$out runs through executeWrite');
  }
  executeWrite(...[w, docs]: Parameters<WriteStage['executeWrite']>): void {
    const { txn, catalog } = w;
    const existing = catalog.get(this.db, this.coll);
    if (existing !== undefined) {
      for (const rec of [...existing.scanRecords(txn, {})]) deleteDocument(w, existing, rec);
    } else {
      catalog.getOrCreate(txn, this.db, this.coll);
    }
    const ns = { db: this.db, name: this.coll };
    for (const doc of docs) insertDocument(w, ns, doc);
  }
}

export const $out: StageDefinition = {
  name: '$out',
  parse(arg, ctx: PipelineContext) {
    let db = ctx.db;
    let coll: string;
    if (typeof arg === 'string') {
      coll = arg;
    } else if (isPlainDocument(arg)) {
      let c: string | undefined;
      for (const [k, v] of Object.entries(arg)) {
        if (k === 'db') {
          if (typeof v !== 'string')
            fail(
              ErrorCode.TypeMismatch,
              `BSON field '$out.db' is the wrong type '${typeName(v)}', expected type 'string'`,
            );
          db = v;
        } else if (k === 'coll') {
          if (typeof v !== 'string')
            fail(
              ErrorCode.TypeMismatch,
              `BSON field '$out.coll' is the wrong type '${typeName(v)}', expected type 'string'`,
            );
          c = v;
        } else if (k === 'timeseries') {
          fail(ErrorCode.NotImplemented, '$out to a time-series collection is not supported yet');
        } else {
          fail(ErrorCode.Location40415, `BSON field '$out.${k}' is an unknown field.`);
        }
      }
      if (c === undefined) throw missingFieldError('$out.coll');
      coll = c;
    } else {
      fail(
        ErrorCode.Location16990,
        `$out only supports a string or object argument, but found ${typeName(arg)}`,
      );
    }
    if (coll.startsWith('system.'))
      fail(ErrorCode.Location17385, `Can't $out to special collection: ${coll}`);
    validateCollectionName(db, coll, { allowSystem: false });
    return new OutStage(db, coll);
  },
};
