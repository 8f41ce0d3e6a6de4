// $listLocalSessions: the logical sessions this server knows. The server keeps no session
// cache yet (sessions are another issue), so the list holds the session of the running command
// — which mongod's cache would certainly hold, as the command itself refreshed it. `allUsers`
// and `users` are validated as mongod does; without authentication every session is the
// anonymous user's.

import { Binary } from 'bson';
import { createHash } from 'node:crypto';
import type { BsonDocument } from '../../bson/types.js';
import { isArray, isPlainDocument } from '../../bson/types.js';
import { ErrorCode, fail } from '../../errors.js';
import { typeName } from '../values.js';
import { DocumentsStage } from './base.js';
import type { PipelineContext, Stage, StageDefinition } from './types.js';

/** mongod's uid of the unauthenticated user: SHA-256 of the empty user name. */
const ANONYMOUS_UID = new Binary(createHash('sha256').update('').digest(), 0);

class ListLocalSessionsStage implements Stage {
  readonly name = '$listLocalSessions';
  readonly constraints = { first: true, collectionless: true } as const;
  constructor(
    private readonly spec: BsonDocument,
    private readonly session: BsonDocument | undefined,
  ) {}
  serialize(): BsonDocument {
    return { $listLocalSessions: this.spec };
  }
  attach(): DocumentsStage {
    const id = this.session?.['id'];
    const docs = id === undefined ? [] : [{ _id: { id, uid: ANONYMOUS_UID }, lastUse: new Date() }];
    return new DocumentsStage(docs, '$listLocalSessions');
  }
}

export const $listLocalSessions: StageDefinition = {
  name: '$listLocalSessions',
  parse(arg, ctx: PipelineContext) {
    if (!isPlainDocument(arg)) fail(ErrorCode.TypeMismatch, `$listLocalSessions options must be specified in an object, but found: ${typeName(arg)}`);
    for (const [k, v] of Object.entries(arg)) {
      if (k === 'allUsers') {
        if (typeof v !== 'boolean') fail(ErrorCode.TypeMismatch, `BSON field '$listLocalSessions.allUsers' is the wrong type '${typeName(v)}', expected type 'bool'`);
      } else if (k === 'users') {
        if (!isArray(v)) fail(ErrorCode.TypeMismatch, `BSON field '$listLocalSessions.users' is the wrong type '${typeName(v)}', expected type 'array'`);
      } else {
        fail(ErrorCode.Location40415, `BSON field '$listLocalSessions.${k}' is an unknown field.`);
      }
    }
    if (arg['allUsers'] === true && arg['users'] !== undefined) fail(ErrorCode.UnsupportedFormat, "$listLocalSessions: 'allUsers' and 'users' may not be used together");
    return new ListLocalSessionsStage(arg, ctx.session);
  },
};
