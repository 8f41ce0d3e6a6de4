// Write concern: parsed from the command (or defaulted), it decides when a write is
// acknowledged. Default: once durable on disk. `j: false` with `w: 1`: once visible.
// `w: 0`: no reply at all when the client sent moreToCome.

import { Int32 } from 'bson';
import type { BsonDocument } from '../bson/types.js';
import { isPlainDocument, numericValue } from '../bson/types.js';
import { CommandError, ErrorCode } from '../errors.js';

export interface WriteConcern {
  readonly w: number | string;
  readonly j: boolean | undefined;
  readonly wtimeout: number;
  /** Acknowledge only once on disk. */
  readonly durable: boolean;
  /** Whether the client gave one (echoed in some replies). */
  readonly provided: boolean;
}

export const defaultWriteConcern: WriteConcern = {
  w: 1,
  j: undefined,
  wtimeout: 0,
  durable: true,
  provided: false,
};

const knownFields = new Set([
  'w',
  'j',
  'wtimeout',
  'fsync',
  'getLastError',
  'wOpTime',
  'wElectionId',
  'provenance',
]);

export function parseWriteConcern(doc: BsonDocument | undefined): WriteConcern {
  if (doc === undefined || Object.keys(doc).length === 0) return defaultWriteConcern;
  let w: number | string = 1;
  let j: boolean | undefined;
  let wtimeout = 0;
  let fsync = false;
  for (const [k, v] of Object.entries(doc)) {
    if (!knownFields.has(k)) {
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'writeConcern.${k}' is an unknown field.`,
      );
    }
    if (k === 'w') {
      const n = numericValue(v);
      if (typeof v === 'string') w = v;
      else if (n !== undefined) {
        if (n < 0 || !Number.isInteger(n))
          throw new CommandError(
            ErrorCode.FailedToParse,
            'w has to be a non-negative number and not greater than 50; found: ' + String(n),
          );
        if (n > 50)
          throw new CommandError(
            ErrorCode.FailedToParse,
            `w has to be a non-negative number and not greater than 50; found: ${n}`,
          );
        w = n;
      } else if (isPlainDocument(v)) {
        throw new CommandError(ErrorCode.FailedToParse, 'w: tag sets are not supported');
      } else {
        throw new CommandError(
          ErrorCode.FailedToParse,
          'w has to be a number or string; found: ' + typeof v,
        );
      }
    } else if (k === 'j') {
      if (typeof v === 'boolean') j = v;
      else if (numericValue(v) !== undefined) j = numericValue(v) !== 0;
      else
        throw new CommandError(
          ErrorCode.TypeMismatch,
          "BSON field 'writeConcern.j' is the wrong type, expected type 'bool'",
        );
    } else if (k === 'wtimeout') {
      const n = numericValue(v);
      if (n === undefined)
        throw new CommandError(
          ErrorCode.TypeMismatch,
          "BSON field 'writeConcern.wtimeout' is the wrong type, expected number",
        );
      wtimeout = n;
    } else if (k === 'fsync') {
      fsync = v === true || (numericValue(v) ?? 0) !== 0;
    }
  }
  if (fsync && j === true) {
    throw new CommandError(ErrorCode.BadValue, 'fsync and j options cannot be used together');
  }
  // w:0 acknowledges nothing, so there is nothing to wait for unless j or fsync asks for it.
  const durable = j === true || fsync || (w !== 0 && j !== false);
  return { w, j, wtimeout, durable, provided: true };
}

/**
 * Whether the write concern can be satisfied by this deployment. Returns a writeConcernError
 * document (the write itself still happens, as with mongod) or undefined.
 */
export function writeConcernError(wc: WriteConcern, replSet: string): BsonDocument | undefined {
  if (typeof wc.w === 'number') {
    if (wc.w > 1) {
      if (replSet === '') return undefined; // checked up front for standalones: see checkWriteConcernAllowed
      return {
        code: new Int32(ErrorCode.UnsatisfiableWriteConcern),
        codeName: 'UnsatisfiableWriteConcern',
        errmsg: 'Not enough data-bearing nodes',
      };
    }
    return undefined;
  }
  if (wc.w === 'majority') return undefined;
  return {
    code: new Int32(ErrorCode.UnknownReplWriteConcern),
    codeName: 'UnknownReplWriteConcern',
    errmsg: `No write concern mode named '${wc.w}' found in replica set configuration`,
  };
}

/** A standalone refuses w > 1 outright, before writing. */
export function checkWriteConcernAllowed(wc: WriteConcern, replSet: string): void {
  if (replSet === '' && typeof wc.w === 'number' && wc.w > 1) {
    throw new CommandError(ErrorCode.BadValue, "cannot use 'w' > 1 on a standalone");
  }
}

/** Attach the writeConcernError this deployment gives `wc`, if any, to a reply. */
export function withWriteConcernError(
  reply: BsonDocument,
  wc: WriteConcern,
  replSet: string,
): BsonDocument {
  const wce = writeConcernError(wc, replSet);
  if (wce !== undefined) reply['writeConcernError'] = wce;
  return reply;
}
